#include "server/alert_webhook.h"

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>

#include "core/utf8_text.h"
#include "proto/convert.h"
#include "proto/proto_json.h"

namespace gammalab {

WebhookUrl parse_webhook_url(const std::string& url) {
  WebhookUrl out;
  const std::string shown = "'" + utf8_without_controls(utf8_head(url, 200)) + "'";
  const std::size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    out.error = shown + " is not an http:// or https:// URL";
    return out;
  }
  const std::size_t path_start = url.find('/', scheme_end + 3);
  const std::string authority = url.substr(scheme_end + 3, path_start == std::string::npos ? std::string::npos
                                                                                            : path_start - scheme_end - 3);
  if (authority.empty() || authority.find_first_of("@ ?#") != std::string::npos) {
    out.error = shown + ": a host (and port) after " + scheme + "://, without user information";
    return out;
  }
  out.scheme_host_port = scheme + "://" + authority;
  out.path = path_start == std::string::npos ? "/" : url.substr(path_start);
  if (out.path.find_first_of(" \r\n") != std::string::npos) out.error = shown + ": a path without spaces";
  return out;
}

namespace {

// Chat webhooks read "<...>" in a message as a link or a mention ("<!channel>" pings everyone) and "&" as the
// start of an entity: the names and messages quoted come from sweep files and programs, so the three are
// written as entities, as Slack's message format asks. The "alert" object carries the text as it is.
std::string chat_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string webhook_body(const Alert& alert) {
  const std::string& sweep_name = alert.sweep_name;
  const std::string where = (sweep_name.empty() ? "sweep " + alert.sweep_id : "sweep '" + sweep_name + "'") +
                            ", run '" + alert.job_name + "' (job " + alert.job_id + ", attempt " +
                            std::to_string(alert.attempt) + ")";
  nlohmann::ordered_json body;
  body["text"] = chat_text("gammalab alert, " + alert.rule + ": " + where + ": " + alert.message);
  body["alert"] = nlohmann::ordered_json::parse(proto_to_json(to_proto(alert)));
  body["sweep_name"] = sweep_name;
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AlertWebhook::AlertWebhook(const std::string& url) : url_(parse_webhook_url(url)) {
  thread_ = std::thread([this] { run(); });
}

AlertWebhook::~AlertWebhook() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
    if (!queue_.empty()) spdlog::warn("alert webhook: {} alert(s) not posted at shutdown", queue_.size());
  }
  thread_.join();
}

void AlertWebhook::post(std::string body) {
  absl::MutexLock lock(&mutex_);
  if (queue_.size() == kMaxQueued) {
    queue_.pop_front();
    ++failures_;
    spdlog::warn("alert webhook: {} alerts wait to be posted; the oldest is dropped", kMaxQueued);
  }
  queue_.push_back(std::move(body));
}

std::int64_t AlertWebhook::failures() const {
  absl::MutexLock lock(&mutex_);
  return failures_;
}

void AlertWebhook::run() {
  httplib::Client client(url_.scheme_host_port);
  client.set_connection_timeout(std::chrono::seconds(5));
  client.set_read_timeout(std::chrono::seconds(10));
  client.set_write_timeout(std::chrono::seconds(10));
  while (true) {
    std::string body;
    {
      absl::MutexLock lock(&mutex_);
      const auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stop_ || !queue_.empty(); };
      mutex_.Await(absl::Condition(&ready));
      if (stop_) return;
      body = std::move(queue_.front());
      queue_.pop_front();
    }
    std::string why;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const httplib::Result result = client.Post(url_.path, body, "application/json");
      if (result && result->status >= 200 && result->status < 300) {
        why.clear();
        break;
      }
      why = result ? "HTTP status " + std::to_string(result->status) : httplib::to_string(result.error());
    }
    if (!why.empty()) {
      absl::MutexLock lock(&mutex_);
      ++failures_;
      spdlog::warn("alert webhook {}: not posted ({})", url_.scheme_host_port, why);
    }
  }
}

}  // namespace gammalab

#include "server/http_api.h"

#include <httplib.h>

#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace gammalab {

namespace {

std::string to_json_text(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

template <typename T>
std::string json_array(const std::vector<T>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + to_json_text(items[i]);
  return out + "]";
}

void send_json(httplib::Response& res, const std::string& body) { res.set_content(body, "application/json"); }

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::pair<std::string, int> host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--http: expected HOST:PORT, got '" + address + "'");
  return {address.substr(0, colon), std::stoi(address.substr(colon + 1))};
}

}  // namespace

HttpApi::HttpApi(Store& store, const ServerOptions& options)
    : store_(store), options_(options), server_(std::make_unique<httplib::Server>()) {
  auto& s = *server_;
  s.Get("/api/sweeps", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, json_array(store_.list_sweeps()));
  });
  s.Get(R"(/api/sweeps/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) {
      res.status = 404;
      return send_json(res, R"({"error":"sweep not found"})");
    }
    send_json(res, to_json_text(*sweep));
  });
  s.Get(R"(/api/sweeps/([^/]+)/jobs)", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) {
      res.status = 404;
      return send_json(res, R"({"error":"sweep not found"})");
    }
    send_json(res, json_array(store_.list_jobs(sweep->id())));
  });
  s.Get(R"(/api/jobs/([^/]+)/metrics)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::vector<std::string> names = split(req.get_param_value("names"), ',');
    std::int64_t after = -1;
    if (req.has_param("after_step")) after = std::stoll(req.get_param_value("after_step"));
    // Columnar per metric: {"train/loss": {"step": [...], "tokens": [...], "value": [...]}} (what uPlot wants).
    nlohmann::json out = nlohmann::json::object();
    for (const auto& p : store_.metrics(req.matches[1], names, after)) {
      auto& series = out[p.name];
      series["step"].push_back(p.step);
      series["tokens"].push_back(p.tokens);
      series["value"].push_back(std::isfinite(p.value) ? nlohmann::json(p.value) : nlohmann::json(nullptr));
    }
    send_json(res, out.dump());
  });
  s.Get("/api/workers", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, json_array(store_.list_workers(options_.lease_timeout_ms)));
  });
  s.Get("/api/events", [this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    auto seen = std::make_shared<std::uint64_t>(store_.version());
    res.set_chunked_content_provider("text/event-stream", [this, seen](size_t, httplib::DataSink& sink) {
      const std::uint64_t now = store_.wait_for_change(*seen, std::chrono::seconds(15));
      const std::string event = now != *seen ? "event: change\ndata: " + std::to_string(now) + "\n\n" : ": ping\n\n";
      *seen = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // coalesce bursts of metric writes
      return sink.write(event.data(), event.size());
    });
  });
  if (!options_.web_root.empty()) s.set_mount_point("/", options_.web_root.string());
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    res.status = 500;
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      send_json(res, nlohmann::json{{"error", e.what()}}.dump());
    }
  });

  auto [host, port] = host_port(options_.http_address);
  port_ = port == 0 ? s.bind_to_any_port(host) : (s.bind_to_port(host, port) ? port : -1);
  if (port_ < 0) throw std::runtime_error("--http: cannot listen on " + options_.http_address);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

HttpApi::~HttpApi() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gammalab

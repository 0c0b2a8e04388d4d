#include "server/http_replies.h"

#include <utility>

#include "server/coordinator/coordinator.h"

namespace gammalab {

void send_json(HttpResponse& res, std::string body) {
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(body), "application/json");
}

void send_error(HttpResponse& res, int status, std::string_view message) { res.set_error(status, message); }

void send_error(HttpResponse& res, const absl::Status& refusal) {
  send_error(res, coordinator::http_status(refusal), std::string(refusal.message()));
}

}  // namespace gammalab

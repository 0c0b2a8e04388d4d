#pragma once
// How the HTTP API answers: JSON never cached, and every refusal as {"error": "..."} with the status its kind
// maps to (coordinator::http_status: InvalidArgument 400, NotFound 404, FailedPrecondition 409, ...).
#include <string>
#include <string_view>

#include <absl/status/status.h>

#include "http/http_server.h"

namespace gammalab {

// (By value: a sweep's metrics answer is megabytes, moved into the response rather than copied.)
void send_json(HttpResponse& res, std::string body);
void send_error(HttpResponse& res, int status, std::string_view message);
void send_error(HttpResponse& res, const absl::Status& refusal);

}  // namespace gammalab

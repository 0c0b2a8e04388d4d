#include "tests/integration/prometheus_scrape.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <sstream>

namespace gammalab::testing {

std::string metrics_text(const Cluster& cluster, const std::string& token) {
  httplib::Client client("127.0.0.1", cluster.http_port());
  auto res = client.Get("/metrics", httplib::Headers{{"Authorization", "Bearer " + token}});
  if (!res || res->status != 200) return "";
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  return res->body;
}

std::optional<double> sample(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

}  // namespace gammalab::testing

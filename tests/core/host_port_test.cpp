// host:port endpoints (a gang's rendezvous, checked by the coordinator and by each worker) and the rendezvous
// line node 0's launcher prints: what is accepted, and the reason for what is not.
#include <gtest/gtest.h>

#include "core/host_port.h"
#include "core/rendezvous_line.h"

namespace gammalab {
namespace {

std::string reason(std::string_view text) {
  const auto parsed = parse_host_port(text, "field");
  const auto* why = std::get_if<std::string>(&parsed);
  return why ? *why : "accepted";
}

TEST(HostPort, NamesAndAddressesRoundTrip) {
  for (const std::string text : {"node-1.cluster.local:29500", "10.0.0.7:1", "[fe80::1]:65535", "a_b:80"}) {
    const auto parsed = parse_host_port(text, "field");
    ASSERT_TRUE(std::holds_alternative<HostPort>(parsed)) << text << ": " << reason(text);
    EXPECT_EQ(host_port_text(std::get<HostPort>(parsed)), text);
  }
  EXPECT_EQ(std::get<HostPort>(parse_host_port("[::1]:7", "f")).host, "::1");
}

// A listen address (--http, --health) may ask for any free port with 0; a rendezvous may not.
TEST(HostPort, PortZeroOnlyWhereTheCallerAllowsIt) {
  const auto listen = parse_host_port("127.0.0.1:0", "--http", /*min_port=*/0);
  ASSERT_TRUE(std::holds_alternative<HostPort>(listen));
  EXPECT_EQ(std::get<HostPort>(listen).port, 0);
  EXPECT_EQ(reason("127.0.0.1:0"), "field: the port must be an integer in [1, 65535], got '127.0.0.1:0'");
  const auto too_big = parse_host_port("127.0.0.1:70000", "--health", 0);
  ASSERT_TRUE(std::holds_alternative<std::string>(too_big));
  EXPECT_EQ(std::get<std::string>(too_big), "--health: the port must be an integer in [0, 65535], got '127.0.0.1:70000'");
}

TEST(HostPort, EverythingElseIsRefusedWithTheReason) {
  EXPECT_EQ(reason("host"), "field: must be host:port, got 'host'");
  EXPECT_EQ(reason("host:"), "field: the port must be an integer in [1, 65535], got 'host:'");
  EXPECT_EQ(reason("host:+80"), "field: the port must be an integer in [1, 65535], got 'host:+80'");
  EXPECT_EQ(reason("host:80x"), "field: the port must be an integer in [1, 65535], got 'host:80x'");
  EXPECT_EQ(reason("host:99999999999999999999"),
            "field: the port must be an integer in [1, 65535], got 'host:99999999999999999999'");
  EXPECT_EQ(reason("::1:80"),
            "field: the host may hold only letters, digits, '.', '-' and '_' (and ':' inside [ ]), got '::1:80'");
  EXPECT_EQ(reason("ho st:80"),
            "field: the host may hold only letters, digits, '.', '-' and '_' (and ':' inside [ ]), got 'ho st:80'");
  EXPECT_EQ(reason("h\xff:80"), "field: the host may hold only letters, digits, '.', '-' and '_' (and ':' inside "
                                "[ ]), got 'h\xef\xbf\xbd:80'")
      << "the value is shown as valid UTF-8";
  EXPECT_EQ(reason("[]:80"), "field: the host must be 1 to 253 bytes, got 0 in '[]:80'");
  EXPECT_EQ(reason(std::string(254, 'h') + ":1"),
            "field: the host must be 1 to 253 bytes, got 254 in '" + std::string(80, 'h') + "...'");
}

TEST(RendezvousLine, OnlyTheLauncherLineIsOne) {
  EXPECT_EQ(format_rendezvous_line(29500), "{\"rendezvous_port\":29500}");
  EXPECT_EQ(parse_rendezvous_line(format_rendezvous_line(29500)), 29500);
  EXPECT_EQ(parse_rendezvous_line("{\"rendezvous_port\": 0}"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("{\"rendezvous_port\": 65536}"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("{\"rendezvous_port\": \"80\"}"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("{\"rendezvous_port\": 80, \"step\": 1}"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("{\"step\":1,\"metrics\":{\"rendezvous_port\":80}}"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("rendezvous_port 80"), std::nullopt);
  EXPECT_EQ(parse_rendezvous_line("{\"rendezvous_port\": 80"), std::nullopt);
}

}  // namespace
}  // namespace gammalab

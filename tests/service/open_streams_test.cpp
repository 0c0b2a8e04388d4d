// Long-lived calls a valid token can open (server/long_calls.h): ReportMetrics streams opened and left open are
// bounded per client address and ended when idle; a revoked token's open streams and watches end within
// seconds; a thousand streams from one address leave the coordinator answering. Over real gRPC on loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "core/limits.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

using namespace std::chrono_literals;

// A ReportMetrics stream that sends nothing: what a client holding a thread of the server would open.
struct OpenStream {
  explicit OpenStream(v1::WorkerGateway::Stub& stub) { writer = stub.ReportMetrics(&context, &response); }
  grpc::ClientContext context;
  v1::ReportMetricsResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::ReportMetricsRequest>> writer;
  grpc::Status finish() {
    writer->WritesDone();
    return writer->Finish();
  }
};

template <typename Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

bool heartbeat_answers(v1::WorkerGateway::Stub& stub, std::chrono::milliseconds within) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + within);
  v1::HeartbeatRequest request;
  request.set_worker_id("nobody");
  v1::HeartbeatResponse response;
  return stub.Heartbeat(&context, request, &response).ok();
}

TEST(OpenStreams, MetricStreamsAreBoundedPerClientAddressAndTheServerKeepsAnswering) {
  InProcessCoordinator c("open-streams-bound");
  // 40 connections from one address with 25 streams each: the scale that stalled and then crashed the server.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<v1::WorkerGateway::Stub>> stubs;
  for (int i = 0; i < 40; ++i) {
    channels.push_back(c.own_channel());
    stubs.push_back(v1::WorkerGateway::NewStub(channels.back()));
  }
  std::vector<std::unique_ptr<OpenStream>> streams;
  for (int i = 0; i < 1000; ++i) streams.push_back(std::make_unique<OpenStream>(*stubs[i % stubs.size()]));
  // The server holds at most the per-address bound; every other stream was answered with its refusal.
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == limits::kMaxMetricStreamsPerClient; }, 10s));
  EXPECT_TRUE(heartbeat_answers(*stubs[0], 2s)) << "a heartbeat waits behind open streams";
  int refused = 0;
  std::string message;
  for (std::size_t i = limits::kMaxMetricStreamsPerClient; i < streams.size(); ++i) {
    const grpc::Status status = streams[i]->finish();
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      message = status.error_message();
    }
  }
  // Which 16 got in is the server's order of arrival; 984 are refused whichever they are.
  EXPECT_GE(refused, 1000 - 2 * static_cast<int>(limits::kMaxMetricStreamsPerClient));
  EXPECT_NE(message.find("too many open metric streams: at most 16 per client address"), std::string::npos)
      << message;
  for (auto& s : streams) s->context.TryCancel();
}

// Two greedy tokens cannot hold every metric stream: each holds at most a fair share (total / (k + 2) beside k
// other holders), so a third token's workers still get streams. The coordinator's bounds are lowered so the
// test opens a dozen streams, not a thousand, and the per-address bound raised: on loopback every worker
// shares one address.
TEST(OpenStreams, AThirdTokenGetsStreamsBesideTwoGreedyOnes) {
  constexpr std::size_t kTotal = 12;
  InProcessCoordinator c("open-streams-fair-share", [](ServerOptions& options) {
    options.max_metric_streams = kTotal;
    options.max_metric_streams_per_address = kTotal;
  });
  struct Token {
    std::int64_t id = 0;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::WorkerGateway::Stub> stub;
    std::vector<std::unique_ptr<OpenStream>> streams;
  };
  auto token = [&](const std::string& name) {
    ClientSecurity security;
    security.token = c.tokens().create(Role::kWorker, name);
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    Token t;
    t.id = token_id_of(security.token).value();
    t.channel = open_channel(c.address(), security, args);
    t.stub = v1::WorkerGateway::NewStub(t.channel);
    return t;
  };
  Token greedy_a = token("greedy a"), greedy_b = token("greedy b"), third = token("third");
  const LongCalls& streams = c.gateway().metric_streams();
  // Opens `count` streams and waits until the server holds `expected` of them and has refused the rest, so that
  // every refusal is made while the shares are those of this step (a refusal made after the next token opened
  // its streams would name that step's share).
  auto open = [&](Token& t, int count, std::size_t expected) {
    const std::int64_t refused_before = streams.refused();
    for (int i = 0; i < count; ++i) t.streams.push_back(std::make_unique<OpenStream>(*t.stub));
    return eventually([&] {
      return streams.open_for_token(t.id) == expected &&
             streams.refused() == refused_before + count - static_cast<std::int64_t>(expected);
    }, 10s);
  };
  ASSERT_TRUE(open(greedy_a, 20, kTotal / 2)) << "alone, a token holds half of all: " << streams.open_for_token(greedy_a.id);
  ASSERT_TRUE(open(greedy_b, 20, kTotal / 3)) << "beside one other, a third of all: " << streams.open_for_token(greedy_b.id);
  ASSERT_TRUE(open(third, 4, 2)) << "the third token got " << streams.open_for_token(third.id)
                                 << " streams beside the greedy tokens' shares, not the 2 left";
  EXPECT_EQ(streams.open(), kTotal);
  EXPECT_EQ(streams.open_for_token(greedy_a.id), kTotal / 2) << "a greedy token took more while others held some";
  // The refusal names the token's share.
  std::string refusal;
  for (auto& stream : greedy_b.streams) {
    const grpc::Status status = stream->finish();
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) refusal = status.error_message();
  }
  EXPECT_EQ(refusal, "too many open metric streams: at most 12 per client address, 512 per token (now 4, a fair "
                     "share beside the other tokens holding metric streams) and 12 in all; close others or retry "
                     "later");
  for (Token* t : {&greedy_a, &third}) {
    for (auto& stream : t->streams) stream->context.TryCancel();
  }
}

TEST(OpenStreams, AnIdleMetricStreamIsEnded) {
  InProcessCoordinator c("open-streams-idle", [](ServerOptions& o) { o.metric_stream_idle_ms = 1000; });
  auto stub = v1::WorkerGateway::NewStub(c.own_channel());
  OpenStream idle(*stub);
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 1; }, 5s));
  // Within the idle limit and the watchdog's period, not before the limit.
  const auto opened = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 0; }, 5s));
  EXPECT_GE(std::chrono::steady_clock::now() - opened, 500ms);
  EXPECT_EQ(c.gateway().metric_streams().ended_idle(), 1);
  EXPECT_FALSE(idle.finish().ok());
  // Its slot is free again: a new stream gets in and reports like any other.
  OpenStream next(*stub);
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 1; }, 5s));
  EXPECT_TRUE(next.finish().ok());
}

// Empty reports are not activity: a stream that sends nothing but empty requests is ended like a silent one, so
// a token cannot hold its slots with them.
TEST(OpenStreams, AStreamOfEmptyReportsIsEndedAsIdle) {
  InProcessCoordinator c("open-streams-empty", [](ServerOptions& o) { o.metric_stream_idle_ms = 1000; });
  // A worker of this token holding a job: its empty reports are well-formed and fenced in, and store nothing.
  c.store().create_sweep(make_sweep("empty", 1), "", "", false);
  const std::string worker = c.store().register_worker("host", 1, {}, "", c.worker_token_id());
  const auto lease = c.store().lease(worker, 60000);
  ASSERT_TRUE(lease);
  auto stub = v1::WorkerGateway::NewStub(c.own_channel());
  OpenStream busy(*stub);
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 1; }, 5s));
  const auto opened = std::chrono::steady_clock::now();
  v1::ReportMetricsRequest empty;
  empty.set_job_id(lease->job.id);
  empty.set_attempt(lease->attempt);
  std::thread keep_alive([&] {
    while (std::chrono::steady_clock::now() - opened < 6s && busy.writer->Write(empty)) std::this_thread::sleep_for(100ms);
  });
  EXPECT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 0; }, 5s))
      << "empty reports kept the stream open";
  EXPECT_EQ(c.gateway().metric_streams().ended_idle(), 1);
  busy.context.TryCancel();
  keep_alive.join();
}

TEST(OpenStreams, RevokingAWorkerTokenEndsItsOpenMetricStreams) {
  InProcessCoordinator c("open-streams-revoke-worker");
  auto stub = v1::WorkerGateway::NewStub(c.own_channel());
  OpenStream open(*stub);
  ASSERT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 1; }, 5s));
  ASSERT_TRUE(c.tokens().revoke(c.worker_token_id()));
  EXPECT_TRUE(eventually([&] { return c.gateway().metric_streams().open() == 0; }, 3s))
      << "a revoked token's stream is still open";
  EXPECT_EQ(c.gateway().metric_streams().ended_revoked(), 1);
  EXPECT_FALSE(open.finish().ok());
}

TEST(OpenStreams, RevokingAUserTokenEndsItsWatches) {
  InProcessCoordinator c("open-streams-revoke-user");
  c.store().create_sweep(make_sweep("watched", 2), "", "", false);
  auto stub = v1::Coordinator::NewStub(c.own_channel());
  grpc::ClientContext context;
  v1::WatchSweepRequest request;
  request.set_sweep_id("watched");
  auto reader = stub->WatchSweep(&context, request);
  v1::SweepUpdate update;
  ASSERT_TRUE(reader->Read(&update)) << "the watch sends the sweep first";
  EXPECT_EQ(c.coordinator().watches().open(), 1u);
  const std::int64_t user_token_id = token_id_of(c.user_token()).value();
  ASSERT_TRUE(c.tokens().revoke(user_token_id));
  const auto revoked = std::chrono::steady_clock::now();
  while (reader->Read(&update)) {
  }
  EXPECT_LT(std::chrono::steady_clock::now() - revoked, 5s);
  EXPECT_FALSE(reader->Finish().ok());
  EXPECT_TRUE(eventually([&] { return c.coordinator().watches().open() == 0; }, 3s));
}

}  // namespace
}  // namespace gammalab::testing

#pragma once
// Every limit on what a sweep file or a job config may ask for, in one place (and, last, on the text the
// services cut to a size). Sweep files come from users and over the network (the coordinator's SubmitSweep),
// so each size is checked before any allocation or work proportional to it, and each failure is a
// ConfigError or a diagnostic that names the field, the limit and the value. The values are generous: a
// real study (models up to ~100B parameters, up to ~10T tokens) never meets them; they exist to bound
// memory, CPU time and stack depth. docs/sweeps.md lists them.
#include <cstddef>
#include <cstdint>

namespace gammalab::limits {

// --- The sweep file -------------------------------------------------------------------------------------

// The largest shipped study is a few KB; a file a thousand times larger is not a study but a payload.
inline constexpr std::size_t kMaxSweepFileBytes = 1 << 20;  // 1 MiB
// Sweeps nest base.model.moe.<field> and axes.grid.<field>: [values], about 5 levels. The YAML reader
// recurses once per level, so the depth bounds its stack.
inline constexpr int kMaxYamlDepth = 32;
// A field value as text (a path, a name): PATH_MAX. Each job copies its values, so this times the job limit
// bounds the memory of an expansion.
inline constexpr std::size_t kMaxScalarBytes = 4096;
// A mapping key: field names are at most ~30 characters, and keys are quoted in messages and paths.
inline constexpr std::size_t kMaxKeyBytes = 128;
// An axis's values are compared pairwise for duplicates; more values than jobs can never expand anyway.
inline constexpr std::size_t kMaxAxisValues = 1000;
// `seeds: N` builds N seeds; real studies use a handful.
inline constexpr std::int64_t kMaxSeeds = 1000;
// `more_seeds:` entries of one sweep (core/sweep/more_seeds.h).
inline constexpr std::size_t kMaxMoreSeedEntries = 1000;
// The default for SweepOptions::max_jobs: axis sizes times seeds, counted before anything is expanded.
inline constexpr std::size_t kMaxJobsPerSweep = 10000;
// max_attempts: retries of a failing job.
inline constexpr int kMaxAttempts = 100;

// --- Expressions in numeric fields (core/expression.h) ---------------------------------------------

// Real expressions are one line, e.g. `round(100 * params / batch_tokens)`.
inline constexpr std::size_t kMaxExpressionLength = 1024;
// Parentheses, function calls and unary signs, each one level: the parser recurses once per level.
inline constexpr int kMaxExpressionDepth = 32;
// Numbers, names, operators and calls: the tree's size, which also bounds the evaluator's recursion (a
// chain of sums is a tree as deep as it is long).
inline constexpr std::size_t kMaxExpressionNodes = 256;

// --- Job configs (validate() in core/job_config.h) --------------------------------------------------------

// A whole number in a double is exact up to 2^53; integer fields given as floats or expressions must fit.
inline constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

inline constexpr int kMaxVocab = 1 << 20;           // 1,048,576 tokens (large vocabularies are ~256k)
inline constexpr int kMaxLayers = 1024;             // 100B models have ~100
inline constexpr int kMaxDModel = 1 << 16;          // 65,536 (100B models: ~12k)
inline constexpr int kMaxHeads = 1024;              // n_heads and n_kv_heads
inline constexpr int kMaxFfn = 1 << 18;             // 262,144: ffn_hidden and moe.expert_ffn
inline constexpr int kMaxSeqLen = 1 << 20;          // 1M-token context
inline constexpr int kMaxExperts = 1024;            // moe.n_experts (and so top_k)
inline constexpr std::int64_t kMaxSteps = 10'000'000'000;          // 1e10 optimizer steps
inline constexpr std::int64_t kMaxBatchTokens = 1 << 30;           // ~1.07e9 tokens per step (real: ~16M)
inline constexpr std::int64_t kMaxTokens = 100'000'000'000'000;    // 1e14 tokens per job: 10x a 10T run
inline constexpr int kMaxMicroBatch = 1 << 20;                     // sequences per forward pass
inline constexpr int kMaxInterval = 1'000'000'000;                 // log_, eval_, ckpt_ and sharpness_every, in steps
inline constexpr int kMaxEvalBatches = 1'000'000;                  // data.eval_batches (the older form)
inline constexpr int kMaxEvalWindows = 1'000'000;                  // data.eval_windows
inline constexpr std::int64_t kMaxEvalTokens = 1LL << 27;          // windows x (seq_len + 1): 1 GiB of token ids
inline constexpr int kMaxThreads = 4096;
inline constexpr int kMaxWorldSize = 65536;                        // data-parallel ranks of one job
inline constexpr int kMaxNodes = 1024;                             // workers one job spans
inline constexpr int kMaxMuonNsSteps = 100;                        // Newton-Schulz iterations per step

// --- Replies -----------------------------------------------------------------------------------------------

// ListJobs and ListSweeps pages: a client asks for up to kMaxPageSize entries (0: kDefaultPageSize); a
// ListJobs page also ends before its encoded size passes kMaxReplyBytes, half of gRPC's default 4 MiB
// receive limit, whatever the jobs' configs and errors weigh. WatchSweep splits its updates at that size.
inline constexpr int kDefaultPageSize = 500;
inline constexpr int kMaxPageSize = 5000;
inline constexpr std::size_t kMaxReplyBytes = 2 << 20;
// GetMetrics pages, in points (a page also ends before kMaxReplyBytes), and what one request may name.
inline constexpr int kDefaultMetricPageSize = 50'000;
inline constexpr int kMaxMetricPageSize = 200'000;
inline constexpr std::size_t kMaxMetricJobIds = 10'000;
inline constexpr std::size_t kMaxMetricNames = 1'000;
// Open WatchSweep calls (each holds a thread of the gRPC server and reads its sweep every round), per client
// address, per token and in all: `gammalab watch` opens one.
inline constexpr std::size_t kMaxWatchesPerClient = 16;
inline constexpr std::size_t kMaxWatchesPerToken = 64;
inline constexpr std::size_t kMaxWatches = 256;
// Open ReportMetrics streams (each holds a thread while open). A worker sends one at a time, writes its
// batches at once and closes it within its 30 s deadline; a cluster's workers may share one token, each from
// its own address. A stream that sends nothing for kMetricStreamIdleMs is ended.
inline constexpr std::size_t kMaxMetricStreamsPerClient = 16;
inline constexpr std::size_t kMaxMetricStreamsPerToken = 512;
inline constexpr std::size_t kMaxMetricStreams = 1024;
inline constexpr std::int64_t kMetricStreamIdleMs = 30'000;
// The longest a worker's gRPC channel waits between reconnection tries (GRPC_ARG_MAX_RECONNECT_BACKOFF_MS): a
// restarted coordinator's lease grace covers it (server/lease_reaper.h).
inline constexpr std::int64_t kWorkerMaxReconnectBackoffMs = 2'000;
// Threads of the gRPC server in all (its resource quota): the long calls above, and unary calls beside them.
// A call that finds none free is refused with RESOURCE_EXHAUSTED instead of starting a thread without end.
inline constexpr int kMaxGrpcServerThreads = 1600;
// gRPC's own memory (connection and message buffers) in all, its resource quota's size.
inline constexpr std::size_t kMaxGrpcServerMemoryBytes = std::size_t{2} << 30;  // 2 GiB
// GetFits pages and the HTTP API's ?all=1, in fit versions.
inline constexpr int kDefaultFitPageSize = 10;
inline constexpr int kMaxFitPageSize = 100;
// The HTTP API's metrics answers without max_points (every point): at most this many points in all.
inline constexpr std::size_t kMaxFullSeriesPoints = 1'000'000;

// Metric reports: points in one ReportMetrics request, and per job a sustained rate with a burst
// (server/metric_rate_limit.h). A trainer logging 8 metrics every step at 100 steps/s reports 800 points/s.
inline constexpr std::size_t kMaxPointsPerReport = 10'000;
inline constexpr double kMetricPointsPerSecondPerJob = 5'000;
inline constexpr double kMetricPointBurstPerJob = 50'000;

// --- Text in messages (cut with core/utf8_text.h) ---------------------------------------------------------

// A job's error as the coordinator stores and shows it: the worker sends the end of the trainer's log, which
// says why it failed; a longer text is cut at a character boundary.
inline constexpr std::size_t kMaxJobErrorBytes = 4096;
// A refused sweep's problems in SubmitSweep's reply: at most this many, each message cut to 1 KiB, so the
// reply stays far below gRPC's 4 MiB limit (the rest are counted; `gammalab validate` lists them all).
inline constexpr std::size_t kMaxReportedProblems = 1000;
inline constexpr std::size_t kMaxProblemMessageBytes = 1024;

}  // namespace gammalab::limits

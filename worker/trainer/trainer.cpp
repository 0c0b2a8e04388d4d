#include "worker/trainer/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "core/branch_point.h"
#include "core/config_error.h"
#include "core/decimal_text.h"
#include "core/metric_names.h"
#include "core/data_path.h"
#include "core/param_count.h"
#include "core/shared_root.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/checkpoint_resume_check.h"
#include "core/lr_schedule.h"
#include "core/metric.h"
#include "worker/trainer/sharpness.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

namespace {

// The data directory relative data paths resolve against: the given one, else $GAMMALAB_DATA_DIR, else none.
std::filesystem::path effective_data_dir(const std::filesystem::path& data_dir) {
  if (!data_dir.empty()) return data_dir;
  const char* env = std::getenv("GAMMALAB_DATA_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::path();
}

}  // namespace

std::filesystem::path resolve_data_path(const char* field, const std::string& path, const std::filesystem::path& data_dir) {
  const std::filesystem::path dir = effective_data_dir(data_dir);
  // Without a data directory (a trainer run by hand) a path is the user's own; with one (always, under a
  // worker) it must stay inside it (core/data_path.h).
  if (dir.empty()) return path;
  if (const std::string error = data_path_error(path); !error.empty()) {
    throw ConfigError(field, error + " (data directory " + dir.string() + ")");
  }
  return dir / path;
}

namespace {

// The shard files of a data field, or DataUnavailable naming the field, the path and the data directory it was
// resolved against, so that a worker's log says which machine's folder lacks the file.
std::vector<std::filesystem::path> data_files(const char* field, const std::string& path,
                                              const std::filesystem::path& data_dir) {
  const std::filesystem::path resolved = resolve_data_path(field, path, data_dir);
  try {
    return shard_files(resolved);
  } catch (const DataUnavailable& e) {
    const std::filesystem::path dir = effective_data_dir(data_dir);
    const std::string where = dir.empty() ? " (no data directory: the path is used as given)"
                                          : " (in the data directory " + dir.string() +
                                                ": under a worker, its --data-dir)";
    throw DataUnavailable(std::string(field) + ": " + e.what() + where);
  }
}

}  // namespace

Trainer::Trainer(const JobConfig& config, TrainerOptions options, std::ostream& metrics_out, std::ostream& log)
    : config_(config), options_(std::move(options)), metrics_(metrics_out, options_.stored, !options_.ckpt_dir.empty()), log_(log) {
  validate(config_);
  if (config_.data.train.empty()) throw ConfigError("data.train", "is required (a .bin shard or a directory of shards)");
  set_cpu_threads(config_.threads);
  const RankSpec& ranks = options_.ranks;
  if (config_.device == DeviceKind::Cuda) {
    if (!torch::cuda::is_available()) throw ConfigError("device", "cuda requested but no CUDA device is available");
    // Each rank its own GPU: the LOCAL_RANK-th it sees, or the only one (CUDA_VISIBLE_DEVICES set per rank).
    const auto visible = static_cast<int>(torch::cuda::device_count());
    if (ranks.distributed() && visible > 1 && ranks.local_rank >= visible) {
      throw ConfigError("LOCAL_RANK", std::to_string(ranks.local_rank) + " but only " + std::to_string(visible) +
                                          " CUDA devices are visible");
    }
    device_ = ranks.distributed() ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(visible > 1 ? ranks.local_rank : 0))
                                  : at::Device(at::kCUDA);
  }
  const std::int64_t T = config_.model.seq_len;
  train_ = std::make_unique<TokenDataset>(data_files("data.train", config_.data.train, options_.data_dir), T);
  if (!config_.data.val.empty()) {
    val_ = std::make_unique<TokenDataset>(data_files("data.val", config_.data.val, options_.data_dir), T);
  }
  const std::uint32_t max_tok = std::max(train_->max_token(), val_ ? val_->max_token() : 0u);
  if (max_tok >= static_cast<std::uint32_t>(config_.model.vocab_size)) {
    throw ConfigError("model.vocab_size", std::to_string(config_.model.vocab_size) + " is too small for token id " +
                                               std::to_string(max_tok) + " in the data");
  }
  // Each rank trains on its slice of the global batch; micro_batch stays the sequences per forward pass.
  const std::int64_t sequences = config_.sequences_per_step();
  if (sequences % ranks.world_size != 0) {
    throw ConfigError("world_size", std::to_string(ranks.world_size) + " ranks do not divide the " +
                                        std::to_string(sequences) + " sequences per step");
  }
  rank_sequences_ = sequences / ranks.world_size;
  micro_ = config_.micro_batch > 0 ? config_.micro_batch : rank_sequences_;
  if (rank_sequences_ % micro_ != 0) {
    throw ConfigError("micro_batch", std::to_string(micro_) + " does not divide the " + std::to_string(rank_sequences_) +
                                         " sequences per step of each of " + std::to_string(ranks.world_size) + " ranks");
  }
  n_micro_ = rank_sequences_ / micro_;
  eval_micro_ = config_.micro_batch > 0 ? config_.micro_batch : sequences;
  sampler_ = std::make_unique<BatchSampler>(*train_, config_.seed);
  model_ = std::make_unique<Model>(config_.model, config_.scale);
  model_->init(config_.seed);
  if (device_.is_cuda()) model_->to(device_);
  optimizer_ = std::make_unique<Optimizer>(*model_, config_);
  if (ranks.distributed()) {
    collectives_ = Collectives::connect(ranks, device_);
    grad_sync_ = std::make_unique<GradientSync>(*collectives_, model_->parameters(), options_.bucket_bytes);
    log_ << "rank " << ranks.rank << " of " << ranks.world_size << ": " << grad_sync_->buckets()
         << " gradient buckets, " << n_micro_ << " micro-batches of " << micro_ << " sequences per step\n";
  }
  // Only rank 0 evaluates (the others wait for it at the next step's all-reduce).
  if (val_ && is_rank0()) {
    const std::int64_t windows = config_.eval_windows();
    eval_set_ = sequential_windows(*val_, 0, windows).to(device_);
    log_ << "held-out set: the first " << windows << " windows of " << T << " tokens of data.val"
         << (windows > val_->windows() ? " (the file has " + std::to_string(val_->windows()) + ": it repeats)" : "")
         << ", evaluated " << std::min(windows, eval_micro_) << " at a time\n";
  }
}

Trainer::~Trainer() = default;

// The mean loss per token over the whole held-out set, in chunks of eval_micro_ windows (memory): every chunk
// but the last is full, and each counts by its windows, so the result does not depend on the chunk size.
double Trainer::evaluate() {
  at::NoGradGuard no_grad;
  at::Tensor total = at::zeros({}, at::TensorOptions().dtype(at::kDouble).device(device_));
  const std::int64_t T = config_.model.seq_len;
  const std::int64_t windows = eval_set_.size(0);
  for (std::int64_t first = 0; first < windows; first += eval_micro_) {
    const std::int64_t n = std::min(eval_micro_, windows - first);
    at::Tensor batch = eval_set_.narrow(0, first, n);
    total = total + model_->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T)).ce.to(at::kDouble) * static_cast<double>(n);
  }
  return total.item<double>() / static_cast<double>(windows);
}

std::map<std::string, double> Trainer::scale_rms() const {
  at::NoGradGuard no_grad;
  double sum[2] = {0, 0};
  std::int64_t count[2] = {0, 0};
  const ParamStore& store = model_->store();
  for (std::size_t i = 0; i < store.scales().size(); ++i) {
    const int r = store.scales()[i].role == ScaleRole::Input ? 0 : 1;
    const at::Tensor g = store.gamma(static_cast<int>(i));
    sum[r] += g.pow(2).sum().item<double>();
    count[r] += g.numel();
  }
  std::map<std::string, double> out;
  if (count[0] > 0) out[std::string(metric_names::kScaleRmsInput)] = std::sqrt(sum[0] / double(count[0]));
  if (count[1] > 0) out[std::string(metric_names::kScaleRmsOutput)] = std::sqrt(sum[1] / double(count[1]));
  return out;
}

const shared_root::Dir& Trainer::checkpoint_dir() {
  if (!ckpt_) ckpt_ = open_checkpoint_dir(options_.ckpt_dir, options_.shared_root);
  return *ckpt_;
}

void Trainer::checkpoint(std::int64_t step) {
  CheckpointMeta meta;
  meta.step = step;
  meta.tokens = step * config_.batch_tokens;
  meta.data = sampler_->position();
  meta.seed = config_.seed;
  meta.config = to_json(config_);
  meta.train_seconds = train_seconds();
  meta.job_uid = options_.job_uid;
  if (options_.stored_before != nullptr) metrics_.forget_stored_before(std::min(options_.stored_before->load(), step));
  meta.metric_lines = metrics_.unstored();
  meta.lines_stored_before = metrics_.stored_before();
  // A branch point's announcement is printed only once its checkpoint is written, but it is kept in that
  // checkpoint: a trainer killed between the two replays it on resume, so the branches never wait for the
  // whole run to end (docs/branches.md).
  const bool branch_point = is_branch_point(step);
  const std::map<std::string, double> announcement{{std::string(metric_names::kBranchPoint), double(step)}};
  if (branch_point) meta.metric_lines.push_back(format_metric_line(step, meta.tokens, announcement));
  const auto file = save_checkpoint(checkpoint_dir(), *model_, optimizer_.get(), meta, 2, options_.keep_checkpoints_at);
  log_ << "checkpoint " << file.string() << "\n";
  if (branch_point) metrics_.metrics(step, meta.tokens, announcement);
}

std::int64_t Trainer::resume() {
  std::int64_t step = 0;
  // Only rank 0 reads checkpoints (the others need no shared filesystem); they take its state below.
  if (!options_.ckpt_dir.empty() && is_rank0()) {
    // A damaged newest checkpoint is reported and the one before it used, rather than failing every attempt.
    const ResumeCheck check = resume_check(options_.job_uid, to_json(config_), options_.stored);
    if (const auto loaded = load_newest_intact_checkpoint(checkpoint_dir(), *model_, optimizer_.get(), log_, check)) {
      const CheckpointMeta& meta = loaded->meta;
      sampler_->seek(meta.data);
      metrics_.replay(meta.metric_lines);
      seconds_before_ = meta.train_seconds;
      log_ << "resumed from " << loaded->file.string() << " at step " << meta.step << "\n";
      step = meta.step;
    }
  }
  if (step == 0 && !options_.start_from.empty() && is_rank0()) step = start_from_branch_point();
  return collectives_ ? sync_from_rank0(step) : step;
}

std::int64_t Trainer::start_from_branch_point() {
  const std::filesystem::path& file = options_.start_from;
  // The parent's directory is the coordinator's to name and the parent's to write: reached from the shared root
  // without following a link, and never made.
  std::optional<shared_root::Dir> dir;
  if (options_.shared_root.empty()) {
    dir = shared_root::Dir::open(file.parent_path());
  } else {
    const auto rel = shared_root::relative_below(options_.shared_root, file.parent_path());
    if (!rel) {
      throw ConfigError("--start-from", file.string() + " is not below the shared root " + options_.shared_root.string());
    }
    dir = shared_root::Dir::open(options_.shared_root).find_dir(*rel);
    if (!dir) throw std::runtime_error("branch point " + file.string() + ": its directory does not exist");
  }
  // Another job's file at the parent's path (a job id used again) is refused before anything is loaded.
  const ResumeCheck whose = [&](const CheckpointMeta& m) -> std::optional<ResumeRefusal> {
    if (options_.start_from_uid.empty() || m.job_uid.empty() || m.job_uid == options_.start_from_uid) return std::nullopt;
    return ResumeRefusal{"written by job uid " + m.job_uid + ", not by the run this branch starts from (" +
                         options_.start_from_uid + ")"};
  };
  CheckpointMeta meta;
  try {
    meta = load_checkpoint(*dir, file.filename().string(), *model_, optimizer_.get(), &log_, whose);
  } catch (const CheckpointRefused& e) {
    throw ConfigError("--start-from", file.string() + ": " + e.what());
  }
  const std::string mismatch = branch_point_mismatch(job_config_from_json(meta.config), config_, meta.step);
  if (!mismatch.empty()) throw ConfigError("--start-from", file.string() + ": " + mismatch);
  sampler_->seek(meta.data);
  // The branch's curve starts after the branch point: the parent's lines up to it are the parent's, stored once.
  // Its training seconds carry on from the parent's, so that wall_s places each point as the FLOPs do.
  seconds_before_ = meta.train_seconds;
  log_ << "started from the branch point " << file.string() << " at step " << meta.step << "\n";
  return meta.step;
}

std::int64_t Trainer::sync_from_rank0(std::int64_t step) {
  at::NoGradGuard no_grad;
  const DataPosition pos = sampler_->position();
  // The step, data position and optimizer step count travel as one tensor (on the device: NCCL needs it there).
  std::vector<at::Tensor> tensors{
      at::tensor(std::vector<std::int64_t>{step, pos.epoch, pos.cursor, optimizer_->steps_taken()}, at::kLong).to(device_)};
  for (const at::Tensor& p : model_->parameters()) tensors.push_back(p);
  const std::map<std::string, at::Tensor> state = optimizer_->state();  // handles to the optimizer's own tensors
  for (const auto& [name, t] : state) tensors.push_back(t);
  collectives_->broadcast_from_rank0(tensors);
  const at::Tensor header = tensors.front().to(at::kCPU);
  const auto* h = header.data_ptr<std::int64_t>();
  if (!is_rank0()) {
    sampler_->seek({h[1], h[2]});
    optimizer_->load_state(state, h[3]);  // sets the step count; the tensors are already rank 0's
  }
  return h[0];
}

Trainer::StepResult Trainer::train_step(double lr_mult) {
  const std::int64_t T = config_.model.seq_len;
  optimizer_->zero_grad();
  // Every rank draws the whole global batch (the data position stays the same on all of them, and so does a
  // checkpoint's) and trains on its own contiguous slice of it.
  const at::Tensor global = sampler_->next(config_.sequences_per_step());
  const at::Tensor mine = global.narrow(0, options_.ranks.rank * rank_sequences_, rank_sequences_);
  at::Tensor loss_sum = at::zeros({}, at::TensorOptions().device(device_));
  for (std::int64_t m = 0; m < n_micro_; ++m) {
    at::Tensor batch = mine.narrow(0, m * micro_, micro_).to(device_, /*non_blocking=*/true);
    LossParts parts = model_->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T));
    if (grad_sync_ && m == n_micro_ - 1) grad_sync_->arm();
    (parts.total() / double(n_micro_)).backward();
    loss_sum = loss_sum + parts.ce.detach();
  }
  if (grad_sync_) {
    // Mean gradient over the ranks; the loss and the stop request ride along with the last all-reduce.
    const bool stop = options_.stop != nullptr && options_.stop->load();
    const std::vector<double> sums = grad_sync_->finish({loss_sum.item<double>(), stop ? 1.0 : 0.0});
    allreduce_wait_s_ += grad_sync_->last_wait_seconds();
    loss_sum = at::scalar_tensor(sums[0] / double(options_.ranks.world_size), at::kDouble);
    stop_agreed_ = sums[1] > 0;
  }
  at::Tensor grad_norm = optimizer_->clip_gradients();
  optimizer_->step(lr_mult);
  return {loss_sum, grad_norm};
}

void Trainer::log_train(std::int64_t step, const StepResult& result, double lr_mult,
                        std::map<std::string, double>& values) {
  namespace names = metric_names;
  const std::int64_t tokens = step * config_.batch_tokens;
  const double loss = result.loss_sum.item<double>() / double(n_micro_);
  const auto now = std::chrono::steady_clock::now();
  const double secs = std::chrono::duration<double>(now - last_log_.time).count();
  const double lr = config_.optim.lr * lr_mult;
  const double tokens_per_s = secs > 0 ? double(tokens - last_log_.tokens) / secs : 0.0;
  values[std::string(names::kTrainLoss)] = loss;
  values[std::string(names::kLearningRate)] = lr;
  values[std::string(names::kGradNorm)] = result.grad_norm.item<double>();
  values[std::string(names::kFlops)] = flops_per_token_ * double(tokens);
  values[std::string(names::kTokensPerSecond)] = tokens_per_s;
  values[std::string(names::kWallSeconds)] = train_seconds();
  for (const auto& [k, v] : scale_rms()) values[k] = v;
  log_ << "step " << step << "/" << config_.steps << " loss " << loss << " lr " << lr << " tok/s " << tokens_per_s
       << "\n";
  last_log_ = {now, tokens};
}

void Trainer::evaluate_due(std::int64_t step, std::map<std::string, double>& values) {
  const std::int64_t T = config_.model.seq_len;
  const bool last = step == config_.steps;
  if (!is_rank0()) return;
  if (val_ && ((config_.eval_every > 0 && step % config_.eval_every == 0) || last)) {
    values[std::string(metric_names::kValLoss)] = evaluate();
  }
  if (config_.sharpness_every > 0 && (step % config_.sharpness_every == 0 || last)) {
    // A fixed batch, so that the values of one run are comparable across steps.
    at::Tensor batch =
        val_ ? eval_set_.narrow(0, 0, std::min(eval_micro_, eval_set_.size(0)))
             : sequential_windows(*train_, 0, eval_micro_).to(device_);
    values[std::string(metric_names::kSharpness)] = estimate_sharpness(
        *model_, batch.narrow(1, 0, T), batch.narrow(1, 1, T), 5, config_.seed + static_cast<std::uint64_t>(step));
  }
}

std::optional<int> Trainer::checkpoint_or_stop(std::int64_t step) {
  const bool last = step == config_.steps;
  // With several ranks, a stop request counts once any rank has seen it in the step: all stop after the same one.
  const bool requested = collectives_ ? stop_agreed_ : (options_.stop != nullptr && options_.stop->load());
  const bool stop = requested || (options_.stop_after_step > 0 && step == options_.stop_after_step);
  const bool periodic = (config_.ckpt_every > 0 && step % config_.ckpt_every == 0) || is_branch_point(step);
  if (!options_.ckpt_dir.empty() && is_rank0() && (periodic || (stop && !last))) checkpoint(step);
  if (options_.crash_after_step > 0 && step == options_.crash_after_step) return exit_codes::kCrashed;
  if (stop && !last) {
    log_ << "stopped at step " << step << "\n";
    metrics_.event({{"event", "stopped"}, {"step", step}});
    return exit_codes::kStopped;
  }
  return std::nullopt;
}

std::optional<int> Trainer::stop_if_diverged(std::int64_t step, std::map<std::string, double>& values) {
  for (std::string_view loss : metric_names::kLosses) {
    const auto it = values.find(std::string(loss));
    if (it == values.end() || std::isfinite(it->second)) continue;
    const std::string value = number_text(it->second);
    log_ << "diverged at step " << step << ": " << loss << " is " << value << "\n";
    metrics_.event({{"event", "diverged"}, {"step", step}, {"metric", std::string(loss)}, {"value", value}});
    return exit_codes::kDiverged;
  }
  for (auto it = values.begin(); it != values.end();) {
    if (std::isfinite(it->second)) {
      ++it;
      continue;
    }
    log_ << "step " << step << ": " << it->first << " is " << number_text(it->second) << ", not reported\n";
    it = values.erase(it);
  }
  return std::nullopt;
}

bool Trainer::is_branch_point(std::int64_t step) const {
  const auto& points = options_.keep_checkpoints_at;
  return std::find(points.begin(), points.end(), step) != points.end();
}

double Trainer::train_seconds() const {
  return seconds_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
}

int Trainer::run() {
  const std::int64_t steps = config_.steps;
  const std::int64_t start_step = resume();
  const ParamCounts counts = count_params(config_.model, config_.scale);
  flops_per_token_ = flops_per_token(config_.model, config_.scale);
  metrics_.event({{"event", "start"}, {"params", model_->store().numel()}, {"scale_params", counts.scale_vectors},
                  {"step", start_step}, {"steps", steps}});
  if (device_.is_cuda() && config_.dtype == DType::BFloat16) set_cuda_autocast(true);

  run_start_ = std::chrono::steady_clock::now();
  last_log_ = {run_start_, start_step * config_.batch_tokens};
  for (std::int64_t step = start_step + 1; step <= steps; ++step) {
    const double lr_mult = lr_multiplier(config_.schedule, step, steps);
    const StepResult result = train_step(lr_mult);
    std::map<std::string, double> values;
    if (step % config_.log_every == 0 || step == steps) log_train(step, result, lr_mult, values);
    evaluate_due(step, values);
    if (const std::optional<int> exit_code = stop_if_diverged(step, values)) return *exit_code;
    if (!values.empty()) metrics_.metrics(step, step * config_.batch_tokens, values);
    if (const std::optional<int> exit_code = checkpoint_or_stop(step)) return *exit_code;
  }
  // The final state is always saved (export reads it), unless the periodic checkpoint just did.
  if (!options_.ckpt_dir.empty() && is_rank0() && start_step < steps &&
      !(config_.ckpt_every > 0 && steps % config_.ckpt_every == 0)) {
    checkpoint(steps);
  }
  if (collectives_) log_ << "all-reduce wait after backward: " << allreduce_wait_s_ << " s\n";
  metrics_.event({{"event", "done"}, {"step", steps}});
  return exit_codes::kSucceeded;
}

}  // namespace gammalab::trainer

#include "worker/trainer/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "core/file_util.h"
#include "core/shared_root.h"
#include "worker/trainer/checkpoint_checksum.h"
#include "worker/trainer/safetensors.h"

namespace gammalab::trainer {

namespace {

constexpr const char* kMetaKey = "gammalab";

std::string checkpoint_name(std::int64_t step) { return shared_root::checkpoint_file_name(step); }

std::vector<std::pair<std::int64_t, std::filesystem::path>> checkpoints_in(const std::filesystem::path& dir) {
  std::vector<std::pair<std::int64_t, std::filesystem::path>> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (auto step = shared_root::checkpoint_step(e.path().filename().string())) out.emplace_back(*step, e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json meta_to_json(const CheckpointMeta& m) {
  return {{"step", m.step}, {"tokens", m.tokens}, {"data", {{"epoch", m.data.epoch}, {"cursor", m.data.cursor}}},
          {"rng", {{"seed", m.seed}, {"data_epoch", m.data.epoch}}}, {"config", m.config},
          {"train_seconds", m.train_seconds}, {"metric_lines", m.metric_lines}};
}

CheckpointMeta meta_from(const SafeTensors& st) {
  auto it = st.metadata.find(kMetaKey);
  if (it == st.metadata.end()) throw std::runtime_error("not a gammalab checkpoint");
  const auto j = nlohmann::json::parse(it->second);
  CheckpointMeta m;
  m.step = j.at("step").get<std::int64_t>();
  m.tokens = j.at("tokens").get<std::int64_t>();
  m.data.epoch = j.at("data").at("epoch").get<std::int64_t>();
  m.data.cursor = j.at("data").at("cursor").get<std::int64_t>();
  m.seed = j.at("rng").at("seed").get<std::uint64_t>();
  m.config = j.at("config");
  m.train_seconds = j.value("train_seconds", 0.0);  // (absent from checkpoints older than the field: 0)
  if (j.contains("metric_lines")) m.metric_lines = j.at("metric_lines").get<std::vector<std::string>>();
  return m;
}

void remove_checkpoint(const std::filesystem::path& file) {
  std::filesystem::remove(file);
  std::filesystem::remove(checksum_path(file));
}

// Reads, verifies and decodes a checkpoint; any failure is CheckpointDamaged with the file and the reason.
std::pair<SafeTensors, CheckpointMeta> read_verified(const std::filesystem::path& file, std::ostream* log) {
  try {
    CheckedBytes checked = read_checked_file(file);
    if (!checked.verified && log != nullptr) {
      *log << "warning: checkpoint " << file.string() << " has no checksum (written before checksums were stored): "
           << "loading it unverified\n";
    }
    SafeTensors st = decode_safetensors(checked.bytes);
    CheckpointMeta meta = meta_from(st);
    return {std::move(st), std::move(meta)};
  } catch (const std::exception& e) {
    throw CheckpointDamaged("checkpoint " + file.string() + ": " + e.what());
  }
}

}  // namespace

std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep) {
  std::filesystem::create_directories(dir);
  SafeTensors st;
  for (const auto& p : model.store().params()) st.tensors.emplace_back("model/" + p.name, p.tensor);
  if (optimizer != nullptr) {
    for (const auto& [name, t] : optimizer->state()) st.tensors.emplace_back("optim/" + name, t);
    nlohmann::json j = meta_to_json(meta);
    j["optimizer_steps"] = optimizer->steps_taken();
    st.metadata[kMetaKey] = j.dump();
  } else {
    st.metadata[kMetaKey] = meta_to_json(meta).dump();
  }
  const auto file = dir / checkpoint_name(meta.step);
  write_checked_file(file, encode_safetensors(st));
  write_file_atomic(dir / "latest", file.filename().string() + "\n");
  // Checkpoints above this step belong to a run this one did not resume from (they failed verification): if
  // they stayed, they would count among the kept ones and push out the intact checkpoints below them.
  auto all = checkpoints_in(dir);
  while (!all.empty() && all.back().first > meta.step) {
    remove_checkpoint(all.back().second);
    all.pop_back();
  }
  // At least two, so that a newest checkpoint found damaged on resume has an intact one before it.
  const std::size_t kept = static_cast<std::size_t>(std::max(keep, 2));
  for (std::size_t i = 0; i + kept < all.size(); ++i) remove_checkpoint(all[i].second);
  return file;
}

std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir) {
  const auto pointer = dir / "latest";
  if (std::filesystem::exists(pointer)) {
    std::string name = read_file(pointer);
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    if (std::filesystem::exists(dir / name)) return dir / name;
  }
  auto all = checkpoints_in(dir);
  if (all.empty()) return std::nullopt;
  return all.back().second;
}

std::vector<std::filesystem::path> checkpoints_newest_first(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  if (auto named = latest_checkpoint(dir)) out.push_back(*named);
  auto all = checkpoints_in(dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (out.empty() || it->second != out.front()) out.push_back(it->second);
  }
  return out;
}

CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file) {
  return read_verified(file, nullptr).second;
}

CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer, std::ostream* log) {
  auto [st, meta] = read_verified(file, log);
  try {
    // Everything is checked before anything is copied, so that a rejected file leaves the model and the
    // optimizer as they were and an older checkpoint (or a fresh start) can follow.
    std::vector<std::pair<const at::Tensor*, at::Tensor*>> copies;
    for (auto& p : model.store().params()) {
      const at::Tensor* t = st.find("model/" + p.name);
      if (t == nullptr) throw std::runtime_error("lacks parameter " + p.name + " (different model or variant?)");
      if (!t->sizes().equals(p.tensor.sizes())) throw std::runtime_error("parameter " + p.name + " has the wrong shape");
      copies.emplace_back(t, &p.tensor);
    }
    std::map<std::string, at::Tensor> state;
    std::int64_t optimizer_steps = meta.step;
    if (optimizer != nullptr) {
      for (const auto& [name, t] : st.tensors) {
        if (name.starts_with("optim/")) state[name.substr(6)] = t;
      }
      optimizer->check_state(state);
      optimizer_steps = nlohmann::json::parse(st.metadata.at(kMetaKey)).value("optimizer_steps", meta.step);
    }
    at::NoGradGuard no_grad;
    for (auto& [from, to] : copies) to->copy_(*from);
    if (optimizer != nullptr) optimizer->load_state(state, optimizer_steps);
    return meta;
  } catch (const std::exception& e) {
    // An intact file that does not fit this model is a configuration error, not damage: no fallback.
    throw std::runtime_error("checkpoint " + file.string() + ": " + e.what());
  }
}

std::optional<LoadedCheckpoint> load_newest_intact_checkpoint(const std::filesystem::path& dir, Model& model,
                                                              Optimizer* optimizer, std::ostream& log) {
  const auto candidates = checkpoints_newest_first(dir);
  for (const auto& file : candidates) {
    try {
      CheckpointMeta meta = load_checkpoint(file, model, optimizer, &log);
      return LoadedCheckpoint{file, std::move(meta)};
    } catch (const CheckpointDamaged& e) {
      log << "rejected " << e.what() << "; trying the one before it\n";
    }
  }
  if (!candidates.empty()) log << "no intact checkpoint in " << dir.string() << ": starting from step 0\n";
  return std::nullopt;
}

}  // namespace gammalab::trainer

#include "worker/trainer/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "core/shared_root.h"
#include "core/utf8_text.h"
#include "worker/trainer/checkpoint_checksum.h"
#include "worker/trainer/safetensors.h"
#include "worker/trainer/safetensors_header.h"

namespace gammalab::trainer {

namespace {

constexpr const char* kMetaKey = "gammalab";

std::string checkpoint_name(std::int64_t step) { return shared_root::checkpoint_file_name(step); }

constexpr const char* kLatest = "latest";
// More entries than any checkpoint directory holds (the trainer keeps its newest few).
constexpr std::size_t kMaxCheckpointScan = 100000;

// The checkpoints' file names in dir, lowest step first (links included: opening one refuses it by name).
std::vector<std::pair<std::int64_t, std::string>> checkpoints_in(const shared_root::Dir& dir) {
  std::vector<std::pair<std::int64_t, std::string>> out;
  for (const shared_root::DirEntry& e : dir.list(kMaxCheckpointScan)) {
    if (auto step = shared_root::checkpoint_step(e.name)) out.emplace_back(*step, e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The checkpoint `latest` names, if it names one as a plain file name (see checkpoint.h); what is wrong with
// it otherwise is reported on `log`.
std::optional<std::string> latest_name(const shared_root::Dir& dir, std::ostream* log) {
  std::optional<std::string> text;
  try {
    text = dir.read(kLatest, kMaxLatestBytes);
  } catch (const shared_root::Refused& e) {
    if (log != nullptr) *log << "ignored " << e.what() << "\n";
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  std::string name = std::move(*text);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  if (!shared_root::checkpoint_step(name)) {
    if (log != nullptr) {
      *log << "ignored " << (dir.path() / kLatest).string() << ": '" << utf8_without_controls(utf8_head(name, 64))
           << "' is not the file name of a checkpoint in its directory\n";
    }
    return std::nullopt;
  }
  return name;
}

nlohmann::json meta_to_json(const CheckpointMeta& m) {
  nlohmann::json j = {{"step", m.step}, {"tokens", m.tokens}, {"data", {{"epoch", m.data.epoch}, {"cursor", m.data.cursor}}},
          {"rng", {{"seed", m.seed}, {"data_epoch", m.data.epoch}}}, {"config", m.config},
          {"train_seconds", m.train_seconds}, {"metric_lines", m.metric_lines}};
  if (!m.job_uid.empty()) j["job_uid"] = m.job_uid;
  if (m.lines_stored_before) j["lines_stored_before"] = *m.lines_stored_before;
  return j;
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
  // (Both absent from checkpoints older than them.)
  if (j.contains("job_uid")) m.job_uid = j.at("job_uid").get<std::string>();
  if (j.contains("lines_stored_before")) m.lines_stored_before = j.at("lines_stored_before").get<std::int64_t>();
  return m;
}

void remove_checkpoint(const shared_root::Dir& dir, const std::string& name) {
  dir.remove(name);
  dir.remove(checksum_name(name));
}

// Reads, verifies and decodes a checkpoint of at most `limit` bytes; any failure is CheckpointDamaged with the
// file and the reason.
std::pair<SafeTensors, CheckpointMeta> read_verified(const shared_root::Dir& dir, const std::string& name,
                                                     std::uint64_t limit, std::ostream* log) {
  const std::filesystem::path file = dir.path() / name;
  try {
    CheckedBytes checked = read_checked_file(dir, name, static_cast<std::size_t>(limit));
    if (!checked.verified && log != nullptr) {
      *log << "warning: checkpoint " << file.string() << " has no checksum (written before checksums were stored): "
           << "loading it unverified\n";
    }
    SafeTensors st = decode_safetensors(checked.bytes);
    CheckpointMeta meta = meta_from(st);
    return {std::move(st), std::move(meta)};
  } catch (const shared_root::Refused& e) {
    throw CheckpointDamaged(std::string("checkpoint ") + e.what());  // names the file (or its .sum)
  } catch (const std::exception& e) {
    throw CheckpointDamaged("checkpoint " + file.string() + ": " + e.what());
  }
}

}  // namespace

std::uint64_t checkpoint_byte_limit(const Model& model) {
  std::uint64_t elements = 0;
  for (const auto& p : model.store().params()) elements += static_cast<std::uint64_t>(p.tensor.numel());
  return 8 + kMaxSafetensorsHeaderBytes + elements * 3 * 8;
}

shared_root::Dir open_checkpoint_dir(const std::filesystem::path& dir, const std::filesystem::path& shared_root) {
  if (shared_root.empty()) return shared_root::Dir::open(dir, true);
  const auto rel = shared_root::relative_below(shared_root, dir);
  if (!rel) {
    throw std::invalid_argument("checkpoint directory " + dir.string() + " is not below the shared root " +
                                shared_root.string());
  }
  return shared_root::Dir::open(shared_root).make_dir(*rel);
}

std::filesystem::path save_checkpoint(const shared_root::Dir& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep, const std::vector<std::int64_t>& pinned) {
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
  const std::string name = checkpoint_name(meta.step);
  write_checked_file(dir, name, encode_safetensors(st));
  dir.write_atomic(kLatest, name + "\n");
  // Checkpoints above this step belong to a run this one did not resume from (they failed verification): if
  // they stayed, they would count among the kept ones and push out the intact checkpoints below them.
  auto all = checkpoints_in(dir);
  while (!all.empty() && all.back().first > meta.step) {
    remove_checkpoint(dir, all.back().second);
    all.pop_back();
  }
  // At least two, so that a newest checkpoint found damaged on resume has an intact one before it.
  std::erase_if(all, [&](const auto& checkpoint) {
    return std::find(pinned.begin(), pinned.end(), checkpoint.first) != pinned.end();
  });
  const std::size_t kept = static_cast<std::size_t>(std::max(keep, 2));
  for (std::size_t i = 0; i + kept < all.size(); ++i) remove_checkpoint(dir, all[i].second);
  return dir.path() / name;
}

std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep) {
  return save_checkpoint(shared_root::Dir::open(dir, true), model, optimizer, meta, keep);
}

std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  const std::vector<std::string> names = checkpoints_newest_first(shared_root::Dir::open(dir));
  if (names.empty()) return std::nullopt;
  return dir / names.front();
}

std::vector<std::string> checkpoints_newest_first(const shared_root::Dir& dir, std::ostream* log) {
  const auto all = checkpoints_in(dir);
  std::vector<std::string> out;
  if (const auto named = latest_name(dir, log)) {
    // Only a checkpoint that is there: `latest` may be older than a crash that removed its file.
    for (const auto& [step, name] : all) {
      if (name == *named) out.push_back(name);
    }
  }
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (out.empty() || it->second != out.front()) out.push_back(it->second);
  }
  return out;
}

CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file) {
  return read_verified(shared_root::Dir::open(file.parent_path()), file.filename().string(), kMaxCheckpointBytes,
                       nullptr)
      .second;
}

CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer, std::ostream* log) {
  return load_checkpoint(shared_root::Dir::open(file.parent_path()), file.filename().string(), model, optimizer, log);
}

CheckpointMeta load_checkpoint(const shared_root::Dir& dir, const std::string& name, Model& model,
                               Optimizer* optimizer, std::ostream* log, const ResumeCheck& check) {
  const std::filesystem::path file = dir.path() / name;
  auto [st, meta] = read_verified(dir, name, checkpoint_byte_limit(model), log);
  if (check) {
    if (std::optional<ResumeRefusal> refusal = check(meta)) throw CheckpointRefused(std::move(*refusal));
  }
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

std::optional<LoadedCheckpoint> load_newest_intact_checkpoint(const shared_root::Dir& dir, Model& model,
                                                              Optimizer* optimizer, std::ostream& log,
                                                              const ResumeCheck& check) {
  const std::vector<std::string> candidates = checkpoints_newest_first(dir, &log);
  bool refused_any = false;
  for (const std::string& name : candidates) {
    try {
      CheckpointMeta meta = load_checkpoint(dir, name, model, optimizer, &log, check);
      return LoadedCheckpoint{dir.path() / name, std::move(meta)};
    } catch (const CheckpointDamaged& e) {
      log << "rejected " << e.what() << "; trying the one before it\n";
    } catch (const CheckpointRefused& e) {
      if (e.refusal.kind == ResumeRefusal::Kind::kError) {
        throw std::runtime_error("checkpoint " + (dir.path() / name).string() + ": " + e.refusal.why);
      }
      refused_any = true;
      log << "refused checkpoint " << (dir.path() / name).string() << ": " << e.refusal.why;
      if (e.refusal.kind == ResumeRefusal::Kind::kForeign) {
        remove_checkpoint(dir, name);
        log << " (removed)";
      }
      log << "; trying the one before it\n";
    }
  }
  if (!candidates.empty()) {
    log << "no " << (refused_any ? "usable" : "intact") << " checkpoint in " << dir.path().string()
        << ": starting from step 0\n";
  }
  return std::nullopt;
}

}  // namespace gammalab::trainer

#include "worker/trainer/checkpoint.h"

#include <cstdio>
#include <regex>
#include <stdexcept>

#include "core/file_util.h"
#include "worker/trainer/safetensors.h"

namespace gammalab::trainer {

namespace {

constexpr const char* kMetaKey = "gammalab";

std::string checkpoint_name(std::int64_t step) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "ckpt_%09lld.safetensors", static_cast<long long>(step));
  return buf;
}

std::vector<std::pair<std::int64_t, std::filesystem::path>> checkpoints_in(const std::filesystem::path& dir) {
  static const std::regex name("ckpt_([0-9]+)\\.safetensors");
  std::vector<std::pair<std::int64_t, std::filesystem::path>> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string f = e.path().filename().string();
    if (std::regex_match(f, m, name)) out.emplace_back(std::stoll(m[1].str()), e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json meta_to_json(const CheckpointMeta& m) {
  return {{"step", m.step}, {"tokens", m.tokens}, {"data", {{"epoch", m.data.epoch}, {"cursor", m.data.cursor}}},
          {"rng", {{"seed", m.seed}, {"data_epoch", m.data.epoch}}}, {"config", m.config},
          {"metric_lines", m.metric_lines}};
}

CheckpointMeta meta_from(const SafeTensors& st, const std::filesystem::path& file) {
  auto it = st.metadata.find(kMetaKey);
  if (it == st.metadata.end()) throw std::runtime_error(file.string() + ": not a gammalab checkpoint");
  const auto j = nlohmann::json::parse(it->second);
  CheckpointMeta m;
  m.step = j.at("step").get<std::int64_t>();
  m.tokens = j.at("tokens").get<std::int64_t>();
  m.data.epoch = j.at("data").at("epoch").get<std::int64_t>();
  m.data.cursor = j.at("data").at("cursor").get<std::int64_t>();
  m.seed = j.at("rng").at("seed").get<std::uint64_t>();
  m.config = j.at("config");
  if (j.contains("metric_lines")) m.metric_lines = j.at("metric_lines").get<std::vector<std::string>>();
  return m;
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
  write_safetensors(file, st);
  write_file_atomic(dir / "latest", file.filename().string() + "\n");
  auto all = checkpoints_in(dir);
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < all.size(); ++i) std::filesystem::remove(all[i].second);
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

CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file) { return meta_from(read_safetensors(file), file); }

CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer) {
  const SafeTensors st = read_safetensors(file);
  CheckpointMeta meta = meta_from(st, file);
  at::NoGradGuard no_grad;
  for (auto& p : model.store().params()) {
    const at::Tensor* t = st.find("model/" + p.name);
    if (t == nullptr) throw std::runtime_error(file.string() + " lacks parameter " + p.name + " (different model or variant?)");
    if (!t->sizes().equals(p.tensor.sizes())) throw std::runtime_error(file.string() + ": parameter " + p.name + " has the wrong shape");
    p.tensor.copy_(*t);
  }
  if (optimizer != nullptr) {
    std::map<std::string, at::Tensor> state;
    for (const auto& [name, t] : st.tensors) {
      if (name.starts_with("optim/")) state[name.substr(6)] = t;
    }
    const auto j = nlohmann::json::parse(st.metadata.at(kMetaKey));
    optimizer->load_state(state, j.value("optimizer_steps", meta.step));
  }
  return meta;
}

}  // namespace gammalab::trainer

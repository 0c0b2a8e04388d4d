#include "core/sweep.h"

#include <yaml-cpp/yaml.h>

#include "core/config_error.h"
#include "core/model_preset.h"
#include "core/yaml_json.h"

namespace gammalab {

std::string SweepDiagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (!path.empty()) out += path + ": ";
  return out + message;
}

namespace {
std::string join_messages(const std::vector<SweepDiagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += (out.empty() ? "" : "\n") + d.to_string();
  return out;
}

// Sets a dot path (a.b.c) inside a JSON object, creating objects on the way.
void set_path(nlohmann::json& root, const std::string& path, const nlohmann::json& value) {
  nlohmann::json* node = &root;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    start = dot + 1;
  }
}

JobConfig resolve(nlohmann::json job, const SweepOptions& options) {
  ModelSpec model;
  if (job.contains("model") && job["model"].contains("preset")) {
    model = load_model_preset(job["model"]["preset"].get<std::string>(), options.preset_dir);
  }
  nlohmann::json model_json = to_json(model);
  if (job.contains("model")) model_json.merge_patch(job["model"]);
  job["model"] = model_json;
  ScaleSpec scale;
  if (job.contains("scale") && job["scale"].contains("variant")) {
    scale = variant_preset(job["scale"]["variant"].get<std::string>());
  }
  nlohmann::json scale_json = to_json(scale);
  if (job.contains("scale")) scale_json.merge_patch(job["scale"]);
  job["scale"] = scale_json;
  JobConfig config = job_config_from_json(job);
  validate(config);
  return config;
}

}  // namespace

SweepError::SweepError(std::vector<SweepDiagnostic> diagnostics)
    : std::runtime_error(join_messages(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::string config_hash(const JobConfig& config) {
  const std::string canonical = to_json(config).dump();
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : canonical) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Sweep expand_sweep(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options) {
  auto fail = [&](const std::string& path, const std::string& message) -> SweepError {
    return SweepError({SweepDiagnostic{file_name, 0, 0, path, message}});
  };
  nlohmann::json doc;
  try {
    doc = yaml_to_json(YAML::Load(yaml_text));
  } catch (const YAML::Exception& e) {
    throw SweepError({SweepDiagnostic{file_name, e.mark.line + 1, e.mark.column + 1, "", e.msg}});
  }
  if (!doc.is_object()) throw fail("", "a sweep must be a mapping");
  Sweep sweep;
  sweep.name = doc.value("name", std::string("sweep"));
  sweep.priority = doc.value("priority", 0);
  sweep.max_attempts = doc.value("max_attempts", 3);
  nlohmann::json base = doc.value("base", nlohmann::json::object());
  std::vector<nlohmann::json> points = {nlohmann::json::object()};
  if (doc.contains("axes") && doc["axes"].contains("grid")) {
    for (const auto& [path, values] : doc["axes"]["grid"].items()) {
      std::vector<nlohmann::json> next;
      for (const auto& p : points) {
        for (const auto& v : values) {
          nlohmann::json q = p;
          q[path] = v;
          next.push_back(q);
        }
      }
      points = std::move(next);
    }
  }
  std::vector<std::uint64_t> seeds = {0};
  if (doc.contains("seeds")) seeds = doc["seeds"].get<std::vector<std::uint64_t>>();
  for (const auto& point : points) {
    for (std::uint64_t seed : seeds) {
      nlohmann::json job = base;
      for (const auto& [path, value] : point.items()) set_path(job, path, value);
      job["seed"] = seed;
      SweepJob sj;
      try {
        sj.config = resolve(job, options);
      } catch (const ConfigError& e) {
        throw fail("base." + e.path(), e.what());
      }
      sj.name = sj.config.model.preset + "/" + sj.config.scale.variant + "/" + sj.config.optim.name + "/" +
                sj.config.schedule.kind + "/s" + std::to_string(seed);
      sj.config_hash = config_hash(sj.config);
      sweep.jobs.push_back(std::move(sj));
    }
  }
  if (sweep.jobs.size() > options.max_jobs) throw fail("axes", "expands to more than max_jobs jobs");
  return sweep;
}

}  // namespace gammalab

#include "worker/trainer/describe.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "core/param_count.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/param_groups.h"

namespace gammalab::trainer {

namespace {

std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

}  // namespace

std::string describe_model(const JobConfig& c) {
  const ParamCounts counts = count_params(c.model, c.scale);
  std::ostringstream out;
  out << "model " << (c.model.preset.empty() ? "(custom)" : c.model.preset) << ", variant " << c.scale.variant
      << " (sharing " << enum_name(c.scale.sharing) << ", placement " << enum_name(c.scale.placement) << ", param "
      << enum_name(c.scale.param) << ", decay " << enum_name(c.scale.decay);
  // The paper's variants leave the Pre-Norm as it is; a 2026 arm's is named, with what it adds.
  if (c.scale.norm_kind() != NormKind::Rms) out << ", norm " << enum_name(c.scale.norm_kind());
  out << ")\n";
  const std::string norm_params =
      counts.norm_params > 0 ? line("%-28s %16lld  (the Pre-Norms' own: not scale vectors)\n", "norm parameters",
                                    static_cast<long long>(counts.norm_params))
                             : "";
  const bool small = counts.total <= 200'000'000;
  if (!small) {
    // Large models are described from the analytic counts only (no need to allocate them).
    out << line("%-28s %16lld\n", "total", static_cast<long long>(counts.total));
    out << line("%-28s %16lld\n", "activated", static_cast<long long>(counts.activated));
    out << line("%-28s %16lld\n", "embedding", static_cast<long long>(counts.embedding));
    out << line("%-28s %16lld  (input-norm %lld, output-norm %lld)\n", "scale vectors",
                static_cast<long long>(counts.scale_vectors), static_cast<long long>(counts.input_norm),
                static_cast<long long>(counts.output_norm));
    out << line("%-28s %16.3e\n", "scale-vector fraction", counts.scale_fraction()) << norm_params;
    return out.str();
  }
  Model model(c.model, c.scale);
  const auto groups = build_param_groups(model.store(), c);
  std::map<std::string, std::int64_t> per_kind;
  for (const auto& p : model.store().params()) per_kind[kind_name(p.kind)] += p.tensor.numel();
  out << line("%-28s %16s\n", "group", "parameters");
  for (const auto& [k, n] : per_kind) out << line("%-28s %16lld\n", k.c_str(), static_cast<long long>(n));
  out << line("%-28s %16lld\n", "total", static_cast<long long>(model.store().numel()));
  out << line("%-28s %16lld\n", "activated", static_cast<long long>(counts.activated));
  out << line("%-28s %16lld  (input-norm %lld, output-norm %lld)\n", "scale vectors",
              static_cast<long long>(counts.scale_vectors), static_cast<long long>(counts.input_norm),
              static_cast<long long>(counts.output_norm));
  out << line("%-28s %16.3e  (%.4f%%)\n", "scale-vector fraction", counts.scale_fraction(), 100 * counts.scale_fraction())
      << norm_params;
  out << "\nscale vectors:\n" << line("%-36s %8s %-12s %-12s %s\n", "name", "size", "role", "param", "weight decay");
  for (const auto& sv : model.store().scales()) {
    const double wd = groups[static_cast<std::size_t>(sv.alpha)].weight_decay;
    const std::string role = std::string(role_name(sv.role)) + "-norm";
    out << line("%-36s %8lld %-12s %-12s %g\n", sv.name.c_str(), static_cast<long long>(sv.size), role.c_str(),
                std::string(enum_name(sv.param)).c_str(), wd);
  }
  return out.str();
}

}  // namespace gammalab::trainer

#include "worker/trainer/optim/param_groups.h"

namespace gammalab::trainer {

std::vector<ParamGroup> build_param_groups(const ParamStore& store, const JobConfig& c) {
  std::vector<ParamGroup> groups;
  const double wd = c.optim.weight_decay;
  for (std::size_t i = 0; i < store.params().size(); ++i) {
    const Param& p = store.params()[i];
    ParamGroup g;
    g.index = static_cast<int>(i);
    if (p.is_scale()) {
      const bool decayed = c.scale.decay == ScaleDecay::All || (c.scale.decay == ScaleDecay::InputOnly && p.role == ScaleRole::Input);
      g.weight_decay = decayed ? wd : 0.0;
    } else if (p.kind == ParamKind::NormParam) {
      g.weight_decay = 0.0;  // scalars and biases of a Pre-Norm, as 1-D parameters usually are
    } else {
      g.weight_decay = wd;
      g.muon = c.optim.name == OptimizerKind::Muon && p.kind == ParamKind::Matrix;
    }
    groups.push_back(g);
  }
  return groups;
}

}  // namespace gammalab::trainer

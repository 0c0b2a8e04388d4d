#pragma once
// Optimizer parameter groups built from the model's tags: which optimizer updates a tensor and its weight
// decay. Scale vectors follow scale.decay (none | all | input_only = IWD, which reads the Input/Output-Norm
// role; under OR/ER it applies to the raw α and β). Every 2-D tensor is decayed; with optim.name == muon the
// hidden matrices (q, k, v, o, gate, up, down, experts) go to Muon, everything else to AdamW.
#include <vector>

#include "core/job_config.h"
#include "worker/trainer/model/param_store.h"

namespace gammalab::trainer {

struct ParamGroup {
  int index = -1;  // into ParamStore::params()
  bool muon = false;
  double weight_decay = 0.0;
};

std::vector<ParamGroup> build_param_groups(const ParamStore& store, const JobConfig& config);

}  // namespace gammalab::trainer

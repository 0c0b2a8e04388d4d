#include "worker/trainer/model/scale_vector.h"

#include <stdexcept>

namespace gammalab::trainer {

ScaleParam scale_param_from(const std::string& name) {
  if (name == "plain") return ScaleParam::Plain;
  if (name == "magdir_orig") return ScaleParam::MagDirOrig;
  if (name == "magdir_exp") return ScaleParam::MagDirExp;
  throw std::invalid_argument("unknown scale parameterisation '" + name + "'");
}

const char* scale_param_name(ScaleParam p) {
  switch (p) {
    case ScaleParam::Plain: return "plain";
    case ScaleParam::MagDirOrig: return "magdir_orig";
    case ScaleParam::MagDirExp: return "magdir_exp";
  }
  return "plain";
}

}  // namespace gammalab::trainer

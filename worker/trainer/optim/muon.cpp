#include "worker/trainer/optim/muon.h"

#include <algorithm>
#include <cmath>

namespace gammalab::trainer {

at::Tensor newton_schulz(const at::Tensor& g, int steps) {
  const double a = 3.4445, b = -4.7750, c = 2.0315;
  at::Tensor x = g.is_cuda() ? g.to(at::kBFloat16) : g.clone();
  const bool tall = x.size(0) > x.size(1);
  if (tall) x = x.t();
  x = x / (x.norm() + 1e-7);
  for (int i = 0; i < steps; ++i) {
    at::Tensor A = at::mm(x, x.t());
    at::Tensor B = at::addmm(A, A, A, /*beta=*/b, /*alpha=*/c);
    x = at::addmm(x, B, x, /*beta=*/a, /*alpha=*/1.0);
  }
  if (tall) x = x.t();
  return x.to(g.scalar_type());
}

void muon_update(at::Tensor& p, const at::Tensor& grad, at::Tensor& buf, double lr, double momentum, double wd,
                 int ns_steps) {
  buf.mul_(momentum).add_(grad);
  at::Tensor g = grad.add(buf, momentum);  // Nesterov
  at::Tensor o = newton_schulz(g, ns_steps);
  const double scale = 0.2 * std::sqrt(double(std::max(p.size(0), p.size(1))));
  if (wd > 0) p.mul_(1.0 - lr * wd);
  p.add_(o, -lr * scale);
}

}  // namespace gammalab::trainer

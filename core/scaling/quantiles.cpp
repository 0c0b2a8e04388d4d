// Normal and Student t quantiles (core/scaling/quantiles.h), from Boost.Math's distributions.
#include "core/scaling/quantiles.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace gammalab {

double normal_quantile(double p) { return boost::math::quantile(boost::math::normal_distribution<double>(), p); }

double student_t_quantile(double p, double df) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), p);
}

}  // namespace gammalab

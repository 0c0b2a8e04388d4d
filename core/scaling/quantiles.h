#pragma once
// Quantiles of the normal and Student t distributions, for intervals that must hold with a handful of seeds
// (core/scaling/bootstrap.h's expansion) and for the profile's cutoff (core/scaling/profile.h).
namespace gammalab {

// Standard normal quantile, p in (0, 1) (Boost.Math).
double normal_quantile(double p);
// Student t quantile with `df` > 0 degrees of freedom, not necessarily whole (Satterthwaite's are not), p in
// (0, 1) (Boost.Math).
double student_t_quantile(double p, double df);

}  // namespace gammalab

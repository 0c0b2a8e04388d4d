#pragma once
// Quantiles of the normal and Student t distributions, for intervals that must hold with a handful of seeds
// (core/scaling/bootstrap.h's expansion) and for the profile's cutoff (core/scaling/profile.h).
namespace gammalab {

// Standard normal quantile, p in (0, 1); bisection on erfc to 1e-12.
double normal_quantile(double p);
// Student t quantile with `df` >= 1 degrees of freedom, p in (0, 1): its CDF through the incomplete beta
// function, inverted by bisection to 1e-12.
double student_t_quantile(double p, int df);

}  // namespace gammalab

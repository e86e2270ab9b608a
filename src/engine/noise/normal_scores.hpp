// The standard normal's CDF and quantile, for the latency state
// (Engine::latency_draw_ps): a message's uniform draw is turned into a
// normal score, mixed with its sender's state, and turned back into a
// uniform. Both are used by every loop and by the critical path, so they
// are plain inline functions of their argument alone (deterministic: the
// same result wherever they are called).
#pragma once

#include <cmath>

namespace cloudnoise {

// Phi(z) = P(Z <= z), through erfc so that the lower tail keeps its
// relative precision (1 + erf would lose it below z ~ -8).
inline double normal_cdf(double z) { return 0.5 * std::erfc(-z * 0.70710678118654752440); }

// Phi^{-1}(p) for p in (0, 1); -inf at 0, +inf at 1, NaN outside [0, 1].
// Acklam's rational approximation (relative error 1.15e-9), refined by one
// Halley step on Phi(x) - p with Phi from erfc: relative error ~1e-15.
inline double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) {
    if (p == 0.0) return -HUGE_VAL;
    if (p == 1.0) return HUGE_VAL;
    return std::nan("");
  }
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01,  -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x;
  if (p < p_low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - p_low) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  // Halley: e = Phi(x) - p, u = e / phi(x); x -= u / (1 + x u / 2). In the
  // upper half Phi(x) - p is taken as (1 - p) - (1 - Phi(x)), 1 - Phi(x)
  // being erfc's own (precise), so p near 1 keeps what precision 1 - p has.
  constexpr double kSqrt2Pi = 2.50662827463100050242;
  const double e = p <= 0.5 ? normal_cdf(x) - p : (1.0 - p) - 0.5 * std::erfc(x * 0.70710678118654752440);
  const double u = e * kSqrt2Pi * std::exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

}  // namespace cloudnoise

// Seeds: the mean and its standard error, Student's t quantile, a seed band (min–max, ± s.e., 95% t), whether
// a difference is resolved, and which runs are seeds of one configuration.

// Mean and standard error of finite numbers (s.e. NaN for fewer than 2).
export function meanSe(values) {
  const v = values.filter(Number.isFinite);
  const n = v.length;
  if (!n) return { n: 0, mean: NaN, se: NaN };
  const mean = v.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, se: NaN };
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return { n, mean, se: sd / Math.sqrt(n) };
}

// Seeds of one configuration as one curve: per x (the union of the runs' x), the mean, min and max of the
// values the runs have at exactly that x. tables: [[xs, ys], ...]. Returns [xs, mean, lo, hi].
// Student's t quantile at 0.975 for `df` degrees of freedom: the table to 30, then 1.96 + 2.37/df + 2.8/df²
// (within 0.002 of the exact value beyond).
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
  2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042];
export function tQuantile975(df) {
  if (!(df >= 1)) return NaN;
  return df <= T975.length ? T975[Math.floor(df) - 1] : 1.96 + 2.37 / df + 2.8 / (df * df);
}

// How a gap reads in a table: 'better' or 'worse' only when its 95% t interval (mean ± t(0.975, df) s.e.) excludes
// 0, 'unresolved' otherwise, so that a colour means a difference the seeds resolve, not merely its sign (a gap of
// +0.0019 ± 0.0018 over 3 seeds is no worse than the baseline). '' without a finite mean, s.e. and df ≥ 1.
export function gapClass(mean, se, df) {
  if (!Number.isFinite(mean) || !Number.isFinite(se) || !(df >= 1)) return '';
  return Math.abs(mean) > tQuantile975(df) * se ? (mean < 0 ? 'better' : 'worse') : 'unresolved';
}

// The seeds' curves at each x: their mean, and a band of the kind asked: 'minmax' (lowest to highest seed),
// 'se' (mean ± one standard error) or 'ci95' (mean ± t(0.975, n−1) standard errors, Student's interval for the
// mean of n seeds). Where only one seed has a point, the band closes on it. With two seeds a 95% t interval has
// one degree of freedom and spans ±12.7 standard errors, which says nothing a reader can use: 'ci95' draws their
// min–max there instead (TOO_FEW_FOR_T), and the legend says so.
export const TOO_FEW_FOR_T = 3;
export function seedBand(tables, kind = 'minmax') {
  const at = new Map();
  for (const [xs, ys] of tables) {
    for (let i = 0; i < xs.length; i++) {
      const y = ys[i];
      if (y === null || !Number.isFinite(y)) continue;
      if (!at.has(xs[i])) at.set(xs[i], []);
      at.get(xs[i]).push(y);
    }
  }
  const xs = [...at.keys()].sort((a, b) => a - b);
  const mean = [];
  const lo = [];
  const hi = [];
  for (const x of xs) {
    const v = at.get(x);
    const m = v.reduce((a, b) => a + b, 0) / v.length;
    mean.push(m);
    if (kind === 'minmax' || v.length < 2 || (kind === 'ci95' && v.length < TOO_FEW_FOR_T)) {
      lo.push(Math.min(...v));
      hi.push(Math.max(...v));
      continue;
    }
    const se = Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1) / v.length);
    const half = (kind === 'ci95' ? tQuantile975(v.length - 1) : 1) * se;
    lo.push(m - half);
    hi.push(m + half);
  }
  return [xs, mean, lo, hi];
}

// The configuration of a job without its seed: jobs with the same key are seeds of one run.
export function seedKey(job) {
  try {
    const config = JSON.parse(job.config_json || '{}');
    delete config.seed;
    return JSON.stringify(config);
  } catch {
    return `job ${job.id}`;
  }
}

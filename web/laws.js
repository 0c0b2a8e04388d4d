// Scaling laws on the page: the runs' points of a scaling plot, a stored law's curve and its interval band along N
// or C, the fit reports of an answer, and why a sweep has no fit yet.
import { FIT_STATE, num, studyRuns } from './series.js';

// Points of the scaling plot: runs with a size and a finite positive loss, by group. `lossKey` is
// "final_val_loss", "final_train_loss" or "loss" (val if present, else train).
export function scalingPoints(runs, groupKey, lossKey, xKey = 'params', includeUnfinished = false) {
  const groups = new Map();
  for (const r of runs) {
    if (!includeUnfinished && r.state !== FIT_STATE) continue;
    const x = r[xKey];
    const y = r[lossKey];
    if (!(x > 0) || !(typeof y === 'number' && y > 0)) continue;
    const g = r[groupKey] ?? 'unknown';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push({ x, y, run: r });
  }
  return groups;
}

// A parameter of a stored fit report's group ({value, lo, hi, ...}, or a bare number) as a number.
const parameter = (parameters, name) => num(parameters?.[name]?.value ?? parameters?.[name]);

// The Chinchilla law of a fit report's group, L(N, D) = E + A/N^alpha + B/D^beta, or null without finite parameters.
export function chinchillaLoss(parameters) {
  const [E, A, alpha, B, beta] = ['E', 'A', 'alpha', 'B', 'beta'].map((name) => parameter(parameters, name));
  if (![E, A, alpha, B, beta].every(Number.isFinite)) return null;
  return (N, D) => E + A * N ** -alpha + B * D ** -beta;
}

// Fitted loss at x under a law of the fit report (core/scaling/fit_report.h): n: E + A·N^-alpha over params;
// c: E + A·C^-alpha over compute; chinchilla: E + A/N^alpha + B/D^beta over params with D = ratio·N.
// Returns null where the law does not apply to this x axis (or has no finite parameters).
export function fitCurve(law, parameters, xKey, tokensPerParam) {
  const E = parameter(parameters, 'E');
  const A = parameter(parameters, 'A');
  const alpha = parameter(parameters, 'alpha');
  if (![E, A, alpha].every(Number.isFinite)) return null;
  if (law === 'n' && xKey === 'params') return (x) => E + A * x ** -alpha;
  if (law === 'c' && xKey === 'compute') return (x) => E + A * x ** -alpha;
  if (law === 'chinchilla' && xKey === 'params') {
    const L = chinchillaLoss(parameters);
    if (!L || !Number.isFinite(tokensPerParam)) return null;
    return (x) => L(x, tokensPerParam * x);
  }
  return null;
}

// n log-spaced values from lo to hi (inclusive).
export function logSpace(lo, hi, n = 48) {
  if (!(lo > 0 && hi > 0) || n < 2) return [];
  const a = Math.log10(lo);
  const b = Math.log10(hi);
  return Array.from({ length: n }, (_, i) => 10 ** (a + ((b - a) * i) / (n - 1)));
}

// The fit reports in a /api/sweeps/{id}/fits answer, newest first, one per law. Accepts a report itself
// (core/scaling/fit_report.h JSON), a list of them, or proto Fit messages ({law, version, report_json}) bare, in a
// list, or under "fits" (GetFitsResponse), so the plot works with whichever shape the endpoint settles on.
export function fitReports(body) {
  if (!body || typeof body !== 'object') return [];
  const list = Array.isArray(body) ? body : Array.isArray(body.fits) ? body.fits : [body];
  const out = [];
  const laws = new Set();
  for (const item of list) {
    let report = item;
    try {
      // (version: the coordinator's fit version, which the study card names as its intervals' source.)
      if (typeof item?.report_json === 'string') report = { law: item.law, version: item.version, ...JSON.parse(item.report_json) };
    } catch {
      continue;
    }
    if (!report || !Array.isArray(report.groups) || laws.has(report.law)) continue;
    laws.add(report.law);
    out.push(report);
  }
  return out;
}


// Why a sweep has no stored fit yet, in words, or '' when it has what a fit needs. The coordinator fits once each
// variant has succeeded runs at as many model sizes as the law has free parameters (3: E, A and alpha; law n,
// server/refitter.cpp, core/scaling/fit_runs.h's not_enough_sizes); the fewest sizes any variant has decides.
export const FIT_MIN_SIZES = 3;
export function missingFitReason(runs) {
  const sizes = new Map();  // variant -> distinct N of its succeeded main-stage runs
  for (const r of studyRuns(runs)) {
    if (r.state !== FIT_STATE || !(r.params > 0)) continue;
    if (!sizes.has(r.variant)) sizes.set(r.variant, new Set());
    sizes.get(r.variant).add(r.params);
  }
  if (!sizes.size) return 'No scaling-law fit yet: no run has finished.';
  const fewest = Math.min(...[...sizes.values()].map((set) => set.size));
  if (fewest >= FIT_MIN_SIZES) return '';
  return `No scaling-law fit: a law has ${FIT_MIN_SIZES} free parameters (E, A, alpha) and needs succeeded runs at `
    + `${FIT_MIN_SIZES} or more model sizes per variant; this sweep has ${fewest} size${fewest === 1 ? '' : 's'} where it has fewest. `
    + 'Add sizes to the sweep for a law and its multiplier; the study table above still compares the sizes it has.';
}

// The pointwise bootstrap band a fit report stores per group (core/scaling/fit_report.h: {axis, points:
// [[x, lo, hi], ...]}, the refitted laws' loss interval at each x), read at each x of `xs`: interpolated linearly
// in log x and log loss between its points, null outside them. null when the group has none on this axis.
export function storedBand(group, xKey, xs) {
  const band = group?.band;
  if (!band || band.axis !== xKey || !Array.isArray(band.points) || band.points.length < 2) return null;
  const pts = band.points.map((p) => p.map(num)).filter((p) => p.every((v) => Number.isFinite(v) && v > 0));
  if (pts.length < 2) return null;
  const at = (x, k) => {
    if (!(x >= pts[0][0] && x <= pts[pts.length - 1][0])) return null;
    let i = 1;
    while (i < pts.length - 1 && pts[i][0] < x) i++;
    const [x0, x1] = [Math.log(pts[i - 1][0]), Math.log(pts[i][0])];
    const t = x1 > x0 ? (Math.log(x) - x0) / (x1 - x0) : 0;
    return Math.exp(Math.log(pts[i - 1][k]) + t * (Math.log(pts[i][k]) - Math.log(pts[i - 1][k])));
  };
  const lo = xs.map((x) => at(x, 1));
  const hi = xs.map((x) => at(x, 2));
  return lo.some((y) => y !== null) ? { lo, hi, pointwise: true } : null;
}

// The band drawn around a fitted law at each x of `xs`: the lowest and highest value of the law over every
// corner of its parameters' bootstrap intervals ([lo, hi] per parameter of the fit report). The stored report
// keeps the intervals, not the bootstrap samples, so this is not the pointwise percentile band of the refits:
// it ignores how the parameters vary together and is wider (conservative). null when a parameter the curve
// uses has no bounded interval (no bootstrap, or "unbounded"), or the law does not apply to this axis.
export function fitBand(law, parameters, xKey, tokensPerParam, xs) {
  const names = { n: ['E', 'A', 'alpha'], c: ['E', 'A', 'alpha'], chinchilla: ['E', 'A', 'alpha', 'B', 'beta'] }[law];
  if (!names || !fitCurve(law, parameters, xKey, tokensPerParam)) return null;
  const ends = [];
  for (const name of names) {
    const e = parameters?.[name];
    const lo = num(e?.lo);
    const hi = num(e?.hi);
    if (!Number.isFinite(lo) || !Number.isFinite(hi) || e?.bounded === false) return null;
    ends.push([Math.min(lo, hi), Math.max(lo, hi)]);
  }
  const curves = [];
  for (let corner = 0; corner < 1 << names.length; corner++) {
    const p = Object.fromEntries(names.map((name, k) => [name, ends[k][(corner >> k) & 1]]));
    curves.push(fitCurve(law, p, xKey, tokensPerParam));
  }
  const lo = [];
  const hi = [];
  for (const x of xs) {
    const ys = curves.map((f) => f(x)).filter((y) => Number.isFinite(y) && y > 0);
    lo.push(ys.length ? Math.min(...ys) : null);
    hi.push(ys.length ? Math.max(...ys) : null);
  }
  return lo.some((y) => y !== null) ? { lo, hi } : null;
}

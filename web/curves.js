// The curves of a metric chart: each run's points (or each configuration's mean over seeds, with its band) in
// the x axis's units (step, tokens, FLOPs, training time or any logged metric), smoothed, and a cooldown
// branch joined to its run as one family.
import { branchColour, branchLabel, branchOf, interpolate, leadPoint } from './family.js';
import { $, METRIC_X, X_LABELS, chartMetrics, overlays, settings, state, zoomKey } from './page.js';
import { chartName, overlayOfJob } from './run_groups.js';
import { TOO_FEW_FOR_T, meanSe, seedBand, seedKey } from './seeds.js';
import { WALL_CLOCK, ema, isFailed, jobInfo, lossTables, metricAtStep, wallClock } from './series.js';

// Compute per token of each job (6N by the runs' sizes), for x = FLOPs.
export function flopsPerToken() {
  const out = new Map();
  for (const r of [...state.runs, ...overlays().flatMap((o) => o.runs)]) if (r.compute > 0 && r.tokens > 0) out.set(r.id, r.compute / r.tokens);
  return out;
}

export const xMetric = () => (settings.xKey.startsWith(METRIC_X) ? settings.xKey.slice(METRIC_X.length) : null);
export const xLabel = () => X_LABELS[settings.xKey] ?? xMetric() ?? settings.xKey;
// Points whose x repeats or goes back on a metric axis, per render: not drawn, and said under the legend.
export let xDropped = { points: 0, runs: new Set() };
export function resetDropped() {
  xDropped = { points: 0, runs: new Set() };
}

// The column a chart's x is read from (wall time is read at the points' steps), and the map from it to x for
// one job: FLOPs from tokens by the run's compute per token, wall time from the run's training clock (series.js
// wallClock). Null map: x is the column itself; undefined: the job has no x on this axis.
export const xColumn = () => (settings.xKey === 'tokens' || settings.xKey === 'flops' ? 'tokens' : 'step');
export function xMap(job, perToken, metrics = state.metrics) {
  if (settings.xKey === 'flops') {
    const f = perToken.get(job.id);
    return f ? (x) => x * f : undefined;
  }
  if (settings.xKey === 'wall') return wallClock(metrics.get(job.id)?.[WALL_CLOCK]) || undefined;
  if (xMetric()) return metricAtStep(metrics.get(job.id)?.[xMetric()]) || undefined;
  return null;
}

// A metric on x need not grow with step (a constant LR, an epoch counter, a schedule that turns): uPlot draws one
// y per x in ascending order, so the points are put in order of x, and where x repeats or goes back only the
// latest step's point is kept; `arrays` (ys and the like, index-aligned with xs) are cut alike. The points left
// out are counted for the note under the legend, never dropped unsaid.
function ascendingX(xs, arrays, jobs) {
  const order = xs.map((_, k) => k).sort((a, b) => xs[a] - xs[b] || b - a);
  const keep = order.filter((k, i) => i === 0 || xs[k] !== xs[order[i - 1]]).sort((a, b) => xs[a] - xs[b]);
  if (keep.length < xs.length) {
    xDropped.points += xs.length - keep.length;
    for (const j of jobs) xDropped.runs.add(j.id);
  }
  return [keep.map((k) => xs[k]), ...arrays.map((a) => keep.map((k) => a[k]))];
}

// The curves of one chart: jobs of the panel, visible groups; per job or per seed group (mean with a band).
// The x axis the metric charts of a view share: the zoom's range, else (linear axes) every chart's points
// together, so that a metric logged only at the end (val/loss) sits where it happened beside train/loss, not
// alone in a range of its own; null lets each chart range itself (a log axis pads its own tight range).
export function sharedXRange(curves) {
  if (settings.x0 !== null && settings.x1 !== null) return [settings.x0, settings.x1];
  if (settings.logX) return null;
  let lo = Infinity, hi = -Infinity;
  for (const c of curves) {
    for (const x of c.xs) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  return lo < hi ? [lo, hi] : null;
}

// One job's points of `metric` in the chart's x units: {xs, ys, base, toX} (base: the column x is read from, steps
// or tokens, kept for averaging seeds at equal steps and for placing branch points), or null when it has none.
function jobPoints(job, source, metric, perToken) {
  const { tables } = lossTables([job], source, metric, xColumn(), settings.logX);
  if (!tables.length) return null;
  let [xs, ys] = tables[0];
  let base = xs;
  const toX = xMap(job, perToken, source);
  if (toX === undefined) return null;
  if (toX) {
    const mapped = xs.map(toX);
    const keep = mapped.map((x) => Number.isFinite(x) && (!settings.logX || x > 0));
    xs = mapped.filter((_, k) => keep[k]);
    ys = ys.filter((_, k) => keep[k]);
    base = base.filter((_, k) => keep[k]);
    if (xMetric()) [xs, ys, base] = ascendingX(xs, [ys, base], [job]);
    if (!xs.length) return null;
  }
  return { xs, ys, base, toX };
}

export function chartCurves(metric, panelJobs, g) {
  const hidden = new Set(settings.hidden);
  const hiddenRuns = new Set(settings.hiddenRuns);
  const jobs = panelJobs.filter((j) => !hidden.has(g.groupOf(j)) && !hiddenRuns.has(String(j.id)));
  const zoomed = state.zoom?.key === zoomKey() ? state.zoom.metrics : null;
  const all = chartMetrics();
  const source = zoomed ? new Map([...all].map(([id, m]) => [id, { ...m, ...zoomed.get(id) }])) : all;
  const perToken = flopsPerToken();
  const scaled = [];
  for (const job of jobs) {
    const points = jobPoints(job, source, metric, perToken);
    if (!points) continue;
    let { xs, ys, base } = points;
    if (settings.x0 !== null && settings.x1 !== null) {
      // A zoomed x range: only the points inside it (and their neighbours, so lines reach the edges).
      const lo = xs.findIndex((x) => x >= settings.x0);
      let hi = xs.length - 1;
      while (hi >= 0 && xs[hi] > settings.x1) hi--;
      const a = Math.max(0, (lo < 0 ? xs.length : lo) - 1);
      const b = Math.min(xs.length - 1, hi + 1);
      xs = xs.slice(a, b + 1);
      ys = ys.slice(a, b + 1);
      base = base.slice(a, b + 1);
      if (!xs.length) continue;
    }
    scaled.push({ job, xs, ys, base, toX: points.toX });
  }
  const w = settings.smoothing;
  // seeds: 'mean' (min–max band), 'mean-se' (± s.e.) or 'mean-ci' (95% t interval) average a configuration's seeds.
  const bandKind = { mean: 'minmax', 'mean-se': 'se', 'mean-ci': 'ci95' }[settings.seeds];
  let curves;
  if (bandKind) {
    const bySeed = new Map();
    for (const c of scaled) {
      const k = `${overlayOfJob.get(c.job.id)?.sweep.id ?? ''}\u0000${seedKey(c.job)}`;  // (seeds of one sweep only)
      if (!bySeed.has(k)) bySeed.set(k, []);
      bySeed.get(k).push(c);
    }
    curves = [...bySeed.values()].map((list) => {
      // Seeds are averaged at equal steps (or tokens). On the wall-time axis their clocks differ: the mean line
      // is drawn at the seeds' mean training time of each step.
      // So is any metric on x: the mean line at the seeds' mean value of it at each step.
      const perSeed = settings.xKey === 'wall' || xMetric();
      let [base, mean, lo, hi] = seedBand(list.map((c) => [c.base, c.ys]), bandKind);
      let xs = base;
      if (perSeed) {
        xs = base.map((s) => meanSe(list.map((c) => c.toX(s))).mean);  // (a seed that ended before s adds nothing)
        const keep = xs.map(Number.isFinite);
        [xs, mean, lo, hi, base] = [xs, mean, lo, hi, base].map((a) => a.filter((_, k) => keep[k]));
        if (xMetric()) [xs, mean, lo, hi, base] = ascendingX(xs, [mean, lo, hi, base], list.map((c) => c.job));
      } else if (list[0].toX) {
        xs = base.map(list[0].toX);  // FLOPs: seeds of one configuration have one compute per token
      }
      const info = jobInfo(list[0].job);
      const seeds = list.length > 1 ? ` (${list.length} seeds${bandKind === 'ci95' && list.length < TOO_FEW_FOR_T
        ? ': min–max, no t interval' : ''})` : '';
      return {
        id: list.map((c) => c.job.id).join('+'), name: chartName(list[0].job, `${info.variant} ${info.preset}`), seeds, colour: g.colourOf(list[0].job),
        dash: list.every((c) => isFailed(c.job)), xs, base, ys: ema(mean, w), raw: mean,
        band: list.length > 1 ? [ema(lo, w), ema(hi, w)] : null, rawBand: list.length > 1 ? [lo, hi] : null, jobs: list.map((c) => c.job),
      };
    });
  } else {
    curves = scaled.map(({ job, xs, ys, base }) => ({
      id: job.id, name: chartName(job, job.name), seeds: '', colour: g.colourOf(job), dash: isFailed(job), xs, base, ys: ema(ys, w), raw: ys, band: null, jobs: [job],
    }));
  }
  joinFamilies(curves, metric, source, perToken);
  return curves;
}

// A run and its cooldown branches as one family (family.js): a branch's curve is named after its run, drawn in
// its run's hue made fainter, and leads in from the run's line at its branch point, so that it visibly leaves the
// run where it does (its own points start after that step). The lead is the run's line as drawn on this chart
// where the run is drawn, else the run's own points there (its run hidden or filtered out).
function joinFamilies(curves, metric, source, perToken) {
  const tokensOf = new Map([...state.runs, ...overlays().flatMap((o) => o.runs)].map((r) => [String(r.id), r.tokens]));
  const jobOf = new Map([...state.jobs, ...overlays().flatMap((o) => o.jobs)].map((j) => [String(j.id), j]));
  const unzoomed = chartMetrics();
  for (const c of curves) {
    const b = branchOf(c.jobs[0]);
    c.label = `${c.name}${c.seeds}`;
    if (!b) continue;
    const run = jobOf.get(b.parentId);
    const runCurve = curves.find((o) => o !== c && o.jobs.some((j) => String(j.id) === b.parentId));
    c.label = `${branchLabel(runCurve?.name ?? run?.name ?? `job ${b.parentId}`, b.step, tokensOf.get(String(c.jobs[0].id)))}${c.seeds}`;
    c.colour = branchColour(c.colour);
    c.branch = { run: b.parentId, step: b.step };
    if (xMetric()) continue;  // a lead is placed by step along the run's x, which a metric axis does not keep in order
    // A lead only where the curve starts at the branch's first point (a zoom may have cut it off).
    const first = unzoomed.get(c.jobs[0].id)?.[metric]?.[xColumn()]?.[0];
    if (!c.base.length || c.base[0] !== first || !run) continue;
    const runPoints = runCurve ?? jobPoints(run, source, metric, perToken);
    const runCol = source.get(run.id)?.[metric];
    if (!runPoints || !runCol) continue;
    // The branch point in the base column: its step, or the run's tokens at that step.
    const at = xColumn() === 'step' ? b.step : interpolate(runCol.step, runCol.tokens, b.step);
    c.lead = at === null ? null : leadPoint(runPoints, at, { logX: settings.logX, logY: settings.logY });
  }
}

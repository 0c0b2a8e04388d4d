// Pure data helpers of the dashboard (no DOM): metric columns, grouping, colours, fitted curves.
// Imported by the page and by the unit tests (node --test).

import { flattenConfig } from './config_columns.js';

// The coordinator's vocabulary, from GET /api/meta (setMeta, before anything below reads them): the dashboard
// spells no state or metric name of its own.
export let LOSS_NAMES = [];           // [train, val]: the loss curves plotted and fetched
export let LOSSES = {};               // {train, val}
export let WALL_CLOCK = '';           // the metric of a run's training seconds so far, for x = wall time
export let STATE_ORDER = [];          // counts and bars: active states furthest along first, then the rest in life order
export let ACTIVE_STATES = new Set(); // a worker holds the job
let FIT_STATE = null;                 // the runs a scaling-law fit reads
let FAILED_STATE = null;
let TERMINAL_STATES = new Set();
export let CLI_FIT_BOOTSTRAP = null;  // the resamples `gammalab fit` draws unless told otherwise (its --bootstrap)

export function setMeta(meta) {
  const states = meta.job_states;
  const active = states.filter((s) => s.active).map((s) => s.name);
  LOSSES = { ...meta.losses };
  LOSS_NAMES = [LOSSES.train, LOSSES.val];
  WALL_CLOCK = meta.wall_clock;
  STATE_ORDER = [...active].reverse().concat(states.filter((s) => !s.active).map((s) => s.name));
  ACTIVE_STATES = new Set(active);
  FIT_STATE = meta.fit_state;
  FAILED_STATE = meta.failed_state;
  TERMINAL_STATES = new Set(states.filter((s) => s.terminal).map((s) => s.name));
  CLI_FIT_BOOTSTRAP = Number.isInteger(meta.cli_fit_bootstrap) ? meta.cli_fit_bootstrap : null;
}

export const isFailed = (job) => job.state === FAILED_STATE;
// A run in the state whose runs the scaling-law fits read (succeeded).
export const inFitState = (run) => run.state === FIT_STATE;

// A state's badge class: active, ok (the fits' state), bad (failed), warn (another end), or none (waiting).
export function stateClass(state) {
  if (ACTIVE_STATES.has(state)) return 'active';
  if (state === FIT_STATE) return 'ok';
  if (state === FAILED_STATE) return 'bad';
  return TERMINAL_STATES.has(state) ? 'warn' : '';
}

// Proto JSON prints int64 fields as strings.
export function int(v) {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

// The fit report writes non-finite numbers as "nan", "inf", "-inf".
export function num(v) {
  if (typeof v === 'number') return v;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === null || v === undefined || v === 'nan') return NaN;
  const n = Number(v);
  return Number.isFinite(n) ? n : NaN;
}

// What a job is: variant and model preset from its resolved config (config_json). Kept per job object (a
// fetch of the jobs brings new ones): a page of 100 runs asks for it thousands of times a draw, and each
// asking parsed the config's JSON.
const infoOf = new WeakMap();
export function jobInfo(job) {
  if (job && typeof job === 'object') {
    const kept = infoOf.get(job);
    if (kept?.json === job.config_json) return kept.info;
    const info = readJobInfo(job);
    infoOf.set(job, { json: job.config_json, info });
    return info;
  }
  return readJobInfo(job);
}

function readJobInfo(job) {
  let config = {};
  try {
    config = JSON.parse(job.config_json || '{}');
  } catch {
    config = {};
  }
  return { variant: config?.scale?.variant || 'baseline', preset: sizeLabel(config) };
}

// The model size a job is counted under, as the server labels its run (proto/dashboard_json.h, RunSize::preset):
// its preset's name; else a declared N ("N 6.29M": a program of the user's own, an imported run); else its
// dimensions ("custom 8x512", layers x width). The same for every variant of one size.
export function sizeLabel(config) {
  if (config?.model?.preset) return config.model.preset;
  const declared = config?.declared_params;
  if (typeof declared === 'number' && Number.isFinite(declared)) return `N ${countText(declared)}`;
  return `custom ${config?.model?.n_layers ?? '?'}x${config?.model?.d_model ?? '?'}`;
}

// core/number_format.h's count_text, digit for digit, so that a size label reads as the server writes it.
function countText(n) {
  const a = Math.abs(n);
  for (const [scale, unit, decimals] of [[1e12, 'T', 2], [1e9, 'B', 2], [1e6, 'M', 2], [1e3, 'k', 1]]) {
    if (a >= scale) return `${(n / scale).toFixed(decimals)}${unit}`;
  }
  return n.toFixed(0);
}

// Appends the points of `columns` ({name: {step, tokens, value}}) to `store` (same shape), keeping only
// steps after the last one stored for that name, so refetching an overlapping range never duplicates.
// Returns the number of points appended.
export function appendColumns(store, columns) {
  let added = 0;
  for (const [name, col] of Object.entries(columns || {})) {
    const target = (store[name] ||= { step: [], tokens: [], value: [] });
    let last = target.step.length ? target.step[target.step.length - 1] : -Infinity;
    for (let i = 0; i < col.step.length; i++) {
      const step = int(col.step[i]);
      if (step <= last) continue;
      target.step.push(step);
      target.tokens.push(int(col.tokens[i]));
      const v = col.value[i];
      target.value.push(typeof v === 'number' && Number.isFinite(v) ? v : null);
      last = step;
      added++;
    }
  }
  return added;
}

// after_step for the next incremental fetch of `names`: one step before the oldest "last step" among the
// names that have points, so that a point of another name at that same step (e.g. the val/loss of the last
// train step, relayed in a later batch) is not missed; appendColumns drops what is already there.
export function afterStepFor(store, names = LOSS_NAMES) {
  const lasts = names.filter((n) => store?.[n]?.step.length).map((n) => store[n].step[store[n].step.length - 1]);
  return lasts.length ? Math.max(-1, Math.min(...lasts) - 1) : -1;
}

// A colour per group. Variants get a categorical palette (Okabe-Ito, colour-blind safe, then Tableau);
// ordered groups (model sizes) a sequential ramp from light to dark.
// The two controls come after qknorm with colours of their own: dnp_novec's sienna (readable on both themes), not the teal (#44AA99, last)
// that stands beside unified's green.
export const CATEGORICAL = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#332288', '#882255',
  '#117733', '#999933', '#AA4499', '#A0522D', '#888888', '#44AA99'];
export const SEQUENTIAL = ['#fde725', '#b5de2b', '#6ece58', '#35b779', '#1f9e89', '#26828e', '#31688e', '#3e4989',
  '#482878', '#440154'];

// The paper's variants first, in the order of docs/variants.md, then the controls (qknorm, dnp_novec, unified_dp),
// so their colours are the same in every sweep.
export const VARIANT_ORDER = ['baseline', 'none', 'unified', 'hg', 'ap', 'dp', 'dnp', 'or', 'er', 'iwd', 'qknorm',
  'dnp_novec', 'unified_dp'];

// Named variants keep their own colour; any other group takes the next colour no group of this chart has, so two
// groups share one only when the palette runs out. Groups none of which is a variant (seeds, a config field's
// values) take the palette from its start, its most distinct colours first.
export function groupColours(groups, ordered) {
  const out = new Map();
  if (ordered) {
    groups.forEach((g, i) => {
      const t = groups.length === 1 ? 1 : i / (groups.length - 1);
      out.set(g, SEQUENTIAL[Math.round(2 + t * (SEQUENTIAL.length - 3))]);
    });
    return out;
  }
  for (const g of groups) {
    const k = VARIANT_ORDER.indexOf(g);
    if (k >= 0) out.set(g, CATEGORICAL[k % CATEGORICAL.length]);
  }
  const taken = new Set(out.values());
  let next = out.size ? VARIANT_ORDER.length : 0;
  for (const g of groups) {
    if (out.has(g)) continue;
    let tries = 0;
    while (taken.has(CATEGORICAL[next % CATEGORICAL.length]) && tries++ < CATEGORICAL.length) next++;
    const colour = CATEGORICAL[next++ % CATEGORICAL.length];
    taken.add(colour);
    out.set(g, colour);
  }
  return out;
}

// Sorts group names: variants in VARIANT_ORDER, presets by their parameter count (then name).
export function sortGroups(groups, by, paramsOf = new Map()) {
  const list = [...new Set(groups)];
  if (by === 'preset') {
    return list.sort((a, b) => (paramsOf.get(a) ?? Infinity) - (paramsOf.get(b) ?? Infinity) || a.localeCompare(b));
  }
  const rank = (g) => (VARIANT_ORDER.includes(g) ? VARIANT_ORDER.indexOf(g) : VARIANT_ORDER.length);
  return list.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

// One uPlot table [xs, ys] per job for one metric: x = step or tokens; with a log x axis only x > 0.
// Returns {tables, jobs} in the same order, leaving out jobs without points of that metric.
export function lossTables(jobs, metricsByJob, metric, xKey, logX) {
  const tables = [];
  const kept = [];
  for (const job of jobs) {
    const col = metricsByJob.get(job.id)?.[metric];
    if (!col || !col.step.length) continue;
    const xs = [];
    const ys = [];
    const src = xKey === 'tokens' ? col.tokens : col.step;
    let prev = -Infinity;
    for (let i = 0; i < src.length; i++) {
      const x = src[i];
      if ((logX && x <= 0) || x <= prev) continue;  // uPlot needs ascending x
      xs.push(x);
      ys.push(col.value[i]);
      prev = x;
    }
    if (!xs.length) continue;
    tables.push([xs, ys]);
    kept.push(job);
  }
  return { tables, jobs: kept };
}

// A logged metric as a function of step, for an x axis read at the points' steps (wall time, or any metric):
// linearly interpolated between its logged steps, NaN outside them; null without points. `fromZero`: the metric
// is 0 at step 0 (a clock), so steps before its first point are read too.
export function metricAtStep(col, { fromZero = false } = {}) {
  if (!col?.step?.length) return null;
  const steps = fromZero ? [0, ...col.step] : col.step;
  const values = fromZero ? [0, ...col.value] : col.value;
  return (step) => {
    let lo = 0;
    let hi = steps.length - 1;
    if (!(step >= steps[0] && step <= steps[hi])) return NaN;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (steps[mid] <= step) lo = mid;
      else hi = mid;
    }
    const a = values[lo] ?? NaN;  // (a value stored as null: not finite)
    const b = values[hi] ?? NaN;
    if (steps[lo] === step) return a;
    if (steps[hi] === step) return b;
    return a + ((b - a) * (step - steps[lo])) / (steps[hi] - steps[lo]);
  };
}

// x = wall time: a run's training seconds at any step, from its WALL_CLOCK column (logged at its log steps),
// from 0 s at step 0; NaN past its last logged step. Null without one.
export const wallClock = (col) => metricAtStep(col, { fromZero: true });

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

export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// 1234567 -> "1.23M"; 0.000123 -> "1.23e-4"
export function si(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0';
  // Beyond the largest prefix, exponent form: 4.28e+119, not "4.28e+95Y".
  if (a >= 1e27) return x.toExponential(digits - 1);
  const units = [[1e24, 'Y'], [1e21, 'Z'], [1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, unit] of units) if (a >= scale) return `${+(x / scale).toPrecision(digits)}${unit}`;
  if (a >= 0.01) return `${+x.toPrecision(digits)}`;
  return x.toExponential(digits - 1);
}

// Like si() but parameter counts read better with "B" for billions.
export function count(x) {
  return si(x).replace(/G$/, 'B');
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

// ---- aggregation, smoothing, readout, tables and export (all pure; unit-tested in test/series.test.js)

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

// The runs the study table, the scaling plot and the fits read: the main stage's. A tune stage's runs measure
// learning rates at a few sizes, not the study (server/store/fits.cpp fits the main stage only too).
export function studyRuns(runs) {
  return runs.filter((r) => r.stage !== 'tune');
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

// What sets two or more runs apart: their resolved configs (job.config_json) flattened to dot paths, each path
// whose values are not all equal, in path order: [{path, values: [one per job, as text; '' where absent]}].
export function configDiff(jobs) {
  const flat = jobs.map((j) => {
    try {
      // A string as written (scale.variant: unified, not "unified"); other values as JSON (a list, true, null).
      const fields = flattenConfig(JSON.parse(j.config_json || '{}'));
      return new Map([...fields].map(([path, v]) => [path, typeof v === 'string' ? v : JSON.stringify(v)]));
    } catch {
      return new Map([['config', 'unreadable']]);
    }
  });
  const paths = [...new Set(flat.flatMap((m) => [...m.keys()]))].sort();
  return paths.map((path) => ({ path, values: flat.map((m) => m.get(path) ?? '') }))
    .filter((row) => new Set(row.values).size > 1);
}

// A sweep's status in words, by the CLI's rule (cli/job_view.cpp, sweep_status; `gammalab sweeps` prints the same):
// active until it has finished; then finished, cancelled, failed (no job succeeded) or partly failed.
export function sweepStatus(sweep) {
  if (!sweep.finished) return 'active';
  const n = (state) => sweep.job_counts?.[state] || 0;
  if (!n('failed')) return n('succeeded') > 0 || !sweep.total_jobs ? 'finished' : 'cancelled';
  return n('succeeded') ? 'partly failed' : 'failed';
}

// The jobs the metric charts draw for the stage control: 'main' (the default: the study's runs, as the study
// table and the fits), 'tune' (the tune stage's trials alone) or 'all'.
export function stageJobs(jobs, stage) {
  if (stage === 'all') return jobs;
  return jobs.filter((j) => (j.stage === 'tune') === (stage === 'tune'));
}

// The study table: per model size (preset, by parameter count) and variant, the final loss over seeds
// (mean ± s.e., n) of the runs in the fit state, and its difference to `baseline` at the same size.
// Returns {sizes: [{preset, params, cells: Map variant -> {n, mean, se, delta}}], variants}.
// A row per size and token budget: a surface of cooldown branches (several budgets per size) is never pooled
// over its budgets. A budget is the rank of a run's token count among its size's and variant's, as the fitter's
// slices are (core/scaling/comparison.h): variants of one size differ a little in params, and so in tokens when
// tokens follow params. `budgets`: some size has more than one, so a view shows D.
export function studyTable(runs, lossKey = 'loss', baseline = 'baseline') {
  const counted = runs.filter((r) => r.state === FIT_STATE && r.preset != null
    && typeof r[lossKey] === 'number' && Number.isFinite(r[lossKey]));
  const tokensOf = new Map();  // preset and variant -> their token counts, increasing
  for (const r of counted) {
    const key = `${r.preset}\u0000${r.variant}`;
    if (!tokensOf.has(key)) tokensOf.set(key, new Set());
    tokensOf.get(key).add(r.tokens ?? 0);
  }
  for (const [key, set] of tokensOf) tokensOf.set(key, [...set].sort((a, b) => a - b));
  const byPreset = new Map();
  for (const r of counted) {
    const y = r[lossKey];
    const budget = tokensOf.get(`${r.preset}\u0000${r.variant}`).indexOf(r.tokens ?? 0);
    const key = `${r.preset}\u0000${budget}`;
    if (!byPreset.has(key)) byPreset.set(key, { preset: r.preset, params: r.params, tokens: r.tokens, budget, values: new Map() });
    const row = byPreset.get(key);
    if (r.variant === baseline) Object.assign(row, { params: r.params, tokens: r.tokens });  // the baseline's N and D
    const v = r.variant ?? 'unknown';
    if (!row.values.has(v)) row.values.set(v, []);
    row.values.get(v).push(y);
  }
  const variants = sortGroups([...byPreset.values()].flatMap((r) => [...r.values.keys()]), 'variant');
  const sizes = [...byPreset.values()].sort((a, b) => (a.params ?? 0) - (b.params ?? 0) || a.preset.localeCompare(b.preset)
    || a.budget - b.budget);
  for (const row of sizes) {
    row.cells = new Map([...row.values].map(([v, ys]) => [v, meanSe(ys)]));
    const base = row.cells.get(baseline);
    for (const [v, c] of row.cells) c.delta = base && v !== baseline ? c.mean - base.mean : NaN;
    delete row.values;
  }
  const budgets = new Set(sizes.map((row) => row.preset)).size < sizes.length;
  return { sizes, variants, budgets };
}

// One estimate of a stored report (core/scaling/fit_report.cpp estimate_json), its strings ("nan", "inf") as
// numbers. atBound: the value sits on the edge of its domain and has no interval (lo and hi are NaN); the CLI
// says "not identified (at bound)" for it, never a zero-width interval.
export function estimateOf(e) {
  return { value: num(e?.value), lo: num(e?.lo), hi: num(e?.hi), bounded: Boolean(e?.bounded), atBound: Boolean(e?.at_bound) };
}

// How a stored report's bootstrap resampled: its confidence, whether it ran, and whether it redrew seeds. A
// comparison's intervals come only from resampled seeds: resampling model sizes redraws a ladder's nodes
// (cli/fit_view.cpp seeds_resampled). A report without a unit is older than the choice: it resampled runs.
// requested and used: the resamples asked for and those whose refit converged, which the label beside each
// interval gives (the coordinator's automatic refit draws its own number, not the CLI's).
function bootstrapOf(report) {
  const used = report?.bootstrap?.used ?? 0;
  const requested = report?.bootstrap?.requested ?? used;  // (a report without it: as many as it used)
  const unit = report?.bootstrap?.unit || '';
  return { confidence: num(report?.confidence ?? 0.95), used, requested, unit, seeded: used > 0 && unit !== 'model sizes' };
}

// m is the baseline's compute over the variant's for the same loss: a sentence says it as "m× less compute"
// above 1 and "1/m× more" below, its interval (or jackknife range) turned round with it.
function direction(value) {
  const better = !(value < 1);
  return { better, factor: better ? value : 1 / value, turn: ([lo, hi]) => (better ? [lo, hi] : [1 / hi, 1 / lo]) };
}

// The compute multipliers of the stored fit reports (the constant of law c's shared-exponent fit): [{law,
// variant, baseline, value, lo, hi, bounded, atBound, range: [lo, hi], profile, better, factor, interval,
// includesOne, confidence, unit, bootstrapped, resamples: {used, requested}}], from every report that has them. interval is [lo, hi] in the
// sentence's direction, null when the bootstrap did not bound it; profile ({lo, hi, open}) the range of
// multipliers the joint fit cannot tell apart, open when it reaches the profile's grid edge.
export function multipliers(reports) {
  const out = [];
  for (const report of reports) {
    const { confidence, used, requested, unit } = bootstrapOf(report);
    for (const m of report.multipliers || []) {
      if (!m.constant) continue;
      const e = estimateOf(m.constant);
      const { better, factor, turn } = direction(e.value);
      const bounded = e.bounded && !e.atBound;
      out.push({
        law: report.law, variant: m.variant, baseline: m.baseline, value: e.value,
        lo: e.lo, hi: e.hi, bounded, atBound: e.atBound,
        range: (m.compute_range || []).map(num),
        profile: m.profile ? { lo: num(m.profile.lo), hi: num(m.profile.hi), open: Boolean(m.profile.open_lo || m.profile.open_hi) } : null,
        better, factor, interval: bounded ? turn([e.lo, e.hi]) : null, includesOne: bounded && e.lo <= 1 && e.hi >= 1,
        confidence, unit, bootstrapped: used > 0, resamples: { used, requested },
        // The joint fit the constant comes from (common E and alpha, each arm its A): values, or null.
        sharedFit: m.shared_fit ? Object.fromEntries(['E', 'alpha', 'A_baseline', 'A_variant']
          .map((k) => [k, estimateOf(m.shared_fit[k]).value])) : null,
      });
    }
  }
  return out;
}

// The law-free comparisons of the stored fit reports (the same in every law's report, so the first report that has
// them), rows for the study view: per variant and reference (the baseline, or a control such as qknorm) the pooled
// local multiplier in the direction its sentence says it (as the CLI's verdict: interval and jackknife turned
// round too), and per size the gap within pairs of runs that share a seed, the unpaired gap beside it where some
// run lacks its partner, and the local multiplier. `laws`: the law-based multipliers (multipliers() above) of the
// same variant over the same reference, to be shown beside the local one; `holdout` where the laws miss the
// largest size by more than the difference measured (the CLI then says the law-based figure is not supported).
export function pairedComparisons(reports, laws = multipliers(reports)) {
  // The report whose verdict has the law's check beneath it (law c's, where the coordinator stored laws n and c),
  // else any with comparisons: the comparisons themselves are the same in every law's report.
  const report = reports.find((r) => (r.comparisons || []).length && (r.multipliers || []).length)
    ?? reports.find((r) => (r.comparisons || []).length);
  if (!report) return [];
  const { confidence, seeded, used, requested } = bootstrapOf(report);
  return report.comparisons.map((c) => {
    const local = estimateOf(c.local_multiplier);
    const { better, factor, turn } = direction(local.value);
    const ladder = Boolean(c.ladder);
    const sizesInside = c.sizes_inside ?? 0;
    const holdoutError = num(c.holdout_error);
    const relativeEffect = num(c.relative_effect);
    const sizes = (c.sizes || []).map((z) => {
      const pairs = z.pairs ?? 0;
      const complete = Boolean(z.complete);
      const inside = Boolean(z.inside);
      const m = estimateOf(z.local_multiplier);
      const hasLocal = ladder && !Number.isNaN(m.value);
      return {
        params: num(z.params),
        tokens: num(z.tokens),
        pairs,
        // The seeds behind this size's interval: under three, the CLI says "too few seeds to bound" instead.
        seeds: pairs > 0 ? pairs : Math.min(z.baseline_runs ?? 0, z.variant_runs ?? 0),
        complete,
        // The figure a size is read by: the paired mean where runs pair up, else the plain difference of means.
        gap: pairs > 0 ? num(z.paired_mean) : num(z.gap?.value),
        paired: pairs > 0 ? { mean: num(z.paired_mean), se: num(z.paired_standard_error) } : null,
        unpaired: complete ? null : { mean: num(z.gap?.value), se: num(z.unpaired_standard_error) },
        local: hasLocal ? m : null,
        // Where the reading is taken: the variant's compute and mean loss here (the baseline's mean plus the gap).
        variantCompute: num(z.variant_compute),
        variantLoss: num(z.baseline_mean) + num(z.gap?.value),
        inside,
        // A local multiplier read off the reference's curve extended past its end segment.
        outside: hasLocal && !inside,
      };
    // By N, then by D: on a surface a size's budgets in increasing order, whatever order the report keeps them in.
    }).sort((a, b) => a.params - b.params || a.tokens - b.tokens);
    const withInterval = seeded && local.bounded;
    return {
      variant: c.variant,
      reference: c.baseline,
      paired: Boolean(c.paired),
      // Every run at every size has its partner (one seed each counts too); `paired` says the bootstrap drew pairs.
      complete: sizes.length > 0 && sizes.every((z) => z.complete && z.pairs > 0),
      anyPairs: sizes.some((z) => z.pairs > 0),
      ladder,
      confidence,
      seeded,
      resamples: { used, requested },
      sizesInside,
      // The sizes m_local is pooled over (every size both ran); reports stored before the support was fixed lack it.
      sizesPooled: c.sizes_pooled ?? sizesInside,
      identified: ladder && (c.sizes_pooled ?? sizesInside) > 0 && Number.isFinite(local.value),
      better,
      factor,
      value: local.value,
      interval: withInterval ? turn([local.lo, local.hi]) : null,
      includesOne: withInterval && local.lo <= 1 && local.hi >= 1,
      jackknife: c.jackknife ? turn([num(c.jackknife.lo), num(c.jackknife.hi)]) : null,
      holdout: holdoutError > relativeEffect ? { error: holdoutError, effect: relativeEffect } : null,
      laws: laws.filter((m) => m.variant === c.variant && m.baseline === c.baseline),
      // The verdict's sentences, stored with the fit (core/scaling/verdict.h); absent in fits stored before.
      verdict: (report.verdicts || []).find((v) => v.variant === c.variant && v.reference === c.baseline) ?? null,
      sizes,
      // The reference's curve(s) m_local is read off, as the coordinator sampled them: [{xs: C, ys: loss}].
      curves: (c.baseline_curves || []).map((t) => ({ xs: (t.compute || []).map(num), ys: (t.loss || []).map(num) })),
    };
  });
}

// Exponential moving average over a curve's values, debiased (as TensorBoard): weight in [0, 1), 0 = raw.
// Gaps (null) stay gaps and do not reset the average.
export function ema(values, weight) {
  if (!(weight > 0)) return values.slice();
  const out = new Array(values.length);
  let acc = 0;
  let norm = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      out[i] = null;
      continue;
    }
    acc = acc * weight + (1 - weight) * v;
    norm = norm * weight + (1 - weight);
    out[i] = acc / norm;
  }
  return out;
}

// A run's value at the cursor's x: its last point at or before x, or null once x is past the run's last point
// or before its first (a run that has ended, or not started, shows nothing).
export function valueAt(xs, ys, x) {
  if (!xs.length || x < xs[0] || x > xs[xs.length - 1]) return null;
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return { x: xs[lo], y: ys[lo], i: lo };
}

// Curve names as short as still tells them apart, for a readout in a narrow chart: a name's '/' parts that every
// name has (the optimizer, the schedule, a size the whole sweep shares) are left out, so what is left is what
// varies between the curves drawn (`tiny-0.03m/baseline/adamw/cosine/s0` -> `tiny-0.03m/baseline/s0`). An
// overlaid sweep's name before ` · ` is a part of its own. A name keeps all its parts where nothing would be
// left, and every name does where two short ones would come out the same.
export function shortLabels(labels) {
  const split = (label) => {
    const cut = label.lastIndexOf(' · ');
    const rest = cut < 0 ? label : label.slice(cut + 3);
    return { prefix: cut < 0 ? '' : label.slice(0, cut + 3), parts: rest.split('/') };
  };
  const all = labels.map(split);
  if (all.length < 2) return [...labels];
  const common = new Set(all[0].parts.filter((p) => all.every((l) => l.parts.includes(p))));
  const out = all.map(({ prefix, parts }, i) => {
    const kept = parts.filter((p) => !common.has(p));
    return kept.length ? prefix + kept.join('/') : labels[i];
  });
  return new Set(out).size === new Set(labels).size ? out : [...labels];
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

// A tight range for a log axis: the data's [lo, hi] padded by a few percent in log space (no snap to decades).
export function tightLogRange(lo, hi, pad = 0.04) {
  if (!(lo > 0 && hi > 0)) return [1, 10];
  if (lo === hi) return [lo / 1.1, hi * 1.1];
  const a = Math.log10(lo);
  const b = Math.log10(hi);
  const d = (b - a) * pad;
  return [10 ** (a - d), 10 ** (b + d)];
}

// Tick values for a log axis over [lo, hi], so that it carries at least `want` labelled ticks: the decades when
// they are enough (every k-th when they are too many), else over half a decade or more the sparsest of the
// mantissa sets 1-3, 1-2-5 and 1..9 that gives `want`; over less, where a log axis has one tick or none, round
// linear steps (1, 2, 2.5 or 5 times a power of ten), still placed on the log scale.
export function logTicks(lo, hi, want = 4) {
  if (!(lo > 0 && hi > lo)) return [];
  const inside = (v) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  const e0 = Math.floor(Math.log10(lo));
  const e1 = Math.ceil(Math.log10(hi));
  const span = Math.log10(hi / lo);
  const decades = [];
  for (let e = e0; e <= e1; e++) if (inside(10 ** e)) decades.push(+(10 ** e).toPrecision(12));
  if (decades.length >= want) {
    const every = Math.ceil(decades.length / 10);
    return decades.filter((_, i) => i % every === 0);
  }
  if (span >= 0.5) {
    for (const mantissas of [[1, 3], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
      const ticks = [];
      for (let e = e0; e <= e1; e++) {
        for (const m of mantissas) if (inside(m * 10 ** e)) ticks.push(+(m * 10 ** e).toPrecision(12));
      }
      if (ticks.length >= want) return ticks;
    }
  }
  // The largest round step that still gives `want` ticks.
  const p = 10 ** Math.floor(Math.log10((hi - lo) / want));
  const count = (step) => Math.floor(hi / step + 1e-9) - Math.ceil(lo / step - 1e-9) + 1;
  const step = [10, 5, 2.5, 2, 1, 0.5, 0.25, 0.2, 0.1].map((m) => m * p).find((st) => count(st) >= want) || p / 10;
  const ticks = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-9); k++) ticks.push(+(k * step).toPrecision(12));
  return ticks;
}

// Labels for an axis's ticks: SI prefixes from 10k up (no "1230000000000" to be clipped), and as few
// significant digits (3 or more) as tell every tick apart (2.252 and 2.254, not 2.25 twice).
export function tickLabels(values) {
  const text = (v, digits) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return '';
    return Math.abs(v) >= 1e4 ? si(v, digits) : `${+v.toPrecision(digits)}`;
  };
  for (let digits = 3; digits < 8; digits++) {
    const labels = values.map((v) => text(v, digits));
    if (new Set(labels.filter(Boolean)).size === labels.filter(Boolean).length) return labels;
  }
  return values.map((v) => text(v, 8));
}

// Sorting and filtering of table rows. column: {key, get(row) -> value}; numbers sort numerically, nulls last.
export function sortRows(rows, get, descending = false) {
  const dir = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = get(a);
    const y = get(b);
    const xn = x === null || x === undefined || (typeof x === 'number' && !Number.isFinite(x));
    const yn = y === null || y === undefined || (typeof y === 'number' && !Number.isFinite(y));
    if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
    if (typeof x === 'number' && typeof y === 'number') return dir * (x - y);
    return dir * String(x).localeCompare(String(y), undefined, { numeric: true });
  });
}

// Rows whose text (the values of `texts(row)`, case-insensitive) contains every word of `query`.
export function filterRows(rows, texts, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return rows;
  return rows.filter((r) => {
    const hay = texts(r).map((t) => String(t ?? '').toLowerCase()).join(' ');
    return words.every((w) => hay.includes(w));
  });
}

// CSV (RFC 4180) of series: rows [run, metric, step, tokens, value], one per point; fields with a comma,
// quote or newline quoted. `series`: [{run, metric, step: [], tokens: [], value: []}].
export function seriesCsv(series) {
  const field = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = ['run,metric,step,tokens,value'];
  for (const s of series) {
    for (let i = 0; i < s.step.length; i++) {
      lines.push([s.run, s.metric, s.step[i], s.tokens[i], s.value[i]].map(field).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

// The view's settings in the address (#/sweeps/ID?key=value&...) and back: only keys of `defaults` are read,
// each parsed to the type of its default (boolean, number, string, or a list of strings joined by ",").
export function settingsToQuery(settings, defaults) {
  const params = new URLSearchParams();
  for (const [k, d] of Object.entries(defaults)) {
    const v = settings[k];
    if (JSON.stringify(v) === JSON.stringify(d)) continue;
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return params.toString();
}

// What settingsFromQuery leaves out of an address, in words: a key that is no setting, or a value of the wrong
// kind ("logY=1: expected true or false"). The page says so rather than ignore a hand-edited address silently.
// `choices`: per setting with a fixed set of values, {ok(value), expected}: a value outside it is said too.
export function settingsProblems(query, defaults, choices = {}) {
  const problems = [];
  for (const [k, text] of new URLSearchParams(query)) {
    const shownText = `${k}=${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
    if (!Object.hasOwn(defaults, k)) {
      problems.push(`${k.length > 40 ? `${k.slice(0, 40)}…` : k}: not a setting`);
      continue;
    }
    const d = defaults[k];
    if (typeof d === 'boolean' && text !== 'true' && text !== 'false') problems.push(`${shownText}: expected true or false`);
    else if (typeof d === 'number' && !Number.isFinite(Number(text))) problems.push(`${shownText}: expected a number`);
    else if (choices[k] && !choices[k].ok(text)) problems.push(`${shownText}: expected ${choices[k].expected}`);
  }
  return problems;
}

export function settingsFromQuery(query, defaults) {
  const params = new URLSearchParams(query);
  const out = {};
  for (const [k, d] of Object.entries(defaults)) {
    if (!params.has(k)) continue;
    const text = params.get(k);
    if (typeof d === 'boolean') out[k] = text === 'true';
    else if (typeof d === 'number') {
      const n = Number(text);
      if (Number.isFinite(n)) out[k] = n;
    } else if (Array.isArray(d)) out[k] = text.split(',').filter(Boolean);
    else if (d === null || typeof d === 'string') out[k] = text;
  }
  return out;
}

// The tune stage's report (Sweep.tune_report_json, core/sweep/tune.h) as curves of mean final loss against the
// tuned value, per group: {field, groups: [{label, xs, ys, best: {x, y} | null, problem}]}. The first tuned field
// is the x axis (values of other tuned fields, if any, become part of the label). Non-finite losses (a value
// whose runs failed or diverged) are left out of the curve. The pick says whether the coordinator added its value
// (tune.extend, tune.refine).
export function tuneSeries(reportJson) {
  let report = reportJson;
  if (typeof reportJson === 'string') {
    try {
      report = JSON.parse(reportJson);
    } catch {
      return null;
    }
  }
  if (!report || !Array.isArray(report.groups) || !report.groups.length) return null;
  const field = Object.keys(report.groups[0].trials?.[0]?.values || {})[0];
  if (!field) return null;
  const keyText = (key) => Object.entries(key || {}).map(([k, v]) => `${k}=${v}`).join(' ') || 'all runs';
  const curves = new Map();
  const best = new Map();
  for (const g of report.groups) {
    (g.trials || []).forEach((t, i) => {
      const others = Object.entries(t.values || {}).filter(([k]) => k !== field).map(([k, v]) => `${k}=${v}`).join(' ');
      const label = [keyText(g.key), others].filter(Boolean).join(' ');
      if (!curves.has(label)) {
        // How sure the group's pick is (the share of resamples of its tune seeds that keep it; null: not measured).
        const share = typeof g.pick_share === 'number' ? g.pick_share : null;
        // match: the config values every run of this curve has (its group's key and the other tuned fields).
        const match = { ...(g.key || {}), ...Object.fromEntries(Object.entries(t.values || {}).filter(([k]) => k !== field)) };
        curves.set(label, { label, variant: g.key?.['scale.variant'] ?? null, points: [], tried: [], problem: g.problem || '', share, seeds: g.seeds ?? 0, match });
      }
      const x = num(t.values[field]);
      const y = num(t.mean_loss);
      if (Number.isFinite(x)) curves.get(label).tried.push(x);
      if (Number.isFinite(x) && Number.isFinite(y)) curves.get(label).points.push([x, y]);
      // origin: '' on the grid as written, 'extended' or 'refined' when the coordinator added the value.
      if (i === g.best && Number.isFinite(x) && Number.isFinite(y)) best.set(label, { x, y, origin: t.origin || '' });
    });
  }
  // tune.size_rule: one line per family, log value = intercept + slope log N (core/sweep/tune_rule.h).
  const rules = (Array.isArray(report.rules) ? report.rules : []).map((r) => ({
    label: keyText(r.family), intercept: num(r.intercept), slope: num(r.slope), slopeSe: num(r.slope_se), df: r.df ?? 0,
    scatter: Number.isFinite(num(r.residual_sd)) ? Math.exp(num(r.residual_sd)) : NaN, problem: r.problem || '',
  }));
  return {
    field,
    rules,
    groups: [...curves.values()].map((c) => {
      c.points.sort((a, b) => a[0] - b[0]);
      const pick = best.get(c.label) || null;
      // A pick at the smallest or largest value tried: the optimum may lie beyond the grid.
      const edge = !!pick && (pick.x === Math.min(...c.tried) || pick.x === Math.max(...c.tried));
      return { label: c.label, variant: c.variant, xs: c.points.map((p) => p[0]), ys: c.points.map((p) => p[1]), best: pick, problem: c.problem, edge, share: c.share, seeds: c.seeds, match: c.match };
    }),
  };
}

// ---- job view

// Which of the user's actions a job in `state` allows (the coordinator decides; this only hides buttons that
// would be refused): cancel while it has not ended, retry once it ended other than in the fits' state.
export function jobActions(state) {
  const ended = TERMINAL_STATES.has(state);
  return { cancel: !ended, retry: ended && state !== FIT_STATE };
}

// 1536 -> "1.5 KiB"
export function bytesText(n) {
  const v = Number(n);
  if (!Number.isFinite(v) || v < 0) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = v;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${+x.toPrecision(3)} ${units[i]}`;
}

// ---- interval bands of fitted laws

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

// Pure data helpers of the dashboard (no DOM) that the rest build on: the coordinator's words (/api/meta: the
// losses, the job states), a job's variant and size, metric columns and their loss tables, the study's runs
// and table, stages, and what a curve's readout shows. Imported by the page, the report and the unit tests.
import { sortGroups } from './colours.js';
import { flattenConfig } from './config_columns.js';
import { meanSe } from './seeds.js';

export let LOSS_NAMES = [];           // [train, val]: the loss curves plotted and fetched
export let LOSSES = {};               // {train, val}
export let WALL_CLOCK = '';           // the metric of a run's training seconds so far, for x = wall time
export let STATE_ORDER = [];          // counts and bars: active states furthest along first, then the rest in life order
export let ACTIVE_STATES = new Set(); // a worker holds the job
export let FIT_STATE = null;          // the runs a scaling-law fit reads
let FAILED_STATE = null;
let TERMINAL_STATES = new Set();
export let USER_METRIC_PREFIX = null;  // a program's metrics of its own carry it (docs/own-program.md)
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
  USER_METRIC_PREFIX = typeof meta.user_metrics?.prefix === 'string' ? meta.user_metrics.prefix : null;
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

export function median(values) {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The runs the study table, the scaling plot and the fits read: the main stage's. A tune stage's runs measure
// learning rates at a few sizes, not the study (server/store/fits.cpp fits the main stage only too).
export function studyRuns(runs) {
  return runs.filter((r) => r.stage !== 'tune');
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

// Which of the user's actions a job in `state` allows (the coordinator decides; this only hides buttons that
// would be refused): cancel while it has not ended, retry once it ended other than in the fits' state.
export function jobActions(state) {
  const ended = TERMINAL_STATES.has(state);
  return { cancel: !ended, retry: ended && state !== FIT_STATE };
}

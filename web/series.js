// Pure data helpers of the dashboard (no DOM): metric columns, grouping, colours, fitted curves.
// Imported by the page and by the unit tests (node --test).

// The coordinator's vocabulary, from GET /api/meta (setMeta, before anything below reads them): the dashboard
// spells no state or metric name of its own.
export let LOSS_NAMES = [];           // [train, val]: the loss curves plotted and fetched
export let LOSSES = {};               // {train, val}
export let STATE_ORDER = [];          // counts and bars: active states furthest along first, then the rest in life order
export let ACTIVE_STATES = new Set(); // a worker holds the job
let FIT_STATE = null;                 // the runs a scaling-law fit reads
let FAILED_STATE = null;
let TERMINAL_STATES = new Set();

export function setMeta(meta) {
  const states = meta.job_states;
  const active = states.filter((s) => s.active).map((s) => s.name);
  LOSSES = { ...meta.losses };
  LOSS_NAMES = [LOSSES.train, LOSSES.val];
  STATE_ORDER = [...active].reverse().concat(states.filter((s) => !s.active).map((s) => s.name));
  ACTIVE_STATES = new Set(active);
  FIT_STATE = meta.fit_state;
  FAILED_STATE = meta.failed_state;
  TERMINAL_STATES = new Set(states.filter((s) => s.terminal).map((s) => s.name));
}

export const isFailed = (job) => job.state === FAILED_STATE;

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

// What a job is: variant and model preset from its resolved config (config_json).
export function jobInfo(job) {
  let config = {};
  try {
    config = JSON.parse(job.config_json || '{}');
  } catch {
    config = {};
  }
  return {
    variant: config?.scale?.variant || 'baseline',
    preset: config?.model?.preset || 'custom',
  };
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
const CATEGORICAL = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#332288', '#882255',
  '#117733', '#999933', '#AA4499', '#44AA99'];
const SEQUENTIAL = ['#fde725', '#b5de2b', '#6ece58', '#35b779', '#1f9e89', '#26828e', '#31688e', '#3e4989',
  '#482878', '#440154'];

// The paper's variants first, in the order of docs/variants.md, so their colours are the same in every sweep.
export const VARIANT_ORDER = ['baseline', 'none', 'unified', 'hg', 'ap', 'dp', 'dnp', 'or', 'er', 'iwd'];

export function groupColours(groups, ordered) {
  const out = new Map();
  groups.forEach((g, i) => {
    if (ordered) {
      const t = groups.length === 1 ? 1 : i / (groups.length - 1);
      out.set(g, SEQUENTIAL[Math.round(2 + t * (SEQUENTIAL.length - 3))]);
    } else {
      const k = VARIANT_ORDER.indexOf(g);
      out.set(g, CATEGORICAL[(k >= 0 ? k : VARIANT_ORDER.length + i) % CATEGORICAL.length]);
    }
  });
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

// Fitted loss at x under a law of the fit report (core/fit_report.h): n: E + A·N^-alpha over params;
// c: E + A·C^-alpha over compute; chinchilla: E + A/N^alpha + B/D^beta over params with D = ratio·N.
// Returns null where the law does not apply to this x axis (or has no finite parameters).
export function fitCurve(law, parameters, xKey, tokensPerParam) {
  const p = (name) => num(parameters?.[name]?.value ?? parameters?.[name]);
  const E = p('E');
  const A = p('A');
  const alpha = p('alpha');
  if (![E, A, alpha].every(Number.isFinite)) return null;
  if (law === 'n' && xKey === 'params') return (x) => E + A * x ** -alpha;
  if (law === 'c' && xKey === 'compute') return (x) => E + A * x ** -alpha;
  if (law === 'chinchilla' && xKey === 'params') {
    const B = p('B');
    const beta = p('beta');
    if (![B, beta, tokensPerParam].every(Number.isFinite)) return null;
    return (x) => E + A * x ** -alpha + B * (tokensPerParam * x) ** -beta;
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
  const units = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, unit] of units) if (a >= scale) return `${+(x / scale).toPrecision(digits)}${unit}`;
  if (a >= 0.01) return `${+x.toPrecision(digits)}`;
  return x.toExponential(digits - 1);
}

// Like si() but parameter counts read better with "B" for billions.
export function count(x) {
  return si(x).replace(/G$/, 'B');
}

// The fit reports in a /api/sweeps/{id}/fits answer, newest first, one per law. Accepts a report itself
// (core/fit_report.h JSON), a list of them, or proto Fit messages ({law, version, report_json}) bare, in a
// list, or under "fits" (GetFitsResponse), so the plot works with whichever shape the endpoint settles on.
export function fitReports(body) {
  if (!body || typeof body !== 'object') return [];
  const list = Array.isArray(body) ? body : Array.isArray(body.fits) ? body.fits : [body];
  const out = [];
  const laws = new Set();
  for (const item of list) {
    let report = item;
    try {
      if (typeof item?.report_json === 'string') report = { law: item.law, ...JSON.parse(item.report_json) };
    } catch {
      continue;
    }
    if (!report || !Array.isArray(report.groups) || laws.has(report.law)) continue;
    laws.add(report.law);
    out.push(report);
  }
  return out;
}

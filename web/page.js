// The page's state and its settings, with their one owner: what was loaded (`state`: the sweep list, the open
// sweep's jobs, metrics, runs, fits, notes and alerts, the open job, overlays and zoom), the view's settings
// held in the address (`settings`: read, checked and written back here), uPlot once loaded, and the drawing
// hook every module draws through (render, changed). Other modules read these and change the state's fields;
// only this module replaces them.
import { shown } from './dom.js';
import { useTags } from './grouping.js';
import { overlayIds } from './overlay.js';
import { settingsFromQuery, settingsProblems, settingsToQuery } from './address.js';
import { LOSSES, USER_METRIC_PREFIX } from './series.js';

export const $ = (id) => document.getElementById(id);
// Points per series asked of the API for a job's own charts and a sweep's live appends: four per pixel column
// of a wide chart (the API keeps each bucket's first, last, lowest and highest point).
export const MAX_POINTS = 4000;

// Settings of the view, held in the address; their defaults are what an address without them means.
export const DEFAULTS = {
  xKey: 'step', logX: false, logY: false, groupBy: 'variant', panelBy: 'none', seeds: 'runs', smoothing: 0,
  metrics: [], hidden: [], hiddenRuns: [], scalingHidden: [], compare: [], scalingLoss: 'loss', scalingX: 'params', unfinished: false,
  sort: '', desc: false, filter: '', x0: null, x1: null, stage: 'main',
  columns: [],  // the jobs table's columns shown (keys: fixed ones, config paths); empty: the sweep's default
  with: [],     // other sweeps (ids) whose runs the metric charts draw over this one's (overlay.js)
};
export let settings = { ...DEFAULTS };

export const state = {
  sweeps: [],
  sweep: null,           // the open sweep
  jobs: [],
  metrics: new Map(),    // job id -> {name: {step, tokens, value}}
  runs: [],              // /api/sweeps/{id}/runs
  annotations: [],       // /api/sweeps/{id}/annotations: notes and tags of the sweep (job_id '') and its runs
  alerts: [],            // /api/sweeps/{id}/alerts: newest first (web/alerts.js)
  fits: [],              // reports of /api/sweeps/{id}/fits (fitReports)
  workers: new Map(),
  loadedFor: null,       // sweep id whose data is loaded
  jobsMark: null,        // where the open sweep's next job changes start, {seq, basis} (sweepJobs)
  job: null,             // the open job (#/jobs/ID) with its metrics
  zoom: null,            // {key, metrics: Map job id -> columns}: the zoomed x range at full resolution
  overlays: new Map(),   // sweep id of `settings.with` -> {sweep, jobs, jobsMark, metrics, runs}, or {missing: true}
};

// uPlot, once loaded (app.js main): every chart is made with it.
export let uPlot = null;
export function setUPlot(module) {
  uPlot = module;
}

export function parseHash() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const m = path.match(/^\/(sweeps|jobs)\/([^/]+)/);
  return { kind: m?.[1] || null, id: m ? decodeURIComponent(m[2]) : null, query };
}

// Writes the settings into the address (replacing the entry: settings are not history steps).
export function saveSettings() {
  const r = parseHash();
  if (r.kind !== 'sweeps') return;
  const q = settingsToQuery(settings, { ...DEFAULTS, metrics: defaultMetrics() });
  const hash = `#/sweeps/${encodeURIComponent(r.id)}${q ? `?${q}` : ''}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

export function readSettings() {
  const typed = { ...DEFAULTS, x0: 0, x1: 0 };
  const query = parseHash().query;
  settings = { ...DEFAULTS, metrics: defaultMetrics(), ...settingsFromQuery(query, typed) };
  // Drawn afresh with them: a refresh that ran between the address's change and this read (the hashchange event
  // comes a task later) drew the new address with the old settings, and must not count as its drawing.
  renderedFor = null;
  // A hand-edited address that names no setting, or gives one a value of the wrong kind, is said, not ignored.
  const problems = settingsProblems(query, typed, SETTING_CHOICES);
  for (const [k, c] of Object.entries(SETTING_CHOICES)) if (!c.ok(settings[k])) settings[k] = DEFAULTS[k];
  $('settings-notice').hidden = !problems.length;
  $('settings-notice').textContent = problems.length ? `Not used from the address: ${problems.join('; ')}.` : '';
}

// The settings with a fixed set of values: one outside it, hand-written into an address, is said and not used.
const oneOf = (...values) => ({ ok: (v) => values.includes(v), expected: values.join(', ') });
const SETTING_CHOICES = {
  xKey: { ok: (v) => Object.hasOwn(X_LABELS, v) || (v.startsWith(METRIC_X) && v.length > METRIC_X.length),
    expected: 'step, tokens, flops, wall or metric:NAME (a logged metric)' },
  seeds: oneOf('runs', 'mean', 'mean-se', 'mean-ci'),
  scalingLoss: oneOf('loss', 'final_val_loss', 'final_train_loss'),
  scalingX: oneOf('params', 'compute'),
  stage: oneOf('main', 'tune', 'all'),
};

export function defaultMetrics() {
  return [LOSSES.train, LOSSES.val].filter(Boolean);
}

export function showError(message) {
  $('error').hidden = !message;
  $('error').textContent = shown(message || '');
}


// The open sweep's note and tags (jobId '') or a run's, as last loaded; null where none is written.
// By job id ('' for the sweep's own), rebuilt only when the list is replaced: a table's render asks per run.
let annotationIndex = { of: null, byJob: new Map() };
export const annotationOf = (jobId) => {
  if (annotationIndex.of !== state.annotations) {
    annotationIndex = { of: state.annotations, byJob: new Map(state.annotations.map((a) => [a.job_id, a])) };
  }
  return annotationIndex.byJob.get(String(jobId)) ?? null;
};

useTags((job) => annotationOf(job.id)?.tags);  // "colour by" and "panels" by a run's tags

export function paramsByPreset(runs = state.runs) {
  const out = new Map();
  for (const r of runs) if (r.preset && r.params != null) out.set(r.preset, r.params);
  return out;
}

// The overlaid sweeps that loaded, in the order chosen.
export function overlays() {
  return overlayIds(settings.with, state.sweep?.id).map((id) => state.overlays.get(id)).filter((o) => o?.sweep);
}

// Every job's points the charts may draw, the open sweep's and the overlaid sweeps'.
export function chartMetrics() {
  const all = overlays();
  if (!all.length) return state.metrics;
  return new Map([...state.metrics, ...all.flatMap((o) => [...o.metrics])]);
}

export const slug = (text) => String(text).replace(/[^A-Za-z0-9_-]+/g, '-');

// The curves any job of the sweep has stored, in the order of /api/meta's list, which names every curve the
// trainer prints. A stored name outside it is a marker, not a curve (branch_point: a run's checkpoint for a
// cooldown branch is written, docs/branches.md), and gets no chart.
export let META_METRICS = [];
export function setMetaMetrics(names) {
  META_METRICS = names;
}
// A program's metrics of its own (/api/meta's user_metrics prefix) come after them, by name.
export function storedMetrics(metricsMap = state.metrics) {
  const names = new Set();
  for (const store of metricsMap.values()) for (const [n, col] of Object.entries(store)) if (col.step.length) names.add(n);
  const own = USER_METRIC_PREFIX ? [...names].filter((n) => n.startsWith(USER_METRIC_PREFIX)).sort() : [];
  return [...META_METRICS.filter((n) => names.has(n)), ...own];
}

export const X_LABELS = { step: 'step', tokens: 'tokens', flops: 'compute (FLOPs)', wall: 'training time (s)' };
// x = a logged metric ("metric:NAME"): the run's value of that metric at each point's step (series.js metricAtStep).
export const METRIC_X = 'metric:';
export const zoomKey = () => JSON.stringify([state.sweep?.id, settings.xKey, settings.x0, settings.x1, settings.metrics]);

// Drawing: the page's one drawing of everything (app.js renderAll) is set once at its start, and every module
// draws through render(); renderedFor is the address the page was last drawn for.
let drawAll = () => {};
export function setRender(fn) {
  drawAll = fn;
}
export let renderedFor = null;
export function render() {
  renderedFor = location.hash;
  drawAll();
}

// A setting changed: into the address, then drawn.
export function changed() {
  saveSettings();
  render();
}

// Why a view's link (#/views/ID) opened nothing, said while the address is that link.
export let viewLinkError = '';
export function viewLinkFailed(e) {
  viewLinkError = `No view there: ${e.message}`;
  showError(viewLinkError);
}

// Resolves once uPlot is loaded and the page's fixed charts are made (false when uPlot could not be loaded):
// nothing is drawn before.
export let plotsReady = null;
export function setPlotsReady(promise) {
  plotsReady = promise;
}

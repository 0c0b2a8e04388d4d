// gammalab dashboard: sweep list; per sweep the study (final losses per size and variant, multipliers), the
// scaling law, charts of every stored metric and the jobs table; per job its config, metrics, error, state
// history, log tail and checkpoints, with its cancel and retry buttons.
// Live updates: the server sends an SSE "change" event whenever its store changes; we then refetch the
// sweep list and the open sweep's jobs, and append only new points (metrics?after_step=N) of jobs that moved.
// The view (sweep or job, chart settings, zoom) lives in the address: #/sweeps/ID?setting=value&...
// Text from the database reaches the page only as text nodes (dom.js), never as HTML.
import {
  LOSSES, STATE_ORDER, ACTIVE_STATES, setMeta, isFailed, stateClass, int, jobInfo, appendColumns,
  afterStepFor, groupColours, lossTables, si, count, fitReports,
  ema, seedBand, TOO_FEW_FOR_T, seedKey, sortRows, filterRows, seriesCsv, settingsToQuery, settingsFromQuery, settingsProblems, stageJobs, sweepStatus, missingFitReason, configDiff,
  tuneSeries, jobActions, bytesText, WALL_CLOCK, wallClock, metricAtStep, meanSe,
} from './series.js';
import { LossChart, ScalingChart, SurfaceChart, TuneChart } from './charts.js';
import { branchOf, branchLabel, branchColour, interpolate, leadPoint, familyIds, soloIds } from './family.js';
import { HttpError, getAnswer, getJSON, getOptional, postJSON, events as eventStream } from './api.js';
import { h, fill, download, shown } from './dom.js';
import { renderJobLog, watchJobLogRaw } from './job_log.js';
import { isoTime, isoUtc } from './when.js';
import { TableFit } from './table_fit.js';
import { renderAnnotation, startSearch } from './annotations.js';
import { alertBadge, alertsByJob, mergeAlerts, newestAlertId, renderJobAlerts, renderSweepAlerts } from './alerts.js';
import { openViewLink, startViewsMenu } from './saved_views.js';
import { tuneSeedPoints } from './tune_seeds.js';
import { drawParallel, parallelView } from './parallel.js';
import { BUILT_IN, groupValue, orderedGroups, orderedBy, groupingName, groupLabel, useTags } from './grouping.js';
import { fmt, renderStudyTable, scalingView, scalingLegend, surfaceView, surfaceLegend, fitTable, tunePicks, tuneStyles } from './study.js';
import { ensureSession, sessionStatus } from './session.js';
import { FIXED_PATHS, jobConfig, varyingPaths, defaultConfigPaths, configText, shownColumnKeys } from './config_columns.js';
import { startTheme, themeChoice, setThemeChoice } from './theme.js';
import { overlayGroup, overlayLabel, overlayIds, overlayChoices, overlayGroups, overlayColours } from './overlay.js';

const $ = (id) => document.getElementById(id);
// Bar colours by position in STATE_ORDER (running, leased, pending, succeeded, failed, cancelled).
const STATE_COLOURS = ['#0072b2', '#56b4e9', '#c5cbd6', '#1a8f5a', '#c53030', '#b7791f'];
// Points per series asked of the API for a job's own charts and a sweep's live appends: four per pixel column
// of a wide chart (the API keeps each bucket's first, last, lowest and highest point).
const MAX_POINTS = 4000;

// Settings of the view, held in the address; their defaults are what an address without them means.
const DEFAULTS = {
  xKey: 'step', logX: false, logY: false, groupBy: 'variant', panelBy: 'none', seeds: 'runs', smoothing: 0,
  metrics: [], hidden: [], hiddenRuns: [], scalingHidden: [], compare: [], scalingLoss: 'loss', scalingX: 'params', unfinished: false,
  sort: '', desc: false, filter: '', x0: null, x1: null, stage: 'main',
  columns: [],  // the jobs table's columns shown (keys: fixed ones, config paths); empty: the sweep's default
  with: [],     // other sweeps (ids) whose runs the metric charts draw over this one's (overlay.js)
};
let settings = { ...DEFAULTS };

const state = {
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

let uPlot = null;
const lossCharts = new Map();  // figure id -> LossChart
let scalingChart = null;
let surfaceChart = null;
let tuneChart = null;
let jobCharts = new Map();

// ---- the address

function parseHash() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const m = path.match(/^\/(sweeps|jobs)\/([^/]+)/);
  return { kind: m?.[1] || null, id: m ? decodeURIComponent(m[2]) : null, query };
}

// Writes the settings into the address (replacing the entry: settings are not history steps).
function saveSettings() {
  const r = parseHash();
  if (r.kind !== 'sweeps') return;
  const q = settingsToQuery(settings, { ...DEFAULTS, metrics: defaultMetrics() });
  const hash = `#/sweeps/${encodeURIComponent(r.id)}${q ? `?${q}` : ''}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

function readSettings() {
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

function defaultMetrics() {
  return [LOSSES.train, LOSSES.val].filter(Boolean);
}

function showError(message) {
  $('error').hidden = !message;
  $('error').textContent = shown(message || '');
}

// ---- sweep list

function countsOf(sweep) {
  return STATE_ORDER.map((s) => [s, sweep.job_counts?.[s] || 0]).filter(([, n]) => n > 0);
}

function stackedBar(counts, total) {
  return h('div', { class: 'bar' }, counts.map(([s, n]) => h('span', {
    title: `${n} ${s}`, style: { width: `${(100 * n) / Math.max(1, total)}%`, background: STATE_COLOURS[STATE_ORDER.indexOf(s)] },
  })));
}

// The settings that say how to look at any sweep (axes, grouping, seeds, smoothing, metrics, the scaling chart's
// loss and x, stage), as opposed to one sweep's own (filter, sort, zoom, hidden groups and runs): another sweep
// opened from the list keeps them, in its address.
const VIEW_SETTINGS = ['xKey', 'logX', 'logY', 'groupBy', 'panelBy', 'seeds', 'smoothing', 'metrics', 'scalingLoss',
  'scalingX', 'unfinished', 'stage'];

function renderSweeps() {
  $('no-sweeps').hidden = state.sweeps.length > 0;
  const open = state.sweep?.id;
  const defaults = { ...DEFAULTS, metrics: defaultMetrics() };
  const carried = settingsToQuery(Object.fromEntries(VIEW_SETTINGS.map((k) => [k, settings[k]])),
    Object.fromEntries(VIEW_SETTINGS.map((k) => [k, defaults[k]])));
  fill($('sweeps'), [...state.sweeps].reverse().map((s) => {
    const counts = countsOf(s);
    const summary = counts.map(([k, n]) => `${n} ${k}`).join(' · ') || 'no jobs';
    return h('li', {}, h('a', { href: `#/sweeps/${encodeURIComponent(s.id)}${carried ? `?${carried}` : ''}`, dataset: { sweepId: s.id }, class: s.id === open ? 'selected' : '' },
      h('div', { class: 'name' }, s.name),
      h('div', { class: `sub status-${sweepStatus(s).replace(' ', '-')}` }, `#${s.id} · ${s.total_jobs} jobs${s.finished ? ` · ${sweepStatus(s)}` : ''}`),
      h('div', { class: 'sub' }, summary),
      stackedBar(counts, s.total_jobs)));
  }));
}

// ---- the open sweep

// The open sweep's note and tags (jobId '') or a run's, as last loaded; null where none is written.
// By job id ('' for the sweep's own), rebuilt only when the list is replaced: a table's render asks per run.
let annotationIndex = { of: null, byJob: new Map() };
const annotationOf = (jobId) => {
  if (annotationIndex.of !== state.annotations) {
    annotationIndex = { of: state.annotations, byJob: new Map(state.annotations.map((a) => [a.job_id, a])) };
  }
  return annotationIndex.byJob.get(String(jobId)) ?? null;
};

useTags((job) => annotationOf(job.id)?.tags);  // "colour by" and "panels" by a run's tags

// A note or tags saved from the page: kept in the state at once (the change's event brings the same), redrawn.
function annotationSaved(saved) {
  state.annotations = [...state.annotations.filter((a) => a.job_id !== saved.job_id), ...(saved.updated_ms !== '0' ? [saved] : [])];
  render();
}

function renderSweepHead() {
  const s = state.sweep;
  $('sweep-name').textContent = shown(s.name);
  const created = isoTime(s.created_at);
  renderAnnotation($('sweep-annotation'), { sweepId: s.id, annotation: annotationOf(''), onSaved: annotationSaved });
  $('sweep-meta').textContent = shown([`#${s.id}`, s.file_name, created && `submitted ${created}`, `priority ${s.priority}`,
    `max attempts ${s.max_attempts}`].filter(Boolean).join(' · '));
  fill($('sweep-counts'), countsOf(s).map(([k, n]) => h('span', { class: `badge ${stateClass(k)}` }, `${n} ${k}`)));
  // A sweep that ended with failures says so above everything else, with where to look.
  const status = sweepStatus(s);
  const failed = s.job_counts?.failed || 0;
  $('sweep-banner').hidden = !status.endsWith('failed');
  $('sweep-banner').textContent = status === 'failed'
    ? `This sweep failed: none of its ${s.total_jobs} jobs succeeded. Each failed job's error is in the jobs table below.`
    : status === 'partly failed'
      ? `This sweep partly failed: ${failed} of its ${s.total_jobs} jobs failed. Their errors are in the jobs table below; the study and the fits read the jobs that succeeded.`
      : '';
  renderSweepAlerts($('sweep-alerts'), state.alerts, s.id);
}

function paramsByPreset(runs = state.runs) {
  const out = new Map();
  for (const r of runs) if (r.preset && r.params != null) out.set(r.preset, r.params);
  return out;
}

// The overlaid sweeps that loaded, in the order chosen.
function overlays() {
  return overlayIds(settings.with, state.sweep?.id).map((id) => state.overlays.get(id)).filter((o) => o?.sweep);
}

// The overlaid sweep a job belongs to (undefined for the open sweep's own).
let overlayOfJob = new Map();

// Groups, colours and order of the jobs under a key ("variant" or "preset"): the open sweep's, then each
// overlaid sweep's as groups of their own (overlay.js). groupOf(job): its group's key; labels: key -> legend text.
function groupsBy(by) {
  const own = orderedGroups(state.jobs, by, paramsByPreset());
  overlayOfJob = new Map();
  for (const o of overlays()) for (const j of o.jobs) overlayOfJob.set(j.id, o);
  const { groups, labels } = overlayGroups(own, overlays().map((o) => ({
    id: o.sweep.id, name: o.sweep.name, groups: orderedGroups(o.jobs, by, paramsByPreset(o.runs)),
  })));
  for (const group of own) labels.set(group, groupLabel(group, by));
  // The open sweep's groups keep the colours they have without an overlay; the overlaid ones take the farthest.
  const ownColours = groupColours(own, orderedBy(state.jobs, by));
  const colours = new Map([...ownColours, ...overlayColours(groups.slice(own.length), ownColours.values())]);
  const groupOf = (job) => {
    const o = overlayOfJob.get(job.id);
    return o ? overlayGroup(o.sweep.id, groupValue(job, by)) : groupValue(job, by);
  };
  return { by, groups, labels, colours, groupOf, colourOf: (job) => colours.get(groupOf(job)) };
}

// A curve's or a run's name as the charts give it: an overlaid sweep's runs carry their sweep's name first.
function chartName(job, text) {
  const o = overlayOfJob.get(job.id);
  return o ? overlayLabel(o.sweep.name, text) : text;
}

// Every job's points the charts may draw, the open sweep's and the overlaid sweeps'.
function chartMetrics() {
  const all = overlays();
  if (!all.length) return state.metrics;
  return new Map([...state.metrics, ...all.flatMap((o) => [...o.metrics])]);
}

// The legend's keys are buttons, rebuilt only when the groups change (a double-click must land on the button
// its first click hit); toggling only changes their class.
let legendKey = '';
function renderLegend(g) {
  const sizes = paramsByPreset();
  const hidden = new Set(settings.hidden);
  const branches = state.jobs.some((j) => branchOf(j));
  const key = JSON.stringify([g.by, g.groups, [...g.labels], [...g.colours], state.jobs.some(isFailed), branches]);
  if (key !== legendKey) {
    legendKey = key;
    const keys = g.groups.map((group) => h('button', {
      type: 'button', class: 'key', dataset: { group },
      title: 'click: show or hide; double-click: show only this one',
      onclick: () => {
        const set = new Set(settings.hidden);
        if (set.has(group)) set.delete(group);
        else set.add(group);
        settings.hidden = [...set];
        changed();
      },
      ondblclick: () => {
        settings.hidden = g.groups.filter((x) => x !== group);
        changed();
      },
    }, h('span', { class: 'swatch', style: { background: g.colours.get(group) } }), g.labels.get(group) ?? group,
    g.by === 'preset' && sizes.has(group) ? h('span', { class: 'note' }, ` (${count(sizes.get(group))})`) : null));
    keys.unshift(h('span', { class: 'key note by' }, `colour: ${groupingName(g.by)}`));
    if (state.jobs.some(isFailed)) keys.push(h('span', { class: 'key note' }, 'dashed: failed'));
    if (branches) keys.push(h('span', { class: 'key note branches-note' }, 'fainter: a cooldown branch, in its run\'s colour, from the point where it leaves its run'));
    fill($('legend'), keys);
  }
  for (const b of $('legend').querySelectorAll('button.key')) b.classList.toggle('off', hidden.has(b.dataset.group));
}

// ---- study: final loss per size and variant, multipliers

function renderStudy() {
  renderStudyTable({ table: $('study'), empty: $('study-empty'), multipliersEl: $('multipliers') }, state.runs, state.fits,
    settings.scalingLoss);
}

// ---- tune stage: mean final loss against the tuned value per group

function renderTune() {
  const tune = tuneSeries(state.sweep.tune_report_json);
  $('tune-card').hidden = !tune;
  if (!tune) return;
  const styles = tuneStyles(tune);
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const seeds = tuneSeedPoints(tune, state.jobs, (job) => runOf.get(job.id)?.loss);
  tuneChart.update({ tune, colourOf: styles.colourOf, dashOf: styles.dashOf, seeds });
  fill($('tune-picks'), tunePicks(tune, styles.colours, state.sweep.stage_error));
  const lossOf = (job) => runOf.get(job.id)?.loss ?? NaN;
  const figure = $('chart-parallel');
  const key = JSON.stringify([state.jobs.filter((j) => j.stage === 'tune').map((j) => [j.id, j.config_hash, lossOf(j)]), tune.field,
    figure.querySelector('.plot').clientWidth]);
  if (key !== parallelKey) {
    parallelKey = key;
    drawParallel(figure, parallelView(state.jobs, lossOf, tune.field));
  }
}
let parallelKey = '';  // what the parallel coordinates were drawn from: redrawn only when it changes

// ---- metric charts

const slug = (text) => String(text).replace(/[^A-Za-z0-9_-]+/g, '-');

// The curves any job of the sweep has stored, in the order of /api/meta's list, which names every curve the
// trainer prints. A stored name outside it is a marker, not a curve (branch_point: a run's checkpoint for a
// cooldown branch is written, docs/branches.md), and gets no chart.
let META_METRICS = [];
function storedMetrics(metricsMap = state.metrics) {
  const names = new Set();
  for (const store of metricsMap.values()) for (const [n, col] of Object.entries(store)) if (col.step.length) names.add(n);
  return META_METRICS.filter((n) => names.has(n));
}

function renderMetricList() {
  renderXChoices();
  const names = storedMetrics();
  const chosen = new Set(settings.metrics);
  fill($('metric-list'), names.map((n) => h('label', {}, h('input', {
    type: 'checkbox', checked: chosen.has(n), dataset: { metric: n },
    onchange: (e) => {
      const set = new Set(settings.metrics);
      if (e.target.checked) set.add(n);
      else set.delete(n);
      settings.metrics = names.filter((x) => set.has(x));
      changed();
    },
  }), n)));
}

// Compute per token of each job (6N by the runs' sizes), for x = FLOPs.
function flopsPerToken() {
  const out = new Map();
  for (const r of [...state.runs, ...overlays().flatMap((o) => o.runs)]) if (r.compute > 0 && r.tokens > 0) out.set(r.id, r.compute / r.tokens);
  return out;
}

const X_LABELS = { step: 'step', tokens: 'tokens', flops: 'compute (FLOPs)', wall: 'training time (s)' };
// x = a logged metric ("metric:NAME"): the run's value of that metric at each point's step (series.js metricAtStep).
const METRIC_X = 'metric:';
const xMetric = () => (settings.xKey.startsWith(METRIC_X) ? settings.xKey.slice(METRIC_X.length) : null);
const xLabel = () => X_LABELS[settings.xKey] ?? xMetric() ?? settings.xKey;
// Points whose x repeats or goes back on a metric axis, per render: not drawn, and said under the legend.
let xDropped = { points: 0, runs: new Set() };

// The column a chart's x is read from (wall time is read at the points' steps), and the map from it to x for
// one job: FLOPs from tokens by the run's compute per token, wall time from the run's training clock (series.js
// wallClock). Null map: x is the column itself; undefined: the job has no x on this axis.
const xColumn = () => (settings.xKey === 'tokens' || settings.xKey === 'flops' ? 'tokens' : 'step');
function xMap(job, perToken, metrics = state.metrics) {
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
function sharedXRange(curves) {
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

function chartCurves(metric, panelJobs, g) {
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

// Over the metric charts: the sweeps overlaid (each a chip that takes it off again, in its first group's colour)
// and a menu to add another. Rebuilt only when they change, so that a live update leaves an open menu alone.
let overlayKey = '';
function renderOverlayControl(g) {
  const chosen = overlayIds(settings.with, state.sweep.id);
  const choices = overlayChoices(state.sweeps, state.sweep.id, chosen);
  $('overlay').hidden = !chosen.length && !choices.length;  // (no other sweep to overlay)
  const key = JSON.stringify([chosen.map((id) => [id, state.overlays.get(id)?.sweep?.name, state.overlays.get(id)?.missing]),
    choices.map((s) => [s.id, s.name]), [...g.colours]]);
  if (key === overlayKey) return;
  overlayKey = key;
  const setWith = (ids) => {
    settings.with = ids;
    changed();
    refresh();  // loads a sweep just added
  };
  const chip = (id) => {
    const o = state.overlays.get(id);
    const name = o?.sweep?.name ?? (o?.missing ? `#${id} (no such sweep)` : `#${id}`);
    const first = o?.sweep ? g.groups.find((k) => k.startsWith(overlayGroup(o.sweep.id, ''))) : null;
    return h('span', { class: 'overlay-chip', dataset: { sweepId: id } },
      h('span', { class: 'swatch', style: { background: first ? g.colours.get(first) : 'transparent' } }), name,
      h('button', { type: 'button', class: 'remove', title: `take ${name}'s runs off the charts`, onclick: () => setWith(chosen.filter((x) => x !== id)) }, '×'));
  };
  fill($('overlay'), h('span', { class: 'note' }, chosen.length ? 'with the runs of' : 'overlay the runs of another sweep:'),
    chosen.map(chip),
    choices.length ? h('select', {
      id: 'overlay-add', title: 'draw the runs of another sweep over this one\'s, in colours of their own',
      onchange: (e) => { if (e.target.value) setWith([...chosen, e.target.value]); },
    }, h('option', { value: '' }, chosen.length ? 'add a sweep…' : 'choose a sweep…'),
    choices.map((s) => h('option', { value: s.id }, `${s.name} (#${s.id})`))) : null);
}

// tableJobs: the jobs the table's filter keeps (filteredJobs, computed once per render for the table and the charts).
function renderCharts(g, tableJobs) {
  renderOverlayControl(g);
  // The stage control shows where there is a tune stage; its default leaves the tune trials out, as the study does.
  $('stage-control').hidden = ![...state.jobs, ...overlays().flatMap((o) => o.jobs)].some((j) => j.stage === 'tune');
  // The runs of the chosen stage that the jobs table's filter keeps: the table and the charts show the same runs.
  // An overlaid sweep's runs go through the same stage and filter (its words matched in the sweep's name, the
  // run's name, variant, model, state and error).
  const overlaid = overlays().flatMap((o) => filterRows(o.jobs, (j) => [o.sweep.name, j.name, jobInfo(j).variant, jobInfo(j).preset,
    j.state, j.error], settings.filter));
  const staged = stageJobs([...tableJobs, ...overlaid], settings.stage);
  $('charts-filter-note').hidden = !settings.filter;
  $('charts-filter-note').textContent = settings.filter
    ? `The jobs table's filter "${settings.filter}" applies: ${staged.length} runs drawn.` : '';
  const panels = settings.panelBy === 'none' ? [null] : orderedGroups(staged, settings.panelBy, paramsByPreset());
  const wanted = [];
  for (const metric of settings.metrics) {
    for (const panel of panels) {
      const lossKey = Object.entries(LOSSES).find(([, n]) => n === metric)?.[0];
      const panelId = panel === null ? '' : `--${BUILT_IN.has(settings.panelBy) ? '' : `${slug(settings.panelBy)}-`}${slug(panel)}`;
      const id = `chart-${lossKey || `m-${slug(metric)}`}${panelId}`;
      wanted.push({ id, metric, panel });
    }
  }
  const container = $('charts');
  // Figures no longer wanted go; wanted ones are made once and kept (their uPlot instance with them).
  for (const [id, chart] of lossCharts) {
    if (!wanted.some((w) => w.id === id)) {
      chart.destroy();
      chart.figure.remove();
      lossCharts.delete(id);
    }
  }
  const jobsOf = (w) => (w.panel === null ? staged : staged.filter((j) => groupValue(j, settings.panelBy) === w.panel));
  xDropped = { points: 0, runs: new Set() };
  const curvesOf = new Map(wanted.map((w) => [w.id, chartCurves(w.metric, jobsOf(w), g)]));
  renderXNote();
  const xRange = sharedXRange([...curvesOf.values()].flat());
  // Every figure in its place before any is drawn: a chart drawn while it was alone in its row would be drawn
  // again at once at its width beside the others.
  const charts = wanted.map((w, i) => {
    let chart = lossCharts.get(w.id);
    if (!chart) {
      const figure = h('figure', { class: 'chart', id: w.id, dataset: { metric: w.metric, panel: w.panel ?? '' } },
        h('figcaption', {}, h('span', { class: 'metric' }, w.metric), w.panel === null ? null
          : h('span', { class: 'panel' }, BUILT_IN.has(settings.panelBy) ? ` · ${w.panel}` : ` · ${settings.panelBy} = ${groupLabel(w.panel, settings.panelBy)}`),
          h('button', { type: 'button', class: 'png', title: 'save this chart as PNG', onclick: () => savePng(figure) }, 'PNG'),
          h('div', { class: 'hover readout' })),
        h('div', { class: 'plot' }), h('p', { class: 'empty', hidden: true }, `No ${w.metric} points yet.`));
      chart = new LossChart(uPlot, figure);
      chart.onZoom = zoomTo;
      lossCharts.set(w.id, chart);
    }
    // In the wanted order; a figure already in place is not moved (that would end a hover over it).
    if (container.children[i] !== chart.figure) container.insertBefore(chart.figure, container.children[i] || null);
    return chart;
  });
  wanted.forEach((w, i) => {
    charts[i].update({ curves: curvesOf.get(w.id), xLabel: xLabel(), yLabel: w.metric,
      logX: settings.logX, logY: settings.logY, xRange });
  });
  $('charts-empty').hidden = wanted.length > 0;
}

// Under the legend, on a metric x axis: what it is, and the points not drawn where it repeats or goes back.
function renderXNote() {
  const name = xMetric();
  const note = $('x-axis-note');
  note.hidden = !name;
  if (!name) return;
  const missing = !storedMetrics().includes(name);
  note.textContent = missing ? `x = ${name}: no run of this sweep logged it, so no curve has an x.`
    : `x = ${name}, the run's value of it at each point's step (interpolated between the steps it was logged at).`
      + (xDropped.points ? ` ${name} repeats or goes back in ${xDropped.runs.size} run${xDropped.runs.size === 1 ? '' : 's'}: `
        + `${xDropped.points} point${xDropped.points === 1 ? '' : 's'} share${xDropped.points === 1 ? 's' : ''} an x with a later step's and ${xDropped.points === 1 ? 'is' : 'are'} not drawn.` : '');
}

// The x axis choices: the four fixed ones, then every logged metric of the sweep.
let xChoicesKey = '';
function renderXChoices() {
  const names = storedMetrics();
  const key = JSON.stringify([names, settings.xKey]);
  if (key === xChoicesKey) return;
  xChoicesKey = key;
  const select = $('x-axis');
  for (const old of select.querySelectorAll('optgroup')) old.remove();
  const listed = xMetric() && !names.includes(xMetric()) ? [...names, xMetric()] : names;  // (the address's, until loaded)
  if (listed.length) {
    select.append(h('optgroup', { label: 'a logged metric' }, listed.map((n) => h('option', { value: `${METRIC_X}${n}` }, n))));
  }
  select.value = settings.xKey;
}

// Points per series asked of the API for a sweep's metric charts: about one per pixel of a chart's width (a
// bucket of four points per four pixels keeps each one's lowest and highest point, so no spike is lost). A chart
// cannot show more, and the answer's size, the server's reading and every draw grow with it: 4,000 points per
// series into charts 480 px wide were 13 MB of JSON for 100 runs (docs/perf.md). The widest loss chart there is;
// before the first, the width the charts' grid gives each of the chosen metrics (style.css .charts: columns of
// at least 360 px, 16 px apart), measured with the sweep's section shown for the moment.
const CHART_MIN_WIDTH = 360;
const CHART_GAP = 16;
function seriesPoints() {
  let width = 0;
  for (const chart of lossCharts.values()) width = Math.max(width, chart.plot.clientWidth);
  if (!width) {
    const section = $('sweep');
    const hidden = section.hidden;
    section.hidden = false;
    const row = $('charts').clientWidth;
    section.hidden = hidden;
    const n = Math.max(1, settings.metrics.length);
    const columns = Math.max(1, Math.min(n, Math.floor((row + CHART_GAP) / (CHART_MIN_WIDTH + CHART_GAP))));
    width = (row - (columns - 1) * CHART_GAP) / columns;
  }
  // Whole buckets of four; at least a narrow chart's worth, at most MAX_POINTS.
  return 4 * Math.min(MAX_POINTS / 4, Math.max(64, Math.ceil((width || 600) / 4)));
}

// A zoom changes the metric charts and the zoom's reset button only: those are drawn at once from the points
// the page has, and again when the range's own points came (nothing else of the page waits for either).
function zoomTo(x0, x1) {
  if (x0 === settings.x0 && x1 === settings.x1) return;  // (one drag can report its selection twice)
  settings.x0 = x0;
  settings.x1 = x1;
  saveSettings();
  renderZoomed();
  loadZoom().then((loaded) => {
    if (loaded && state.sweep && parseHash().kind === 'sweeps') renderZoomed();
  }).catch((e) => console.warn(e));
}

// The config fields that vary between the sweep's jobs, offered under "colour by" and "panels" (grouping.js),
// beside the variant and the size; a field the address names that no longer varies stays offered, so the
// select shows what the charts do. Rebuilt only when the list changes (an open select keeps its options).
let groupingChoicesKey = '';
function renderGroupingChoices() {
  const paths = sweepConfigs().paths.filter((p) => p !== 'scale.variant' && p !== 'model.preset');
  const extra = [settings.groupBy, settings.panelBy].filter((p) => p !== 'none' && !BUILT_IN.has(p) && !paths.includes(p));
  const key = JSON.stringify([paths, extra]);
  if (key === groupingChoicesKey) return;
  groupingChoicesKey = key;
  for (const id of ['group-by', 'panel-by']) {
    fill($(id).querySelector('optgroup.fields'), [...paths, ...new Set(extra)].map((p) => h('option', { value: p },
      paths.includes(p) ? p : `${p} (the same in every job)`)));
  }
}

function renderZoomed() {
  const g = groupsBy(settings.groupBy);
  renderCharts(g, filteredJobs(state.jobs, g.colourOf));
  syncControls();
}

const zoomKey = () => JSON.stringify([state.sweep?.id, settings.xKey, settings.x0, settings.x1, settings.metrics]);

// The steps a zoomed x range covers (over every job and chosen metric, one point beyond each end), fetched at
// full resolution (downsampled only where the range still holds more points than the chart has pixels).
async function loadZoom() {
  if (!state.sweep || settings.x0 === null || settings.x1 === null) return;
  const key = zoomKey();
  if (state.zoom?.key === key) return;
  const perToken = flopsPerToken();
  let from = Infinity;
  let to = -Infinity;
  for (const job of state.jobs) {
    for (const metric of settings.metrics) {
      const col = state.metrics.get(job.id)?.[metric];
      if (!col?.step.length) continue;
      const toX = xMap(job, perToken);
      if (toX === undefined) continue;
      const base = col[xColumn()];
      const xOf = (i) => (toX ? toX(base[i]) : base[i]);
      let a = col.step.findIndex((_, i) => xOf(i) >= settings.x0);
      let b = col.step.length - 1;
      while (b >= 0 && xOf(b) > settings.x1) b--;
      if (a < 0 || b < 0) continue;
      a = Math.max(0, a - 1);
      b = Math.min(col.step.length - 1, b + 1);
      from = Math.min(from, col.step[a]);
      to = Math.max(to, col.step[b]);
    }
  }
  if (!(from <= to)) return;
  const body = await getJSON(`/api/sweeps/${state.sweep.id}/metrics?names=${settings.metrics.map(encodeURIComponent).join(',')}`
    + `&from_step=${from}&to_step=${to}&max_points=${seriesPoints()}`);
  const metrics = new Map();
  for (const [id, cols] of Object.entries(body)) {
    const store = {};
    appendColumns(store, cols);
    metrics.set(id, store);
  }
  state.zoom = { key, metrics };
  return true;
}

function savePng(figure) {
  const canvas = figure.querySelector('canvas');
  if (!canvas) return;
  canvas.toBlob((blob) => download(`${state.sweep?.name || 'chart'}-${slug(figure.dataset.metric)}.png`, blob), 'image/png');
}

// CSV of every visible series (raw values, as stored), over all charts.
function visibleCsv() {
  const series = [];
  const seen = new Set();
  for (const chart of lossCharts.values()) {
    const metric = chart.figure.dataset.metric;
    for (const c of chart.curves || []) {
      for (const job of c.jobs) {
        const key = `${job.id}\u0000${metric}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const col = chartMetrics().get(job.id)?.[metric];
        if (col) series.push({ run: chartName(job, job.name), metric, step: col.step, tokens: col.tokens, value: col.value });
      }
    }
  }
  return seriesCsv(series);
}

// ---- scaling law

function renderScaling() {
  const view = scalingView(state.runs, state.fits, { xKey: settings.scalingX, lossKey: settings.scalingLoss, unfinished: settings.unfinished,
    hidden: settings.scalingHidden });
  scalingChart.update(view);
  renderSurface();
  const against = settings.scalingX === 'compute' ? 'final loss vs compute C' : 'final loss vs parameters N';
  $('scaling-caption').textContent = view.surface
    ? `${against}: a size's budgets D lie one above another at its ${settings.scalingX === 'compute' ? 'C' : 'N'}; the law L(N, D) is drawn against D above`
    : against;
  fill($('scaling-legend'), scalingLegend(view, (group) => {
    const hidden = new Set(settings.scalingHidden);
    if (!hidden.delete(group)) hidden.add(group);
    settings.scalingHidden = [...hidden];
    changed();
  }));
  const missing = state.fits.length ? '' : missingFitReason(state.runs);
  fill($('fits'), missing ? h('div', { class: 'no-fit' }, missing) : state.fits.map((report) => fitTable(report, view.colourOf)));
}

// A surface of cooldown branches (several budgets D per size): final loss against D, a line per variant and size,
// with the stored law L(N, D) at each size's N (study.js surfaceView); hidden where each size has one budget.
function renderSurface() {
  const view = surfaceView(state.runs, state.fits, { lossKey: settings.scalingLoss, hidden: settings.scalingHidden });
  $('chart-surface').hidden = !view.surface;
  if (!view.surface) {
    surfaceChart.update({ lines: [], laws: [], colourOf: view.colourOf, markerOf: view.markerOf });
    return;
  }
  surfaceChart.update(view);
  fill($('surface-legend'), surfaceLegend(view));
  const law = state.fits.some((r) => r.law === 'chinchilla');
  $('surface-note').textContent = 'Each point is the mean over seeds of the final loss of the runs and branches with that budget, '
    + 'taken at the end of their decay: a branch is the run to its budget, annealed. The fits use these annealed losses only, '
    + 'never a run\'s stable-phase evaluations (those stay in its curve in the metric charts).'
    + (law ? '' : ' No law L(N, D) is stored for this sweep yet.');
}

// ---- jobs table

function workerName(id) {
  return id ? state.workers.get(id)?.hostname || `worker ${id}` : '';
}

// A run's swatch in the jobs table is its switch in the metric charts: a click hides or shows it, Alt-click
// shows it alone (or, when it is alone already, every run again). Hidden runs are a setting (`hiddenRuns`).
// A run's switch takes its cooldown branches with it, and a branch shown alone keeps its run beside it, the
// line it leaves from (family.js familyIds, soloIds); a branch's own switch hides only the branch.
function runToggle(job, colour) {
  const id = String(job.id);
  const off = settings.hiddenRuns.includes(id);
  const branches = familyIds(state.jobs, id).length > 1;
  const what = branches ? 'this run and its branches' : 'this run';
  return h('button', {
    type: 'button', class: `swatch run-toggle${off ? ' off' : ''}`, style: { background: off ? 'transparent' : colour, borderColor: colour },
    dataset: { jobId: id },
    title: off ? `hidden in the charts: click to show ${what} (Alt-click: alone)` : `click: hide ${what} in the charts (Alt-click: alone)`,
    onclick: (event) => {
      const family = new Set(familyIds(state.jobs, id));
      if (event.altKey) {
        const shownAlone = new Set(soloIds(state.jobs, id));
        const others = state.jobs.map((j) => String(j.id)).filter((x) => !shownAlone.has(x));
        const alone = !off && others.every((x) => settings.hiddenRuns.includes(x))
          && [...shownAlone].every((x) => !settings.hiddenRuns.includes(x));
        settings.hiddenRuns = alone ? [] : others;
        // A run of the stage the charts leave out (a tune run while the main stage is shown) would leave them
        // empty: the charts turn to its stage.
        if (!alone && !stageJobs([job], settings.stage).length) settings.stage = job.stage === 'tune' ? 'tune' : 'main';
      } else {
        settings.hiddenRuns = off ? settings.hiddenRuns.filter((x) => !family.has(x))
          : [...settings.hiddenRuns.filter((x) => !family.has(x)), ...family];
      }
      changed();
    },
  });
}

// Under a branch's name in the jobs table: where it leaves its run, and the run (a link, its name on hover). One
// short line: the branch is listed under its run already, and its own name starts with the run's.
function branchNote(job) {
  const b = branchOf(job);
  if (!b) return null;
  const run = state.jobs.find((j) => String(j.id) === b.parentId);
  return h('div', { class: 'branch-note' }, `branch at step ${b.step} of `,
    h('a', { href: `#/jobs/${encodeURIComponent(b.parentId)}`, title: run ? run.name : '' }, `job ${b.parentId}`));
}

// The fixed columns: header, what sorts (a number or text), the text the filter reads, and the cell.
// A run's tags under its name in the jobs table (its note on hover), where it has any.
function runTags(job) {
  const a = annotationOf(job.id);
  return a?.tags.length ? h('div', { class: 'tags', title: a.note || '' }, a.tags.map((t) => h('span', { class: 'badge tag' }, t))) : null;
}

function fixedColumns(colourOf) {
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const alertsOf = alertsByJob(state.alerts);
  const lastTrain = (j) => (j.has_loss && Number.isFinite(j.last_loss) ? j.last_loss : null);
  return [
    { key: 'job', head: 'job', get: (j) => j.name, cell: (j) => [h('div', { class: 'job-name' }, runToggle(j, colourOf(j)),
      h('a', { href: `#/jobs/${encodeURIComponent(j.id)}` }, j.name)), branchNote(j), runTags(j), j.error ? h('div', { class: 'err' }, j.error) : null] },
    { key: 'variant', head: 'variant', get: (j) => jobInfo(j).variant },
    { key: 'model', head: 'model', get: (j) => jobInfo(j).preset, sortBy: (j) => runOf.get(j.id)?.params ?? null },
    { key: 'state', head: 'state', get: (j) => j.state, cell: (j) => [h('span', { class: `badge ${stateClass(j.state)}` }, j.state),
      j.attempt > 1 ? h('span', { class: 'meta' }, ` try ${j.attempt}`) : null, alertBadge(alertsOf.get(String(j.id)))] },
    { key: 'step', head: 'step / total', num: true, get: (j) => int(j.step), cell: (j) => {
      const total = int(j.total_steps);
      const pct = total > 0 ? Math.min(100, (100 * int(j.step)) / total) : 0;
      return [`${int(j.step)} / ${total}`, h('span', { class: 'progress' }, h('span', { style: { width: `${pct}%` } }))];
    } },
    { key: 'train', head: 'last train loss', num: true, get: lastTrain, cell: (j) => (lastTrain(j) === null ? '–' : lastTrain(j).toFixed(4)) },
    { key: 'val', head: 'final val loss', num: true, get: (j) => runOf.get(j.id)?.final_val_loss ?? null, cell: (j) => fmt(runOf.get(j.id)?.final_val_loss ?? NaN) },
    { key: 'speed', head: 'tokens/s', num: true, get: (j) => (j.tokens_per_s > 0 ? j.tokens_per_s : null), cell: (j) => (j.tokens_per_s > 0 ? si(j.tokens_per_s) : '–') },
    { key: 'worker', head: 'worker', get: (j) => workerName(j.worker_id) },
    { key: 'compare', head: 'compare', get: () => '', cell: (j) => h('input', {
      type: 'checkbox', class: 'compare', title: 'compare this run with the others ticked', checked: settings.compare.includes(String(j.id)),
      dataset: { jobId: j.id },
      onchange: (event) => {
        const id = String(j.id);
        settings.compare = event.target.checked ? [...settings.compare, id] : settings.compare.filter((x) => x !== id);
        changed();
      },
    }) },
  ];
}

// The config fields that vary across the sweep's jobs (config_columns.js), worked out again only when the jobs'
// configs change (a live update brings the same jobs in new states far more often than new jobs).
let configCache = { key: null };
function sweepConfigs() {
  const key = state.jobs.map((j) => `${j.id}:${j.config_hash}`).join(',');
  if (configCache.key !== key) {
    const configs = new Map(state.jobs.map((j) => [j.id, jobConfig(j)]));
    const paths = varyingPaths([...configs.values()]);
    const fixedVarying = varyingPaths([...configs.values()], new Set()).filter((p) => FIXED_PATHS.has(p));
    configCache = { key, configs, paths, defaults: defaultConfigPaths(paths, fixedVarying) };
  }
  return configCache;
}

// A column per varying config field, keyed and headed by its dotted path: sorts by the value itself (numbers
// numerically), shows and filters by its short text (1e-3, 40k).
function configColumns() {
  const { configs, paths } = sweepConfigs();
  return paths.map((path) => {
    const value = (j) => configs.get(j.id)?.get(path);
    const numeric = state.jobs.every((j) => value(j) === undefined || typeof value(j) === 'number');
    const distinct = new Set(state.jobs.map((j) => JSON.stringify(value(j) ?? null))).size;
    return {
      key: path, head: path, config: true, num: numeric, distinct,
      get: (j) => { const v = value(j); return v !== null && typeof v === 'object' ? JSON.stringify(v) : v ?? null; },
      text: (j) => configText(value(j)), cell: (j) => configText(value(j)),
    };
  });
}

// Every column the table can show, in its order (the config fields after the model, with what says what a run
// is), and those the `columns` setting shows.
function jobColumns(colourOf) {
  const fixed = fixedColumns(colourOf);
  const at = fixed.findIndex((c) => c.key === 'model') + 1;
  const all = [...fixed.slice(0, at), ...configColumns(), ...fixed.slice(at)];
  const defaults = [...fixed.map((c) => c.key), ...sweepConfigs().defaults];
  const keys = new Set(shownColumnKeys(all.map((c) => c.key), defaults, settings.columns, 'job'));
  return { all, defaults, shown: all.filter((c) => keys.has(c.key)) };
}

// The column chooser ("Columns" over the table): a box per column, the table's own and then the config fields
// that vary, and a way back to the default. Rebuilt only when its content changes, so that a live update does
// not take a box from under the pointer.
let chooserKey = '';
function renderColumnChooser({ all, defaults, shown }) {
  const on = new Set(shown.map((c) => c.key));
  const key = JSON.stringify([all.map((c) => [c.key, c.distinct]), [...on]]);
  if (key === chooserKey) return;
  chooserKey = key;
  const choose = (k, checked) => {
    const keys = all.map((c) => c.key).filter((x) => (x === k ? checked : on.has(x)));
    // The default chosen by hand is the default: the address stays short, and follows the sweep's fields.
    settings.columns = JSON.stringify(keys) === JSON.stringify(all.map((c) => c.key).filter((x) => defaults.includes(x))) ? [] : keys;
    changed();
  };
  const box = (c) => h('label', { dataset: { column: c.key }, title: c.key === 'job' ? 'always shown: a row\'s name' : '' },
    h('input', { type: 'checkbox', checked: on.has(c.key), disabled: c.key === 'job', onchange: (e) => choose(c.key, e.target.checked) }),
    h('span', { class: c.config ? 'path' : '' }, c.head),
    c.config ? h('span', { class: 'note' }, `${c.distinct} values`) : null);
  const fixed = all.filter((c) => !c.config);
  const config = all.filter((c) => c.config);
  fill($('jobs-columns-menu'),
    h('div', { class: 'group' }, h('div', { class: 'group-head' }, 'table'), fixed.map(box)),
    h('div', { class: 'group config' }, h('div', { class: 'group-head' }, 'config fields that vary'),
      config.length ? config.map(box) : h('div', { class: 'note' }, 'none: every job has the same config')),
    h('button', { type: 'button', class: 'reset', disabled: !settings.columns.length, onclick: () => {
      settings.columns = [];
      changed();
    } }, 'default columns'));
}

// The runs ticked in the jobs table, side by side: their final losses and every config field that differs.
function renderCompare() {
  const jobs = settings.compare.map((id) => state.jobs.find((j) => String(j.id) === id)).filter(Boolean);
  $('compare-card').hidden = jobs.length < 2;
  if (jobs.length < 2) return;
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const losses = [['state', (j) => j.state], ['final train loss', (j) => fmt(runOf.get(j.id)?.final_train_loss ?? NaN)],
    ['final val loss', (j) => fmt(runOf.get(j.id)?.final_val_loss ?? NaN)]];
  const diff = configDiff(jobs);
  fill($('compare'), [
    h('thead', {}, h('tr', {}, h('th', {}, ''), jobs.map((j) => h('th', {}, h('a', { href: `#/jobs/${encodeURIComponent(j.id)}` }, j.name))))),
    h('tbody', {},
      losses.map(([name, get]) => h('tr', { class: 'loss' }, h('th', {}, name), jobs.map((j) => h('td', {}, get(j))))),
      diff.map((row) => h('tr', { class: 'diff', dataset: { path: row.path } }, h('th', {}, row.path), row.values.map((v) => h('td', {}, v)))),
      diff.length ? null : h('tr', {}, h('td', { colspan: jobs.length + 1 }, 'Their configs are equal.')))]);
}

// The jobs the table's filter keeps: those with every word of it in some shown column (as shown: a config
// value's short text), in their error, or in their note and tags.
function filteredJobs(jobs, colourOf) {
  const cols = jobColumns(colourOf).shown;
  return filterRows(jobs, (j) => [...cols.map((c) => (c.text ? c.text(j) : c.get(j))), j.error,
    ...(annotationOf(j.id)?.tags || []), annotationOf(j.id)?.note], settings.filter);
}

// The columns that go first when the table is wider than its card, least needed to tell runs apart and see how
// they do first: the worker, speed, last train loss, then model and variant (the job's name says both), then
// the config fields that vary from the last.
function fitOrder(cols) {
  const config = cols.filter((c) => c.config).map((c) => c.key).reverse();
  return ['worker', 'speed', 'train', 'model', 'variant', ...config].filter((k) => cols.some((c) => c.key === k));
}

let jobsFit = null;  // made on the first drawing, when the page is there to measure
let lastJobsRender = null;  // the arguments of the last drawing, for a redraw when the card's width changes

function renderJobs(groups, tableJobs) {
  lastJobsRender = [groups, tableJobs];
  const columns = jobColumns(groups.colourOf);
  renderColumnChooser(columns);
  const chosen = columns.shown;
  const table = $('jobs');
  let rows = tableJobs;
  const by = chosen.find((c) => c.key === settings.sort);
  if (by) rows = sortRows(rows, by.sortBy || by.get, settings.desc);
  const draw = (dropped) => {
    const cols = chosen.filter((c) => !dropped.has(c.key));
    fill(table.tHead, h('tr', {}, cols.map((c) => h('th', {
      class: [c.num ? 'num' : '', 'sortable', settings.sort === c.key ? (settings.desc ? 'desc' : 'asc') : ''].join(' ').trim(),
      dataset: { key: c.key }, title: c.config ? `config field ${c.key}: sort by it (again: reverse)` : 'sort by this column (again: reverse)',
      onclick: () => {
        if (settings.sort === c.key) settings.desc = !settings.desc;
        else Object.assign(settings, { sort: c.key, desc: false });
        changed();
      },
    }, c.head))));
    fill(table.tBodies[0], rows.map((j) => h('tr', { class: branchOf(j) ? 'branch' : '', dataset: { jobId: j.id, state: j.state } },
      cols.map((c) => h('td', { class: [c.num ? 'num' : '', c.config ? 'config' : ''].join(' ').trim() || null, dataset: { key: c.key } },
        c.cell ? c.cell(j) : c.get(j))))));
  };
  jobsFit ??= new TableFit(document.querySelector('#jobs-card .table-wrap'));
  const dropped = jobsFit.fit(table, chosen.map((c) => c.key).join(' '), fitOrder(chosen), draw);
  const heads = dropped.map((k) => chosen.find((c) => c.key === k).head);
  $('jobs-fit-note').hidden = !heads.length;
  $('jobs-fit-note').textContent = heads.length
    ? `Left out to fit the window: ${heads.join(', ')} (a wider window shows them; Columns chooses).` : '';
  const running = state.jobs.filter((j) => ACTIVE_STATES.has(j.state)).length;
  $('jobs-summary').textContent = `${state.jobs.length} jobs${running ? `, ${running} running` : ''}`
    + (rows.length !== state.jobs.length ? ` (${rows.length} shown)` : '');
}

// ---- job view

function renderJob() {
  const { job, metrics, sweep } = state.job;
  $('job-name').textContent = shown(job.name);
  renderAnnotation($('job-annotation'), { sweepId: job.sweep_id, jobId: String(job.id), annotation: state.job.annotation,
    onSaved: (saved) => { state.job.annotation = saved.updated_ms !== '0' ? saved : null; } });
  const when = (t, what) => (isoTime(t) ? `${what} ${isoTime(t)}` : '');
  $('job-meta').textContent = shown([`#${job.id}`, sweep ? `sweep ${sweep.name}` : '', job.stage ? `${job.stage} stage` : '',
    `attempt ${job.attempt} of ${job.max_attempts}`, job.worker_id ? `worker ${workerName(job.worker_id)}` : '',
    when(job.created_at, 'queued'), when(job.started_at, 'started'), when(job.finished_at, 'finished'),
    job.reused_from ? `reuses the results of job ${job.reused_from}` : '',
    branchOf(job) ? `cooldown branch of job ${branchOf(job).parentId} at step ${branchOf(job).step} (its curve starts after it)` : '',
    job.branch_points?.length ? `cooldown branches at steps ${job.branch_points.map(int).join(', ')}` : ''].filter(Boolean).join(' · '));
  fill($('job-state'), h('span', { class: `badge ${stateClass(job.state)}` }, job.state), ` step ${int(job.step)} / ${int(job.total_steps)}`);
  $('job-error').hidden = !job.error;
  $('job-error').textContent = shown(job.error || '');
  renderJobAlerts($('job-alerts'), state.job.alerts || []);
  let config = job.config_json;
  try {
    config = JSON.stringify(JSON.parse(job.config_json), null, 2);
  } catch {
    /* shown as stored */
  }
  $('job-config').textContent = shown(config);
  renderJobActions(job);
  renderJobHistory(state.job.events);
  renderJobLog(state.job.log);
  renderJobCheckpoints(state.job.checkpoints);
  $('job-sweep-link').href = sweep ? `#/sweeps/${encodeURIComponent(sweep.id)}` : '#/';
  const names = storedMetrics(new Map([[job.id, metrics]]));
  const container = $('job-charts');
  for (const [name, chart] of jobCharts) if (!names.includes(name)) { chart.destroy(); chart.figure.remove(); jobCharts.delete(name); }
  for (const name of names) {
    let chart = jobCharts.get(name);
    if (!chart) {
      const figure = h('figure', { class: 'chart', dataset: { metric: name } }, h('figcaption', {}, h('span', { class: 'metric' }, name), h('div', { class: 'hover readout' })),
        h('div', { class: 'plot' }), h('p', { class: 'empty', hidden: true }, 'No points.'));
      chart = new LossChart(uPlot, figure);
      jobCharts.set(name, chart);
    }
    container.append(chart.figure);
    const col = metrics[name];
    chart.update({ curves: [{ id: job.id, label: job.name, colour: '#0072b2', dash: isFailed(job), xs: col.step, ys: col.value, raw: col.value, band: null, jobs: [job] }],
      xLabel: 'step', yLabel: name, logX: false, logY: false });
  }
}


// Cancel and retry, shown as the job's state allows; the coordinator checks again (409 otherwise).
function renderJobActions(job) {
  const allowed = jobActions(job.state);
  $('job-cancel').hidden = !allowed.cancel;
  $('job-retry').hidden = !allowed.retry;
  $('job-cancel').dataset.jobId = job.id;
  $('job-retry').dataset.jobId = job.id;
  // What the last action answered holds until the job moves on (or another job is shown).
  const status = $('job-action-status');
  if (status.dataset.jobId !== job.id || status.dataset.state !== job.state) status.textContent = '';
}

async function jobAction(action) {
  const id = $(`job-${action}`).dataset.jobId;
  const name = state.job?.job?.name || id;
  if (!window.confirm(`${action === 'cancel' ? 'Cancel' : 'Retry'} job ${name}?`)) return;
  const status = $('job-action-status');
  status.textContent = `${action}…`;
  try {
    const job = await postJSON(`/api/jobs/${encodeURIComponent(id)}/${action}`);
    Object.assign(status.dataset, { jobId: job.id, state: job.state });
    status.textContent = action === 'cancel' && ACTIVE_STATES.has(job.state)
      ? 'cancel requested: its worker stops it' : `${action === 'cancel' ? 'cancelled' : 'queued again'}`;
  } catch (e) {
    Object.assign(status.dataset, { jobId: id, state: state.job?.job?.state || '' });
    status.textContent = shown(`${action} refused: ${e.message}`);
  }
  refresh();
}

function renderJobHistory(history) {
  const events = history?.events || [];
  $('job-history-meta').textContent = shown(`${events.length} event${events.length === 1 ? '' : 's'}${history?.earlier ? ' (the newest; earlier ones left out)' : ''}`);
  fill($('job-history').tBodies[0], events.map((e) => h('tr', { dataset: { kind: e.kind, state: e.state } },
    h('td', { class: 'when', title: isoUtc(e.at_ms) }, isoTime(e.at_ms)),
    h('td', {}, e.kind.replace(/_/g, ' ')),
    h('td', {}, h('span', { class: `badge ${stateClass(e.state)}` }, e.state)),
    h('td', { class: 'num' }, e.attempt ? String(e.attempt) : ''),
    h('td', {}, e.worker_id ? (e.worker || `worker ${e.worker_id}`) : ''),
    h('td', { class: 'detail' }, e.detail))));
}

function renderJobCheckpoints(list) {
  const files = list?.checkpoints || [];
  $('job-ckpt-meta').textContent = files.length
    ? `${files.length} in ${list.dir}${list.truncated ? ' (the newest; more not listed)' : ''}`
    : list?.refused ? `not listed: ${list.refused}` : `none in ${list?.dir || 'its checkpoint directory'}`;
  fill($('job-checkpoints').tBodies[0], files.map((f) => h('tr', {},
    h('td', {}, h('code', {}, f.name)), h('td', { class: 'num' }, int(f.step).toLocaleString('en-US')),
    h('td', { class: 'num' }, bytesText(f.bytes)), h('td', { class: 'when', title: isoUtc(f.modified_ms) }, isoTime(f.modified_ms)))));
}

// ---- render

let renderedFor = null;  // the address the page was last drawn for

// The chart under the pointer keeps its place on the screen while a render changes the cards above it (a study
// row or a fit that arrives, a banner): the page scrolls by as much as they grew or shrank. The browser's own
// scroll anchoring does this only once the page is scrolled, not at its top, where the charts are read most.
function render() {
  renderedFor = location.hash;
  const hovered = document.querySelector('#charts figure.chart:hover');
  const top = hovered?.getBoundingClientRect().top;
  renderPage();
  if (hovered?.isConnected) {
    const moved = hovered.getBoundingClientRect().top - top;
    if (moved) window.scrollBy(0, moved);
  }
}

function renderPage() {
  renderSweeps();
  const r = parseHash();
  const jobOpen = r.kind === 'jobs' && state.job;
  const open = Boolean(state.sweep) && !jobOpen;
  $('sweep').hidden = !open;
  $('job').hidden = !jobOpen;
  $('welcome').hidden = open || jobOpen;
  if (jobOpen) {
    renderJob();
    document.body.dataset.ready = '1';
    return;
  }
  if (!open) return;
  renderSweepHead();
  renderGroupingChoices();
  const g = groupsBy(settings.groupBy);
  renderLegend(g);
  const tableJobs = filteredJobs(state.jobs, g.colourOf);
  renderMetricList();
  renderCharts(g, tableJobs);
  renderStudy();
  renderTune();
  renderScaling();
  syncControls();
  // The jobs table and the compare card, at the page's foot: when a sweep opens, drawn after the first frame of
  // the rest (a table of 100 runs, its layout and paint held the charts back by about 0.1 s); then with it.
  const gen = ++renderGen;
  const foot = () => {
    if (gen !== renderGen || !state.sweep) return;  // (a later render draws them)
    renderJobs(g, tableJobs);
    renderCompare();
    footFor = state.sweep.id;
    document.body.dataset.ready = '1';
  };
  if (footFor === state.sweep.id) foot();
  else afterFrame(foot);
}

let renderGen = 0;     // renders of a sweep so far: a deferred foot of an older one is not drawn
let footFor = null;    // the sweep whose jobs table is drawn

// fn once, after the next frame is drawn (or after 200 ms: a hidden page draws no frames).
function afterFrame(fn) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 200);
}

// A setting changed: into the address, then drawn.
function changed() {
  saveSettings();
  render();
}

// ---- loading and live updates

async function fetchWorkersIfNeeded(jobs) {
  if (jobs.some((j) => j.worker_id && !state.workers.has(j.worker_id))) {
    const workers = await getJSON('/api/workers');
    state.workers = new Map(workers.map((w) => [w.id, w]));
  }
}

let runsTimer = null;
let runsAt = 0;
let runsText = '';  // the runs and fits answers drawn last
// Runs (sizes and final losses) and fits change only when jobs finish: refetched then, at most every 3 s.
function scheduleRunsRefresh() {
  if (runsTimer) return;
  const wait = Math.max(0, runsAt + 3000 - Date.now());
  runsTimer = setTimeout(async () => {
    runsTimer = null;
    runsAt = Date.now();
    const id = state.sweep?.id;
    if (!id) return;
    try {
      const [runs, fits] = await Promise.all([getJSON(`/api/sweeps/${id}/runs`), getOptional(`/api/sweeps/${id}/fits`)]);
      if (state.sweep?.id !== id) return;
      // Often nothing new (the refresh is asked for whenever a change may be a new fit): then nothing is drawn.
      const text = JSON.stringify([runs, fits]);
      if (text === runsText) return;
      runsText = text;
      state.runs = runs;
      state.fits = fitReports(fits);
      render();
    } catch (e) {
      console.warn(e);
    }
  }, wait);
}

// A sweep's jobs now, from the `jobs` held and the `mark` of the answer they came from ({seq, basis}, or null):
// the jobs written since merged into those held, or the whole list when nothing is held or the basis of the
// pending reasons moved (a worker came or went: a pending job's reason may change without its row). So a page
// open on a sweep of 30,000 jobs is sent what changed, not the sweep, on each change. Returns {jobs, mark}.
async function sweepJobs(id, jobs, mark) {
  if (mark?.seq != null) {
    const { body, headers } = await getAnswer(`/api/sweeps/${id}/jobs?changed_after=${mark.seq}`);
    if (headers.get('X-Pending-Basis') === mark.basis) {
      return { jobs: mergeJobs(jobs, body), mark: { seq: headers.get('X-Change-Seq'), basis: mark.basis } };
    }
  }
  const { body, headers } = await getAnswer(`/api/sweeps/${id}/jobs`);
  return { jobs: body, mark: { seq: headers.get('X-Change-Seq'), basis: headers.get('X-Pending-Basis') } };
}

// `held` with each of `changed` in its place (by id); a new job joins in id order, which is the sweep's order.
function mergeJobs(held, changed) {
  if (changed.length === 0) return held;
  const byId = new Map(held.map((j) => [j.id, j]));
  let added = false;
  for (const j of changed) {
    if (!byId.has(j.id)) added = true;
    byId.set(j.id, j);  // an id already held keeps its place
  }
  const out = [...byId.values()];
  if (added) out.sort((a, b) => Number(a.id) - Number(b.id));
  return out;
}

// Every request at once (the API takes a sweep's name or id in each), the workers too when its jobs name any:
// one round trip before the first draw, not three.
async function loadSweep(id) {
  const at = encodeURIComponent(id);
  const [sweep, listed, metrics, runs, fits, annotations, alerts] = await Promise.all([
    getJSON(`/api/sweeps/${at}`),
    sweepJobs(at, null, null).then(async (answer) => {
      await fetchWorkersIfNeeded(answer.jobs);
      return answer;
    }),
    getJSON(`/api/sweeps/${at}/metrics?max_points=${seriesPoints()}`),
    getJSON(`/api/sweeps/${at}/runs`),
    getOptional(`/api/sweeps/${at}/fits`),
    getJSON(`/api/sweeps/${at}/annotations`),
    getJSON(`/api/sweeps/${at}/alerts`),
  ]);
  const jobs = listed.jobs;
  state.annotations = annotations.annotations;
  state.alerts = alerts.alerts || [];
  state.sweep = sweep;
  state.jobs = jobs;
  state.jobsMark = listed.mark;
  state.metrics = new Map();
  for (const job of jobs) {
    const store = {};
    appendColumns(store, metrics[job.id]);
    state.metrics.set(job.id, store);
  }
  state.runs = runs;
  state.fits = fitReports(fits);
  runsText = JSON.stringify([runs, fits]);
  state.loadedFor = sweep.id;
  runsAt = Date.now();
}

// After a change: the open sweep's jobs, then new points only for jobs that moved (or are running). Whether
// anything the page shows came with it (the jobs, new points, the sweep), so that an answer with nothing new is
// not drawn again.
async function updateSweep() {
  const id = state.sweep.id;
  // Alerts raised since the newest one shown (raising one is a change of its job: the event stream brings it).
  const [listed, annotations, alerts] = await Promise.all([sweepJobs(id, state.jobs, state.jobsMark),
    getJSON(`/api/sweeps/${id}/annotations`), getJSON(`/api/sweeps/${id}/alerts?after=${newestAlertId(state.alerts)}`)]);
  if (state.sweep?.id !== id) return true;
  const newAlerts = (alerts.alerts || []).length > 0;
  if (newAlerts) state.alerts = mergeAlerts(state.alerts, alerts.alerts);
  // Notes and tags written elsewhere (the CLI, another page) arrive with the next change.
  const annotationsChanged = JSON.stringify(annotations.annotations) !== JSON.stringify(state.annotations);
  state.annotations = annotations.annotations;
  const jobs = listed.jobs;
  const before = new Map(state.jobs.map((j) => [j.id, j]));
  let stateChanged = false;
  let jobsChanged = false;
  for (const j of jobs) {
    const prev = before.get(j.id);
    if (!prev || prev.state !== j.state) stateChanged = true;
    if (!prev || prev.state !== j.state || prev.step !== j.step || prev.attempt !== j.attempt) jobsChanged = true;
  }
  const added = await appendNewPoints(jobs, before, state.metrics);
  if (state.sweep?.id !== id) return true;
  // The list's sweeps leave out the source and the tune report: the sweep itself is refetched when a job's
  // state changed (a tune stage that ended brings its report and the main stage's jobs).
  const full = stateChanged ? await getJSON(`/api/sweeps/${id}`) : null;
  if (state.sweep?.id !== id) return true;
  const news = added > 0 || full !== null || annotationsChanged || newAlerts || JSON.stringify(jobs) !== JSON.stringify(state.jobs);
  state.jobs = jobs;
  state.jobsMark = listed.mark;
  const summary = state.sweeps.find((s) => s.id === id);
  state.sweep = full || (summary ? { ...summary, tune_report_json: state.sweep.tune_report_json, stage_error: state.sweep.stage_error } : state.sweep);
  // A change that none of this sweep's jobs explains may be a new fit: the coordinator refits a few seconds
  // after jobs succeed, when the state change that triggered the last runs refresh is already past.
  if (stateChanged || !jobsChanged || settings.unfinished) scheduleRunsRefresh();
  return news;
}

// New points of the jobs that moved since `before` (job id -> the job as last fetched) or are running, appended
// to `metrics` (job id -> columns). Returns how many points came.
async function appendNewPoints(jobs, before, metrics) {
  const moved = jobs.filter((j) => {
    const prev = before.get(j.id);
    return !prev || prev.state !== j.state || prev.step !== j.step || ACTIVE_STATES.has(j.state);
  });
  let added = 0;
  await pool(moved, 6, async (job) => {
    const store = metrics.get(job.id) || {};
    const after = afterStepFor(store, Object.keys(store));
    const cols = await getJSON(`/api/jobs/${job.id}/metrics?after_step=${after}&max_points=${MAX_POINTS}`);
    added += appendColumns(store, cols);
    metrics.set(job.id, store);
  });
  return added;
}

// The overlaid sweeps (settings.with): each loaded once in bulk as the open sweep is, then its new points as its
// jobs move; one that has finished is not asked again. A sweep that is gone is kept as missing, and its chip says so.
// Whether anything the charts show changed with it (an overlay added, dropped or grown).
async function syncOverlays() {
  const ids = overlayIds(settings.with, state.sweep.id);
  let news = false;
  for (const id of [...state.overlays.keys()]) {
    if (!ids.includes(id)) {
      state.overlays.delete(id);
      news = true;
    }
  }
  await Promise.all(ids.map(async (id) => {
    const o = state.overlays.get(id);
    if (o?.missing) return;
    if (!o) {
      const sweep = await getJSON(`/api/sweeps/${encodeURIComponent(id)}`).catch((e) => {
        if (e instanceof HttpError && e.status === 404) return null;
        throw e;  // (a lost session among them: the sign-in form, as for the open sweep)
      });
      news = true;
      if (!sweep) {
        state.overlays.set(id, { missing: true });
        return;
      }
      const [listed, metrics, runs] = await Promise.all([sweepJobs(sweep.id, null, null),
        getJSON(`/api/sweeps/${sweep.id}/metrics?max_points=${seriesPoints()}`), getJSON(`/api/sweeps/${sweep.id}/runs`)]);
      const store = new Map(listed.jobs.map((j) => {
        const cols = {};
        appendColumns(cols, metrics[j.id]);
        return [j.id, cols];
      }));
      state.overlays.set(id, { sweep, jobs: listed.jobs, jobsMark: listed.mark, metrics: store, runs });
      return;
    }
    const listed = state.sweeps.find((s) => String(s.id) === id);
    if (o.sweep.finished && listed?.finished) return;
    const { jobs, mark } = await sweepJobs(o.sweep.id, o.jobs, o.jobsMark);
    if (await appendNewPoints(jobs, new Map(o.jobs.map((j) => [j.id, j])), o.metrics) > 0) news = true;
    if (JSON.stringify(jobs) !== JSON.stringify(o.jobs)) news = true;
    const runs = await getJSON(`/api/sweeps/${o.sweep.id}/runs`);
    if (JSON.stringify(runs) !== JSON.stringify(o.runs)) news = true;
    Object.assign(o, { jobs, jobsMark: mark, runs, sweep: listed ? { ...o.sweep, ...listed } : o.sweep });
  }));
  return news;
}

async function loadJob(id) {
  const job = await getJSON(`/api/jobs/${encodeURIComponent(id)}`);
  const [metrics, sweep, events, log, checkpoints, annotations, alerts] = await Promise.all([
    getJSON(`/api/jobs/${job.id}/metrics?max_points=${MAX_POINTS}`),
    getOptional(`/api/sweeps/${encodeURIComponent(job.sweep_id)}`),
    getJSON(`/api/jobs/${job.id}/events`), getJSON(`/api/jobs/${job.id}/log`), getJSON(`/api/jobs/${job.id}/checkpoints`),
    getOptional(`/api/sweeps/${encodeURIComponent(job.sweep_id)}/annotations`),
    getOptional(`/api/sweeps/${encodeURIComponent(job.sweep_id)}/alerts`)]);
  const store = {};
  appendColumns(store, metrics);
  const annotation = (annotations?.annotations || []).find((a) => a.job_id === String(job.id)) ?? null;
  const jobAlerts = (alerts?.alerts || []).filter((a) => a.job_id === String(job.id));
  state.job = { job, metrics: store, sweep, events, log, checkpoints, annotation, alerts: jobAlerts };
}

// Runs fn over items, at most `limit` at a time.
async function pool(items, limit, fn) {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length) await fn(queue.shift());
  }));
}

async function refreshOnce() {
  const r = parseHash();
  // The sweep list is asked for alongside the view's own requests, which do not need it; the list is taken
  // even when they fail (the page then shows the error beside it).
  const firstLoad = r.kind === 'sweeps' && r.id !== state.loadedFor && r.id !== state.sweep?.name;
  const view = r.kind === 'jobs' ? loadJob(r.id).then(() => fetchWorkersIfNeeded([state.job.job]))
    : firstLoad ? loadSweep(r.id) : null;
  const [listed, loaded] = await Promise.allSettled([getJSON('/api/sweeps'), view]);
  // A refresh that brought nothing new to the sweep's view (the live stream's hello after the first load, a
  // change elsewhere) draws nothing: a redraw of every chart and table is most of a second for 100 long runs.
  let news = r.kind !== 'sweeps' || firstLoad || renderedFor !== location.hash || !$('error').hidden;
  if (listed.status === 'fulfilled') {
    if (JSON.stringify(listed.value) !== JSON.stringify(state.sweeps)) news = true;
    state.sweeps = listed.value;
  }
  for (const answer of [listed, loaded]) if (answer.status === 'rejected') throw answer.reason;
  if (!r.id) {
    state.sweep = null;
    state.loadedFor = null;
    state.job = null;
  } else if (r.kind === 'sweeps' && !firstLoad && await updateSweep()) {
    news = true;
  }
  if (state.sweep && r.kind === 'sweeps') {
    await fetchWorkersIfNeeded(state.jobs);
    if (await syncOverlays()) news = true;
    if (await loadZoom()) news = true;
  }
  if (!(await plotsReady)) return;
  showError(location.hash.startsWith('#/views/') ? viewLinkError : '');  // a view's link that opened nothing stays said
  if (news) render();
}

let busy = false;
let again = false;
// One refresh at a time; changes that arrive meanwhile cause one more pass afterwards.
async function refresh() {
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    do {
      again = false;
      try {
        await refreshOnce();
      } catch (e) {
        const r = parseHash();
        if (e instanceof HttpError && e.status === 401) {
          signInAgain();
        } else if (e instanceof HttpError && e.status === 404 && r.id) {
          state.sweep = null;
          state.loadedFor = null;
          state.job = null;
          render();
          showError(r.kind === 'jobs' ? `No job "${r.id}".` : `No sweep "${r.id}".`);
        } else {
          console.error(e);
          showError(`Could not load: ${e.message}`);
        }
      }
    } while (again);
  } finally {
    busy = false;
  }
}

function connectEvents() {
  const live = $('live');
  const events = eventStream();
  const set = (s, text) => {
    live.dataset.state = s;
    live.textContent = shown(text);
  };
  events.addEventListener('hello', () => {
    set('live', 'live');
    refresh();  // (re)connected: catch up on anything missed while away
  });
  events.addEventListener('change', () => refresh());
  events.onerror = async () => {
    set('reconnecting', 'reconnecting…');
    // A coordinator that restarted (sessions live in its memory) or a session that ended refuses the stream
    // with 401, and EventSource gives up for good. A coordinator that is away answers nothing, and
    // EventSource retries by itself.
    if ((await sessionStatus().catch(() => 0)) === 401) signInAgain();
  };
  liveEvents = events;
}

// The session is gone: the token form again, then the event stream anew (its hello catches up), in the view
// the address still holds.
let liveEvents = null;
let signingIn = false;
async function signInAgain() {
  if (signingIn) return;
  signingIn = true;
  liveEvents?.close();
  await ensureSession();
  signingIn = false;
  connectEvents();
}

// Controls show the settings (after a load from the address) and write them back on change.
const CONTROLS = [
  ['x-axis', 'xKey', 'value'], ['log-x', 'logX', 'checked'], ['log-y', 'logY', 'checked'], ['group-by', 'groupBy', 'value'],
  ['panel-by', 'panelBy', 'value'], ['seeds', 'seeds', 'value'], ['smoothing', 'smoothing', 'value'],
  ['scaling-loss', 'scalingLoss', 'value'], ['scaling-x', 'scalingX', 'value'], ['scaling-unfinished', 'unfinished', 'checked'],
  ['jobs-filter', 'filter', 'value'], ['stage', 'stage', 'value'],
];

function syncControls() {
  for (const [id, key, prop] of CONTROLS) {
    const el = $(id);
    if (document.activeElement === el && prop === 'value' && el.type === 'search') continue;
    if (String(el[prop]) !== String(settings[key])) el[prop] = settings[key];
  }
  $('zoom-reset').hidden = settings.x0 === null;
  $('smoothing-text').textContent = smoothingText(Number(settings.smoothing));
}

// The smoothing's weight and the window it averages over: an EMA of weight w remembers about 1/(1 − w) points.
function smoothingText(w) {
  if (!(w > 0)) return 'off';
  return `${w.toFixed(2)} (EMA over ≈ ${Math.round(1 / (1 - w))} points)`;
}

function bindControls() {
  for (const [id, key, prop] of CONTROLS) {
    const el = $(id);
    el.addEventListener(el.type === 'search' || el.type === 'range' ? 'input' : 'change', () => {
      const v = el[prop];
      settings[key] = el.type === 'range' ? Number(v) : v;
      if (key === 'xKey' || key === 'logX') Object.assign(settings, { x0: null, x1: null });  // a zoom is in x units
      changed();
    });
  }
  $('zoom-reset').addEventListener('click', () => zoomTo(null, null));
  $('csv').addEventListener('click', () => download(`${state.sweep?.name || 'sweep'}.csv`, new Blob([visibleCsv()], { type: 'text/csv' })));
  watchJobLogRaw(() => state.job?.log);
  startSearch($('sweep-search'), $('search-hits'));
  startViewsMenu($('views-menu'), () => ({ sweepId: state.sweep?.id, settings: parseHash().query }));
  // A window made wider or narrower fits the jobs table to it again.
  new ResizeObserver(() => {
    if (lastJobsRender && jobsFit && jobsFit.width !== jobsFit.card.clientWidth) renderJobs(...lastJobsRender);
  }).observe(document.querySelector('#jobs-card .table-wrap'));
  $('job-cancel').addEventListener('click', () => jobAction('cancel'));
  $('job-retry').addEventListener('click', () => jobAction('retry'));
  // The column chooser closes on a click elsewhere, as a menu does.
  document.addEventListener('click', (e) => {
    const chooser = $('jobs-columns');
    if (chooser.open && !chooser.contains(e.target)) chooser.open = false;
  });
  $('theme').value = themeChoice();
  $('theme').addEventListener('change', () => setThemeChoice($('theme').value));
}

// Every chart built again in the theme's colours (their axes and grid read them when built).
function restyleCharts() {
  for (const chart of [...lossCharts.values(), scalingChart, surfaceChart, tuneChart, ...jobCharts.values()]) chart?.restyle();
  render();
}

// Why a view's link (#/views/ID) opened nothing, said while the address is that link.
let viewLinkError = '';
function viewLinkFailed(e) {
  viewLinkError = `No view there: ${e.message}`;
  showError(viewLinkError);
}

// Resolves once uPlot is loaded and the page's fixed charts are made (false when uPlot could not be loaded):
// nothing is drawn before.
let plotsReady = null;

async function main() {
  startTheme(() => restyleCharts());
  // uPlot is a plain file (no session needed): fetched while the session is checked, and evaluated while the
  // first view's requests are out.
  const uPlotModule = import('/vendor/uplot/uPlot.esm.js');
  uPlotModule.catch(() => {});  // (awaited below)
  // /api/meta is asked for alongside the session's check, and again after a sign-in (it needs the session).
  const metaFirst = getJSON('/api/meta');
  metaFirst.catch(() => {});  // (awaited below)
  await ensureSession();  // a token form first when the API needs one (web/session.js)
  try {
    const meta = await metaFirst.catch(() => getJSON('/api/meta'));
    setMeta(meta);
    META_METRICS = meta.metrics || [];
  } catch (e) {
    showError(`Could not load: ${e.message}`);
    throw e;
  }
  await openViewLink().catch(viewLinkFailed);
  readSettings();
  plotsReady = uPlotModule.then((module) => {
    uPlot = module.default;
    scalingChart = new ScalingChart(uPlot, $('chart-scaling'));
    surfaceChart = new SurfaceChart(uPlot, $('chart-surface'));
    tuneChart = new TuneChart(uPlot, $('chart-tune'));
    bindControls();
    return true;
  }, () => {
    showError('uPlot is not installed on the server (run `npm ci` in web/); plots are unavailable.');
    return false;
  });
  // Another sweep or job opens at its top (a job's link sits low in the jobs table); a change of settings
  // keeps the place.
  let route = `${parseHash().kind}/${parseHash().id}`;
  const addressChanged = () => {
    const now = `${parseHash().kind}/${parseHash().id}`;
    if (now !== route) window.scrollTo(0, 0);
    route = now;
    readSettings();
    refresh();
  };
  window.addEventListener('hashchange', () => {
    if (!location.hash.startsWith('#/views/')) return addressChanged();
    // A view's link (#/views/ID) stands for a sweep's address: put in its place (replaceState: no second
    // event), then read as any address.
    openViewLink().catch(viewLinkFailed).finally(addressChanged);
  });
  window.__gammalab = { csv: visibleCsv, settings: () => ({ ...settings }) };
  connectEvents();
  await refresh();
}

main();

// gammalab dashboard: the page itself. It starts the page (main: the session, /api/meta, uPlot, the first
// load), draws everything on each change (renderAll: the sweep list, the open sweep's head, study, tune stage,
// scaling law, metric charts and jobs table, or the open job) and binds the controls. What it draws with lives in
// modules of one concept each: the page's state and settings (page.js, their one owner), loading and live updates
// (loading.js), the metric charts (metric_charts.js, curves.js, chart_controls.js, run_groups.js), the jobs table
// (jobs_table.js), the job view (job_view.js), the study's views (study.js) and the charts
// (chart.js, the base of loss_chart.js, scaling_chart.js, surface_chart.js and tune_chart.js).
// Live updates: the server sends an SSE "change" event whenever its store changes; we then refetch the
// sweep list and the open sweep's jobs, and append only new points (metrics?after_step=N) of jobs that moved.
// The view (sweep or job, chart settings, zoom) lives in the address: #/sweeps/ID?setting=value&...
// Text from the database reaches the page only as text nodes (dom.js), never as HTML.
import { renderSweepAlerts } from './alerts.js';
import { renderAnnotation, startSearch } from './annotations.js';
import { getJSON } from './api.js';
import { CONTROLS, renderGroupingChoices, renderLegend, renderMetricList, syncControls } from './chart_controls.js';
import { ScalingChart } from './scaling_chart.js';
import { SurfaceChart } from './surface_chart.js';
import { TuneChart } from './tune_chart.js';
import { download, fill, h, shown } from './dom.js';
import { watchJobLogRaw } from './job_log.js';
import { jobAction, jobCharts, renderJob } from './job_view.js';
import { filteredJobs, refitJobsTable, renderCompare, renderJobs } from './jobs_table.js';
import { connectEvents, refresh } from './loading.js';
import { lossCharts, renderCharts, visibleCsv, zoomTo } from './metric_charts.js';
import {
  $, DEFAULTS, annotationOf, changed, defaultMetrics, parseHash, readSettings, render, setMetaMetrics, setPlotsReady, setRender, setUPlot,
  settings, showError, state, uPlot, viewLinkFailed,
} from './page.js';
import { drawParallel, parallelView } from './parallel.js';
import { groupsBy } from './run_groups.js';
import { openViewLink, startViewsMenu } from './saved_views.js';
import { settingsToQuery } from './address.js';
import { missingFitReason } from './laws.js';
import { STATE_ORDER, setMeta, stateClass, sweepStatus } from './series.js';
import { tuneSeries } from './tune_report.js';
import { ensureSession } from './session.js';
import { fitTable, renderStudyTable, scalingLegend, scalingView, surfaceLegend, surfaceView, tunePicks, tuneStyles } from './study.js';
import { watchAllScrollEdges } from './scroll_edges.js';
import { setThemeChoice, startTheme, themeChoice } from './theme.js';
import { tuneSeedPoints } from './tune_seeds.js';
import { isoTime } from './when.js';

// Bar colours by position in STATE_ORDER (running, leased, pending, succeeded, failed, cancelled).
const STATE_COLOURS = ['#0072b2', '#56b4e9', '#c5cbd6', '#1a8f5a', '#c53030', '#b7791f'];
let scalingChart = null;
let surfaceChart = null;
let tuneChart = null;
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

function renderStudy() {
  renderStudyTable({ table: $('study'), empty: $('study-empty'), multipliersEl: $('multipliers') }, state.runs, state.fits,
    settings.scalingLoss);
}


function renderTune() {
  const tune = tuneSeries(state.sweep.tune_report_json);
  $('tune-card').hidden = !tune;
  if (!tune) return;
  const styles = tuneStyles(tune);
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const seeds = tuneSeedPoints(tune, state.jobs, (job) => runOf.get(job.id)?.loss);
  tuneChart.update({ tune, colourOf: styles.colourOf, dashOf: styles.dashOf, seeds });
  fill($('tune-picks'), tunePicks(tune, styles.colours, state.sweep.stage_error));
  renderParallel(tune, runOf);
}

// The tune runs in parallel coordinates, drawn at their card's width; redrawn only when what they show or that
// width changed (a render, or the window resized: the observer in bindControls).
function renderParallel(tune, runOf) {
  const lossOf = (job) => runOf.get(job.id)?.loss ?? NaN;
  const figure = $('chart-parallel');
  const dark = document.documentElement.dataset.theme === 'dark';
  const key = JSON.stringify([state.jobs.filter((j) => j.stage === 'tune').map((j) => [j.id, j.config_hash, lossOf(j)]), tune.field,
    figure.querySelector('.plot').clientWidth, dark]);
  if (key !== parallelKey) {
    parallelKey = key;
    drawParallel(figure, parallelView(state.jobs, lossOf, tune.field, { dark }));
  }
}
let parallelKey = '';  // what the parallel coordinates were drawn from: redrawn only when it changes


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


// The chart under the pointer keeps its place on the screen while a render changes the cards above it (a study
// row or a fit that arrives, a banner): the page scrolls by as much as they grew or shrank. The browser's own
// scroll anchoring does this only once the page is scrolled, not at its top, where the charts are read most.
function renderAll() {
  const hovered = document.querySelector('#charts figure.chart:hover');
  const top = hovered?.getBoundingClientRect().top;
  renderPage();
  if (hovered?.isConnected) {
    const moved = hovered.getBoundingClientRect().top - top;
    if (moved) window.scrollBy(0, moved);
  }
}
setRender(renderAll);

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
    refitJobsTable();
  }).observe(document.querySelector('#jobs-card .table-wrap'));
  // And draws the tune stage's parallel coordinates at their card's new width.
  new ResizeObserver(() => {
    const tune = state.sweep && tuneSeries(state.sweep.tune_report_json);
    if (tune) renderParallel(tune, new Map(state.runs.map((r) => [r.id, r])));
  }).observe(document.querySelector('#chart-parallel .plot'));
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

async function main() {
  startTheme(() => restyleCharts());
  watchAllScrollEdges();
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
    setMetaMetrics(meta.metrics || []);
  } catch (e) {
    showError(`Could not load: ${e.message}`);
    throw e;
  }
  await openViewLink().catch(viewLinkFailed);
  readSettings();
  setPlotsReady(uPlotModule.then((module) => {
    setUPlot(module.default);
    scalingChart = new ScalingChart(uPlot, $('chart-scaling'));
    surfaceChart = new SurfaceChart(uPlot, $('chart-surface'));
    tuneChart = new TuneChart(uPlot, $('chart-tune'));
    bindControls();
    return true;
  }, () => {
    showError('uPlot is not installed on the server (run `npm ci` in web/); plots are unavailable.');
    return false;
  }));
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

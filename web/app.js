// gammalab dashboard: sweep list, per-sweep jobs table, live loss curves and the scaling-law view.
// Live updates: the server sends an SSE "change" event whenever its store changes; we then refetch the
// sweep list and the open sweep's jobs, and append only new points (metrics?after_step=N) of jobs that moved.
import {
  LOSS_NAMES, LOSSES, STATE_ORDER, ACTIVE_STATES, setMeta, isFailed, stateClass, int, num, jobInfo, appendColumns,
  afterStepFor, groupColours, sortGroups, lossTables, scalingPoints, fitCurve, logSpace, median, si, count, fitReports,
} from './series.js';
import { LossChart, ScalingChart } from './charts.js';
import { ensureSession } from './session.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
// Bar colours by position in STATE_ORDER (running, leased, pending, succeeded, failed, cancelled).
const STATE_COLOURS = ['#0072b2', '#56b4e9', '#c5cbd6', '#1a8f5a', '#c53030', '#b7791f'];

class HttpError extends Error {
  constructor(path, status, body) {
    super(`${path}: HTTP ${status}${body?.error ? ` (${body.error})` : ''}`);
    this.status = status;
  }
}

async function getJSON(path) {
  const res = await fetch(path, { cache: 'no-store' });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(path, res.status, body);
  return body;
}

// For endpoints that may not exist on this server (fits): null on 404.
async function getOptional(path) {
  try {
    return await getJSON(path);
  } catch (e) {
    if (e instanceof HttpError && e.status === 404) return null;
    console.warn(e);
    return null;
  }
}

// Runs fn over items, at most `limit` at a time.
async function pool(items, limit, fn) {
  const queue = [...items];
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length) await fn(queue.shift());
  }));
}

const settings = {
  xKey: 'step', logX: false, logY: false, groupBy: 'variant',
  scalingLoss: 'loss', scalingX: 'params', unfinished: false,
  ...JSON.parse(localStorage.getItem('gammalab.settings') || '{}'),
};

const state = {
  sweeps: [],
  sweep: null,           // the open sweep
  jobs: [],
  metrics: new Map(),    // job id -> {name: {step, tokens, value}}
  runs: [],              // /api/sweeps/{id}/runs
  fits: [],              // reports of /api/sweeps/{id}/fits when the server has it (fitReports)
  workers: new Map(),
  loadedFor: null,       // sweep id whose data is loaded
};

let uPlot = null;
let charts = null;

function routeSweepId() {
  const m = location.hash.match(/^#\/sweeps\/([^/?]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}

function showError(message) {
  $('error').hidden = !message;
  $('error').textContent = message || '';
}

// ---- sweep list

function countsOf(sweep) {
  return STATE_ORDER.map((s) => [s, sweep.job_counts?.[s] || 0]).filter(([, n]) => n > 0);
}

function stackedBar(counts, total) {
  return `<div class="bar">${counts.map(([s, n]) => `<span style="width:${(100 * n) / Math.max(1, total)}%;background:${STATE_COLOURS[STATE_ORDER.indexOf(s)]}" title="${n} ${s}"></span>`).join('')}</div>`;
}

function renderSweeps() {
  const list = $('sweeps');
  $('no-sweeps').hidden = state.sweeps.length > 0;
  const open = state.sweep?.id;
  list.innerHTML = [...state.sweeps].reverse().map((s) => {
    const counts = countsOf(s);
    const summary = counts.map(([k, n]) => `${n} ${k}`).join(' · ') || 'no jobs';
    return `<li><a href="#/sweeps/${encodeURIComponent(s.id)}" data-sweep-id="${esc(s.id)}" class="${s.id === open ? 'selected' : ''}">
      <div class="name">${esc(s.name)}</div>
      <div class="sub">#${esc(s.id)} · ${s.total_jobs} jobs${s.finished ? ' · finished' : ''}</div>
      <div class="sub">${esc(summary)}</div>
      ${stackedBar(counts, s.total_jobs)}</a></li>`;
  }).join('');
}

// ---- the open sweep

function renderSweepHead() {
  const s = state.sweep;
  $('sweep-name').textContent = s.name;
  const created = s.created_at ? new Date(s.created_at).toLocaleString() : '';
  $('sweep-meta').textContent = [`#${s.id}`, s.file_name, created && `submitted ${created}`, `priority ${s.priority}`,
    `max attempts ${s.max_attempts}`].filter(Boolean).join(' · ');
  $('sweep-counts').innerHTML = countsOf(s).map(([k, n]) => `<span class="badge ${stateClass(k)}">${n} ${k}</span>`).join('');
}

function paramsByPreset() {
  const out = new Map();
  for (const r of state.runs) if (r.preset && r.params != null) out.set(r.preset, r.params);
  return out;
}

// Group, colour and sort order of the jobs under the current "colour by" setting.
function grouping() {
  const by = settings.groupBy;
  const groups = sortGroups(state.jobs.map((j) => jobInfo(j)[by]), by, paramsByPreset());
  const colours = groupColours(groups, by === 'preset');
  return { by, groups, colourOf: (job) => colours.get(jobInfo(job)[by]) };
}

function renderLegend({ groups, by }) {
  const colours = groupColours(groups, by === 'preset');
  const sizes = paramsByPreset();
  const keys = groups.map((g) => {
    const extra = by === 'preset' && sizes.has(g) ? ` <span class="note">(${count(sizes.get(g))})</span>` : '';
    return `<span class="key"><span class="swatch" style="background:${colours.get(g)}"></span>${esc(g)}${extra}</span>`;
  });
  if (state.jobs.some(isFailed)) keys.push('<span class="key note">dashed: failed</span>');
  $('legend').innerHTML = keys.join('');
}

function renderJobs({ colourOf }) {
  const workerName = (id) => (id ? state.workers.get(id)?.hostname || `worker ${id}` : '');
  $('jobs').tBodies[0].innerHTML = state.jobs.map((j) => {
    const info = jobInfo(j);
    const st = j.state;
    const step = int(j.step);
    const total = int(j.total_steps);
    const pct = total > 0 ? Math.min(100, (100 * step) / total) : 0;
    const err = j.error ? `<div class="err">${esc(j.error)}</div>` : '';
    return `<tr data-job-id="${esc(j.id)}" data-state="${st}">
      <td><div class="job-name"><span class="swatch" style="background:${colourOf(j)}"></span>${esc(j.name)}</div>${err}</td>
      <td>${esc(info.variant)}</td><td>${esc(info.preset)}</td>
      <td><span class="badge ${stateClass(st)}">${esc(st)}</span>${j.attempt > 1 ? ` <span class="meta">try ${j.attempt}</span>` : ''}</td>
      <td class="num">${step} / ${total}<span class="progress"><span style="width:${pct}%"></span></span></td>
      <td class="num">${j.has_loss && Number.isFinite(j.last_loss) ? j.last_loss.toFixed(4) : '–'}</td>
      <td class="num">${j.tokens_per_s > 0 ? si(j.tokens_per_s) : '–'}</td>
      <td>${esc(workerName(j.worker_id))}</td></tr>`;
  }).join('');
  const running = state.jobs.filter((j) => ACTIVE_STATES.has(j.state)).length;
  $('jobs-summary').textContent = `${state.jobs.length} jobs${running ? `, ${running} running` : ''}`;
}

function renderLossCharts(g) {
  for (const chart of charts.loss) {
    const metric = chart.figure.dataset.metric;
    const { tables, jobs } = lossTables(state.jobs, state.metrics, metric, settings.xKey, settings.logX);
    chart.update({ tables, jobs, colourOf: g.colourOf, failed: isFailed, xKey: settings.xKey, logX: settings.logX, logY: settings.logY });
  }
}

function renderScaling() {
  const xKey = settings.scalingX;
  const groups = scalingPoints(state.runs, 'variant', settings.scalingLoss, xKey, settings.unfinished);
  const names = sortGroups([...groups.keys(), ...state.fits.flatMap((r) => r.groups.map((f) => f.group))], 'variant');
  const colours = groupColours(names, false);
  const colourOf = (g) => colours.get(g) || '#555';
  const ordered = new Map(names.filter((n) => groups.has(n)).map((n) => [n, groups.get(n)]));

  // Fitted curves over the plotted x range, for the laws that can be drawn on this axis.
  const fits = [];
  const xs = [...groups.values()].flat().map((p) => p.x);
  if (xs.length) {
    const grid = logSpace(Math.min(...xs) / 1.5, Math.max(...xs) * 1.5);
    for (const [report, f] of state.fits.flatMap((r) => r.groups.map((g) => [r, g]))) {
      const runs = state.runs.filter((r) => r.variant === f.group && r.params > 0 && r.tokens > 0);
      const ratio = median(runs.map((r) => r.tokens / r.params));
      const curve = fitCurve(report.law, f.parameters, xKey, ratio);
      if (!curve) continue;
      const ys = grid.map((x) => {
        const y = curve(x);
        return Number.isFinite(y) && y > 0 ? y : null;
      });
      if (ys.some((y) => y !== null)) fits.push({ group: f.group, law: report.law, xs: grid, ys });
    }
  }
  charts.scaling.update({ groups: ordered, fits, colourOf, xKey });
  $('scaling-legend').innerHTML = [...ordered.keys()].map((g) =>
    `<span class="key"><span class="dot" style="background:${colourOf(g)}"></span>${esc(g)} (${ordered.get(g).length})</span>`).join('')
    + (fits.length ? '<span class="key note">dashed: fitted law</span>' : '');
  renderFits(colourOf);
}

function renderFits(colourOf) {
  $('fits').innerHTML = state.fits.map((report) => fitTable(report, colourOf)).join('');
}

function fitTable(report, colourOf) {
  const est = (e) => (e ? `${si(num(e.value), 4)}${Number.isFinite(num(e.lo)) ? ` [${si(num(e.lo), 3)}, ${si(num(e.hi), 3)}]` : ''}` : '–');
  const names = [...new Set((report.groups || []).flatMap((g) => Object.keys(g.parameters || {})))];
  const rows = (report.groups || []).map((g) => `<tr><th><span class="dot" style="display:inline-block;width:8px;height:8px;border-radius:50%;background:${colourOf(g.group)}"></span> ${esc(g.group)}</th>
    ${names.map((n) => `<td>${esc(n)} = ${esc(est(g.parameters?.[n]))}</td>`).join('')}<td>${g.runs ?? ''} runs</td></tr>`).join('');
  const mults = (report.multipliers || []).filter((m) => m.constant).map((m) =>
    `<div>compute multiplier of ${esc(m.variant)} over ${esc(m.baseline)}: <code>${esc(est(m.constant))}</code></div>`).join('');
  const warnings = (report.warnings || []).map((w) => `<div>⚠ ${esc(w)}</div>`).join('');
  return `<div>law <code>${esc(report.law)}</code>${report.bootstrap ? `, ${report.bootstrap.used}/${report.bootstrap.requested} bootstrap resamples` : ''}</div>
    <table>${rows}</table>${mults}${warnings}`;
}

function render() {
  renderSweeps();
  const open = Boolean(state.sweep);
  $('sweep').hidden = !open;
  $('welcome').hidden = open;
  if (!open) return;
  renderSweepHead();
  const g = grouping();
  renderLegend(g);
  renderJobs(g);
  renderLossCharts(g);
  renderScaling();
  document.body.dataset.ready = '1';
}

// ---- loading and live updates

async function fetchWorkersIfNeeded() {
  if (state.jobs.some((j) => j.worker_id && !state.workers.has(j.worker_id))) {
    const workers = await getJSON('/api/workers');
    state.workers = new Map(workers.map((w) => [w.id, w]));
  }
}

let runsTimer = null;
let runsAt = 0;
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
      state.runs = runs;
      state.fits = fitReports(fits);
      render();
    } catch (e) {
      console.warn(e);
    }
  }, wait);
}

async function loadSweep(id) {
  const sweep = await getJSON(`/api/sweeps/${encodeURIComponent(id)}`);
  const [jobs, metrics, runs, fits] = await Promise.all([
    getJSON(`/api/sweeps/${sweep.id}/jobs`),
    getJSON(`/api/sweeps/${sweep.id}/metrics?names=${LOSS_NAMES.join(',')}`),
    getJSON(`/api/sweeps/${sweep.id}/runs`),
    getOptional(`/api/sweeps/${sweep.id}/fits`),
  ]);
  state.sweep = sweep;
  state.jobs = jobs;
  state.metrics = new Map();
  for (const job of jobs) {
    const store = {};
    appendColumns(store, metrics[job.id]);
    state.metrics.set(job.id, store);
  }
  state.runs = runs;
  state.fits = fitReports(fits);
  state.loadedFor = sweep.id;
  runsAt = Date.now();
}

// After a change: the open sweep's jobs, then new points only for jobs that moved (or are running).
async function updateSweep() {
  const id = state.sweep.id;
  const jobs = await getJSON(`/api/sweeps/${id}/jobs`);
  const before = new Map(state.jobs.map((j) => [j.id, j]));
  let stateChanged = false;
  let jobsChanged = false;
  const moved = jobs.filter((j) => {
    const prev = before.get(j.id);
    if (!prev || prev.state !== j.state) stateChanged = true;
    if (!prev || prev.state !== j.state || prev.step !== j.step || prev.attempt !== j.attempt) jobsChanged = true;
    return !prev || prev.state !== j.state || prev.step !== j.step || ACTIVE_STATES.has(j.state);
  });
  await pool(moved, 6, async (job) => {
    const store = state.metrics.get(job.id) || {};
    const after = afterStepFor(store);
    const cols = await getJSON(`/api/jobs/${job.id}/metrics?names=${LOSS_NAMES.join(',')}&after_step=${after}`);
    appendColumns(store, cols);
    state.metrics.set(job.id, store);
  });
  if (state.sweep?.id !== id) return;
  state.jobs = jobs;
  state.sweep = state.sweeps.find((s) => s.id === id) || state.sweep;
  // A change that none of this sweep's jobs explains may be a new fit: the coordinator refits a few seconds
  // after jobs succeed, when the state change that triggered the last runs refresh is already past.
  if (stateChanged || !jobsChanged || settings.unfinished) scheduleRunsRefresh();
}

async function refreshOnce() {
  state.sweeps = await getJSON('/api/sweeps');
  const wanted = routeSweepId();
  if (!wanted) {
    state.sweep = null;
    state.loadedFor = null;
  } else if (wanted !== state.loadedFor && wanted !== state.sweep?.name) {
    await loadSweep(wanted);
  } else {
    await updateSweep();
  }
  await fetchWorkersIfNeeded();
  showError('');
  render();
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
        if (e instanceof HttpError && e.status === 404 && routeSweepId()) {
          state.sweep = null;
          state.loadedFor = null;
          render();
          showError(`No sweep "${routeSweepId()}".`);
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
  const events = new EventSource('/api/events');
  const set = (s, text) => {
    live.dataset.state = s;
    live.textContent = text;
  };
  events.addEventListener('hello', () => {
    set('live', 'live');
    refresh();  // (re)connected: catch up on anything missed while away
  });
  events.addEventListener('change', () => refresh());
  events.onerror = () => set('reconnecting', 'reconnecting…');
}

function bindControls() {
  const bind = (id, key, prop = 'value') => {
    const el = $(id);
    el[prop] = settings[key];
    el.addEventListener('change', () => {
      settings[key] = el[prop];
      localStorage.setItem('gammalab.settings', JSON.stringify(settings));
      render();
    });
  };
  bind('x-axis', 'xKey');
  bind('log-x', 'logX', 'checked');
  bind('log-y', 'logY', 'checked');
  bind('group-by', 'groupBy');
  bind('scaling-loss', 'scalingLoss');
  bind('scaling-x', 'scalingX');
  bind('scaling-unfinished', 'unfinished', 'checked');
}

async function main() {
  await ensureSession();  // a token form first when the API needs one (web/session.js)
  try {
    uPlot = (await import('/vendor/uplot/uPlot.esm.js')).default;
  } catch (e) {
    showError('uPlot is not installed on the server (run `npm ci` in web/); plots are unavailable.');
    throw e;
  }
  try {
    setMeta(await getJSON('/api/meta'));
  } catch (e) {
    showError(`Could not load: ${e.message}`);
    throw e;
  }
  // Each loss chart plots the metric its data-loss names ("train" or "val").
  for (const figure of document.querySelectorAll('figure[data-loss]')) {
    figure.dataset.metric = LOSSES[figure.dataset.loss];
    for (const label of figure.querySelectorAll('.metric')) label.textContent = figure.dataset.metric;
  }
  charts = {
    loss: [new LossChart(uPlot, $('chart-train')), new LossChart(uPlot, $('chart-val'))],
    scaling: new ScalingChart(uPlot, $('chart-scaling')),
  };
  bindControls();
  window.addEventListener('hashchange', refresh);
  connectEvents();
  await refresh();
}

main();

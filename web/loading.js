// Loading and live updates: the open sweep (every request at once), then after each change event only what
// moved (new jobs, new points, runs and fits when they change), overlaid sweeps, the open job, and the event
// stream with its sign-in again when the session ends.
import { mergeAlerts, newestAlertId } from './alerts.js';
import { HttpError, events as eventStream, getAnswer, getJSON, getOptional } from './api.js';
import { shown } from './dom.js';
import { loadZoom, seriesPoints } from './metric_charts.js';
import { overlayIds } from './overlay.js';
import { $, MAX_POINTS, changed, parseHash, plotsReady, render, renderedFor, settings, showError, state, viewLinkError } from './page.js';
import { fitReports } from './laws.js';
import { ACTIVE_STATES, afterStepFor, appendColumns } from './series.js';
import { ensureSession, sessionStatus } from './session.js';

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
export let again = false;
// One refresh at a time; changes that arrive meanwhile cause one more pass afterwards.
export async function refresh() {
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

export function connectEvents() {
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

// The open job's page: its state and error, its charts, history of attempts, checkpoints, log (job_log.js), note
// and alerts, and its cancel and retry buttons.
import { renderJobAlerts } from './alerts.js';
import { renderAnnotation } from './annotations.js';
import { postJSON } from './api.js';
import { LossChart } from './loss_chart.js';
import { xLabel } from './curves.js';
import { fill, h, pathText, shown } from './dom.js';
import { branchOf } from './family.js';
import { bytesText } from './format.js';
import { renderJobLog } from './job_log.js';
import { workerName } from './jobs_table.js';
import { refresh } from './loading.js';
import { $, state, storedMetrics, uPlot } from './page.js';
import { ACTIVE_STATES, int, isFailed, jobActions, stateClass } from './series.js';
import { isoTime, isoUtc } from './when.js';

export let jobCharts = new Map();


export function renderJob() {
  const { job, metrics, sweep } = state.job;
  fill($('job-name'), pathText(shown(job.name)));
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

export async function jobAction(action) {
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

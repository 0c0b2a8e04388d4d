// The page of a `gammalab report` file: one sweep drawn from the data inlined in the page (the JSON element
// #report-data, cli/client/report_data.h), with the dashboard's own chart classes (loss_chart.js,
// scaling_chart.js, surface_chart.js, tune_chart.js), data helpers (series.js, laws.js, comparisons.js and the
// rest) and study views (study.js). No request leaves the page: the file opens offline. Text from the database goes in as text nodes only (dom.js).
import { groupColours, sortGroups } from './colours.js';
import { fitReports } from './laws.js';
import {
  LOSSES, STATE_ORDER, setMeta, isFailed, stateClass, int, jobInfo, appendColumns, lossTables,
} from './series.js';
import { tuneSeries } from './tune_report.js';
import { count } from './format.js';
import { LossChart } from './loss_chart.js';
import { ScalingChart } from './scaling_chart.js';
import { SurfaceChart } from './surface_chart.js';
import { TuneChart } from './tune_chart.js';
import { branchOf, branchLabel, branchColour, leadPoint } from './family.js';
import { h, fill, shown } from './dom.js';
import { isoTime } from './when.js';
import { tuneSeedPoints } from './tune_seeds.js';
import { watchAllScrollEdges } from './scroll_edges.js';
import { startTheme } from './theme.js';
import { fmt, renderStudyTable, scalingView, scalingLegend, surfaceView, surfaceLegend, fitTable, tunePicks, tuneStyles } from './study.js';

const byId = (id) => document.getElementById(id);

function reportData() {
  const data = JSON.parse(byId('report-data').textContent);
  if (data.format !== 1) throw new Error(`report data format ${data.format}: this page reads format 1`);
  return data;
}

function renderHead(sweep, generatedAt) {
  byId('sweep-name').textContent = sweep.name;
  const created = isoTime(sweep.created_at);
  byId('sweep-meta').textContent = [`#${sweep.id}`, sweep.file_name, created && `submitted ${created}`,
    sweep.finished ? 'finished' : 'not finished when the report was written'].filter(Boolean).join(' · ');
  byId('generated').textContent = `written ${isoTime(generatedAt)}`;
  const counts = STATE_ORDER.map((s) => [s, sweep.job_counts?.[s] || 0]).filter(([, n]) => n > 0);
  fill(byId('sweep-counts'), counts.map(([s, n]) => h('span', { class: `badge ${stateClass(s)}` }, `${n} ${s}`)));
}

// The charts a report draws: the losses (train, val), then every other metric the data holds (the scale-vector
// norms per role, cli/client/report_data.h), each as [figure id suffix, metric name].
function curveMetrics(metrics) {
  const losses = Object.entries(LOSSES);
  const others = new Set();
  for (const store of metrics.values()) for (const name of Object.keys(store)) others.add(name);
  for (const [, name] of losses) others.delete(name);
  return losses.concat([...others].sort().map((name) => [name.replace(/[^a-z0-9]+/gi, '-').toLowerCase(), name]));
}

// One chart per metric against step, one line per main-stage job (the tune stage has its own chart) coloured by
// variant, failed jobs dashed. Each figure carries the colour key, so that a screenshot of one chart reads alone.
// Cooldown branches as the dashboard draws them (family.js): in their run's colour made fainter, named after their
// run, each from a lead on its run's line at its branch step (these charts are against step, unsmoothed).
function joinFamilies(curves, tokensOf) {
  const byId = new Map(curves.map((c) => [String(c.id), c]));
  for (const c of curves) {
    const b = branchOf(c.jobs[0]);
    if (!b) continue;
    const run = byId.get(b.parentId);
    c.label = branchLabel(run?.label ?? `job ${b.parentId}`, b.step, tokensOf.get(String(c.id)));
    c.colour = branchColour(c.colour);
    c.branch = { run: b.parentId, step: b.step };
    c.lead = run ? leadPoint({ base: run.xs, xs: run.xs, ys: run.ys }, b.step) : null;
  }
}

function renderCurves(allJobs, metrics, paramsOf, tokensOf) {
  const jobs = allJobs.filter((j) => j.stage !== 'tune');
  const variants = sortGroups(jobs.map((j) => jobInfo(j).variant), 'variant', paramsOf);
  const colours = groupColours(variants, false);
  const keys = variants.map((v) => h('span', { class: 'key', dataset: { group: v } },
    h('span', { class: 'swatch', style: { background: colours.get(v) } }), v));
  if (jobs.some(isFailed)) keys.push(h('span', { class: 'key note' }, 'dashed: failed'));
  if (jobs.some((j) => branchOf(j))) keys.push(h('span', { class: 'key note' }, 'fainter: a cooldown branch, in its run\'s colour, from the point where it leaves its run'));
  fill(byId('legend'), keys);
  const charts = [];
  for (const [key, metric] of curveMetrics(metrics)) {
    const figure = h('figure', { class: 'chart', id: `chart-${key}`, dataset: { metric } },
      h('figcaption', {}, h('span', { class: 'metric' }, metric), h('div', { class: 'legend keys' }, keys.map((k) => k.cloneNode(true))),
        h('div', { class: 'hover readout' })),
      h('div', { class: 'plot' }), h('p', { class: 'empty', hidden: true }, `No ${metric} points.`));
    byId('charts').append(figure);
    const { tables, jobs: kept } = lossTables(jobs, metrics, metric, 'step', false);
    const curves = kept.map((job, i) => ({
      id: job.id, label: job.name, colour: colours.get(jobInfo(job).variant), dash: isFailed(job),
      xs: tables[i][0], ys: tables[i][1], raw: tables[i][1], band: null, jobs: [job],
    }));
    joinFamilies(curves, tokensOf);
    const chart = new LossChart(globalThis.uPlot, figure);
    chart.update({ curves, xLabel: 'step', yLabel: metric, logX: false, logY: false });
    charts.push(chart);
  }
  return charts;
}

// Final loss against N, and against C when a stored law is over compute, with the stored fit's curves; on a
// surface of cooldown branches, first against D, a line per variant and size with the law at each size (the
// dashboard's plot, study.js surfaceView).
function renderScaling(runs, fits) {
  const axes = fits.some((r) => r.law === 'c') ? ['params', 'compute'] : ['params'];
  const views = axes.map((xKey) => scalingView(runs, fits, { xKey, lossKey: 'loss', unfinished: false }));
  const surface = surfaceView(runs, fits, { lossKey: 'loss' });
  if (surface.surface) {
    const figure = h('figure', { class: 'chart wide', id: 'chart-surface' },
      h('figcaption', {}, 'final (annealed) loss vs tokens D, a line per variant and model size ', h('span', { class: 'hover' })),
      h('div', { class: 'legend keys' }, surfaceLegend(surface)), h('div', { class: 'plot' }),
      h('p', { class: 'empty', hidden: true }, 'No finished runs with a final loss.'),
      h('p', { id: 'surface-note', class: 'note' }, 'Each point is the mean over seeds of the final loss of the runs and branches with that budget, at the end '
        + 'of their decay. The fits use these annealed losses only; against N below, a size\'s budgets lie one above another and no '
        + 'law L(N, D) is drawn.'));
    byId('scaling-charts').append(figure);
    new SurfaceChart(globalThis.uPlot, figure).update(surface);
  }
  for (const view of views) {
    const figure = h('figure', { class: 'chart wide', id: `chart-scaling-${view.xKey}` },
      h('figcaption', {}, `final loss vs ${view.xKey === 'compute' ? 'compute' : 'size'} `, h('span', { class: 'hover' })),
      h('div', { class: 'plot' }), h('p', { class: 'empty', hidden: true }, 'No finished runs with a final loss.'));
    byId('scaling-charts').append(figure);
    new ScalingChart(globalThis.uPlot, figure).update(view);
  }
  fill(byId('scaling-legend'), scalingLegend(views[0]));
  fill(byId('fits'), fits.map((report) => fitTable(report, views[0].colourOf)));
  byId('fits-empty').hidden = fits.length > 0;
}

function renderTune(sweep, jobs, runs) {
  const tune = tuneSeries(sweep.tune_report_json);
  byId('tune-card').hidden = !tune;
  if (!tune) return;
  const styles = tuneStyles(tune);
  const runOf = new Map(runs.map((r) => [r.id, r]));
  const seeds = tuneSeedPoints(tune, jobs, (job) => runOf.get(job.id)?.loss);
  new TuneChart(globalThis.uPlot, byId('chart-tune')).update({ tune, colourOf: styles.colourOf, dashOf: styles.dashOf, seeds });
  fill(byId('tune-picks'), tunePicks(tune, styles.colours, sweep.stage_error));
}

function renderJobs(jobs, runs, colourOf) {
  const runOf = new Map(runs.map((r) => [r.id, r]));
  const heads = ['job', 'stage', 'variant', 'model', 'state', 'step / total', 'final val loss', 'final loss (fit)'];
  fill(byId('jobs').tHead, h('tr', {}, heads.map((t, i) => h('th', { class: i >= 5 ? 'num' : '' }, t))));
  fill(byId('jobs').tBodies[0], jobs.map((j) => {
    const info = jobInfo(j);
    const run = runOf.get(j.id) || {};
    return h('tr', { dataset: { jobId: j.id, state: j.state } },
      h('td', {}, h('div', { class: 'job-name' }, h('span', { class: 'swatch', style: { background: colourOf(j) } }), j.name),
        j.error ? h('div', { class: 'err' }, j.error) : null),
      h('td', {}, j.stage || ''), h('td', {}, info.variant),
      h('td', {}, info.preset, run.params != null ? h('span', { class: 'meta' }, ` (${count(run.params)})`) : null),
      h('td', {}, h('span', { class: `badge ${stateClass(j.state)}` }, j.state)),
      h('td', { class: 'num' }, `${int(j.step)} / ${int(j.total_steps)}`),
      h('td', { class: 'num', dataset: { value: run.final_val_loss ?? '' } }, fmt(run.final_val_loss ?? NaN)),
      h('td', { class: 'num' }, fmt(run.loss ?? NaN)));
  }));
  byId('jobs-summary').textContent = `${jobs.length} jobs`;
}

function main() {
  // The theme first (the charts take its colours); a later change of the system's theme draws the page again.
  startTheme(() => location.reload());
  watchAllScrollEdges();
  const data = reportData();
  setMeta(data.meta);
  const { sweep, jobs, runs } = data;
  const fits = data.fits ? fitReports(data.fits) : [];
  const metrics = new Map();
  for (const job of jobs) {
    const store = {};
    appendColumns(store, data.metrics?.[job.id]);
    metrics.set(job.id, store);
  }
  const paramsOf = new Map(runs.filter((r) => r.preset && r.params != null).map((r) => [r.preset, r.params]));
  document.title = shown(`${sweep.name} · gammalab report`);
  renderHead(sweep, data.generated_at);
  renderStudyTable({ table: byId('study'), empty: byId('study-empty'), multipliersEl: byId('multipliers') }, runs, fits, 'loss');
  renderTune(sweep, jobs, runs);
  if (!globalThis.uPlot) throw new Error('uPlot is missing from this report');
  renderCurves(jobs, metrics, paramsOf, new Map(runs.map((r) => [String(r.id), r.tokens])));
  byId('curves-note').textContent = 'train and val loss, and the scale-vector norms per role where logged, per main-stage job against step (downsampled: each bucket keeps its first, last, lowest and highest point)';
  renderScaling(runs, fits);
  const variants = groupColours(sortGroups(jobs.map((j) => jobInfo(j).variant), 'variant'), false);
  renderJobs(jobs, runs, (j) => variants.get(jobInfo(j).variant));
  byId('source-name').textContent = sweep.file_name || '';
  byId('source').textContent = sweep.source_yaml || '';
  document.body.dataset.ready = '1';
}

try {
  main();
} catch (e) {
  byId('error').hidden = false;
  byId('error').textContent = `This report could not be drawn: ${e.message}`;
  document.body.dataset.ready = 'error';
  throw e;
}

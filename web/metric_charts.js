// The metric charts of the open sweep: one figure per chosen metric (and panel), drawn from curves.js, the
// width that decides how many points are asked of the API, zoom (a range fetched at full resolution), a chart
// as PNG and the visible series as CSV.
import { getJSON } from './api.js';
import { renderOverlayControl, renderXNote, syncControls } from './chart_controls.js';
import { LossChart } from './loss_chart.js';
import { chartCurves, flopsPerToken, resetDropped, sharedXRange, xColumn, xLabel, xMap } from './curves.js';
import { download, h } from './dom.js';
import { BUILT_IN, groupLabel, groupValue, orderedGroups } from './grouping.js';
import { filteredJobs } from './jobs_table.js';
import { $, MAX_POINTS, chartMetrics, overlays, paramsByPreset, parseHash, saveSettings, settings, slug, state, uPlot, zoomKey } from './page.js';
import { chartName, groupsBy } from './run_groups.js';
import { filterRows, seriesCsv } from './rows.js';
import { LOSSES, appendColumns, jobInfo, stageJobs } from './series.js';

export const lossCharts = new Map();  // figure id -> LossChart
// tableJobs: the jobs the table's filter keeps (filteredJobs, computed once per render for the table and the charts).
export function renderCharts(g, tableJobs) {
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
  resetDropped();
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
  const perToken = flopsPerToken();
  wanted.forEach((w, i) => {
    charts[i].update({ curves: curvesOf.get(w.id), xLabel: xLabel(), yLabel: w.metric,
      logX: settings.logX, logY: settings.logY, xRange });
    // Empty: no points yet, or points of runs none of which has an x on this axis (it logged no such metric).
    const withPoints = jobsOf(w).filter((j) => chartMetrics().get(j.id)?.[w.metric]?.step.length);
    const noX = withPoints.length > 0 && withPoints.every((j) => xMap(j, perToken, chartMetrics()) === undefined);
    charts[i].figure.querySelector('.empty').textContent = noX
      ? `No ${w.metric} point has an x on this axis: no run here has ${xLabel()} at its steps.`
      : `No ${w.metric} points yet.`;
  });
  $('charts-empty').hidden = wanted.length > 0;
}

// Points per series asked of the API for a sweep's metric charts: about one per pixel of a chart's width (a
// bucket of four points per four pixels keeps each one's lowest and highest point, so no spike is lost). A chart
// cannot show more, and the answer's size, the server's reading and every draw grow with it: 4,000 points per
// series into charts 480 px wide were 13 MB of JSON for 100 runs (docs/perf.md). The widest loss chart there is;
// before the first, the width the charts' grid gives each of the chosen metrics (style.css .charts: columns of
// at least 360 px, 16 px apart), measured with the sweep's section shown for the moment.
const CHART_MIN_WIDTH = 360;
const CHART_GAP = 16;
export function seriesPoints() {
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
export function zoomTo(x0, x1) {
  if (x0 === settings.x0 && x1 === settings.x1) return;  // (one drag can report its selection twice)
  settings.x0 = x0;
  settings.x1 = x1;
  saveSettings();
  renderZoomed();
  loadZoom().then((loaded) => {
    if (loaded && state.sweep && parseHash().kind === 'sweeps') renderZoomed();
  }).catch((e) => console.warn(e));
}

function renderZoomed() {
  const g = groupsBy(settings.groupBy);
  renderCharts(g, filteredJobs(state.jobs, g.colourOf));
  syncControls();
}

// The steps a zoomed x range covers (over every job and chosen metric, one point beyond each end), fetched at
// full resolution (downsampled only where the range still holds more points than the chart has pixels).
export async function loadZoom() {
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
export function visibleCsv() {
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

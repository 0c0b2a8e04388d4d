// uPlot wrappers: one chart object per <figure>, rebuilt when its series change and updated in place when
// only the data does. uPlot itself is passed in (app.js loads it from /vendor/uplot/).
import { si, count } from './series.js';

const HEIGHT = 300;

// About [lo / f, hi * f] for a log axis, widened to whole mantissas (2e4, not 2.13e4) so that uPlot's log
// ticks land on round numbers; a sane default when there is no data.
function padLog(lo, hi, f) {
  if (!(lo > 0 && hi > 0)) return [1, 10];
  const down = (x) => {
    const e = 10 ** Math.floor(Math.log10(x));
    return Math.floor(x / e) * e;
  };
  const up = (x) => {
    const e = 10 ** Math.floor(Math.log10(x));
    return Math.ceil(x / e) * e;
  };
  return [down(lo / f), up(hi * f)];
}

function plotWidth(plot) {
  return Math.max(280, Math.floor(plot.getBoundingClientRect().width || plot.parentElement.clientWidth || 600));
}

function axis(label, formatter, extra = {}) {
  return {
    label,
    labelSize: 18,
    labelFont: '12px system-ui, sans-serif',
    font: '11px system-ui, sans-serif',
    stroke: '#6b7385',
    grid: { stroke: '#eef0f3', width: 1 },
    ticks: { stroke: '#e3e6ec', width: 1 },
    values: (u, splits) => splits.map((v) => (v === null || v === undefined ? '' : formatter(v))),
    ...extra,
  };
}

// Base for both charts: owns the uPlot instance, the empty-state text and resizing.
class Chart {
  constructor(uPlot, figure) {
    this.uPlot = uPlot;
    this.figure = figure;
    this.plot = figure.querySelector('.plot');
    this.empty = figure.querySelector('.empty');
    this.hover = figure.querySelector('.hover');
    this.u = null;
    this.key = '';
    new ResizeObserver(() => {
      if (this.u) this.u.setSize({ width: plotWidth(this.plot), height: HEIGHT });
    }).observe(this.plot);
  }

  // key: identity of the series (rebuild when it changes); build(): uPlot options; data: aligned data.
  show(key, build, data, seriesCount, pointCount) {
    this.figure.dataset.series = String(seriesCount);
    this.figure.dataset.points = String(pointCount);
    if (!seriesCount) {
      this.destroy();
      this.empty.hidden = false;
      return;
    }
    this.empty.hidden = true;
    if (this.u && key === this.key) {
      this.u.setData(data);
      return;
    }
    this.destroy();
    this.key = key;
    this.u = new this.uPlot({ width: plotWidth(this.plot), height: HEIGHT, ...build() }, data, this.plot);
  }

  destroy() {
    if (this.u) this.u.destroy();
    this.u = null;
    this.key = '';
    if (this.hover) this.hover.textContent = '';
  }
}

// Indices of series s's points that no line can show, as dots: finite values whose nearest values on both
// sides (skipping the holes of other jobs' x values) are NaN gaps or the ends, e.g. a run's only evaluation.
function isolatedPoints(u, s) {
  const ys = u.data[s];
  const defined = [];
  for (let i = 0; i < ys.length; i++) if (ys[i] !== undefined) defined.push(i);
  const out = defined.filter((i, k) => ys[i] != null && ys[defined[k - 1]] == null && ys[defined[k + 1]] == null);
  return out.length ? out : null;
}

// Loss vs step or tokens, one line per job, coloured by group; failed jobs dashed; NaN points are gaps.
export class LossChart extends Chart {
  // tables: one [xs, ys] per job; jobs: the matching jobs; colourOf(job); failed(job) -> bool.
  update({ tables, jobs, colourOf, failed, xKey, logX, logY }) {
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    const points = tables.reduce((n, t) => n + t[0].length, 0);
    const key = JSON.stringify([jobs.map((j) => [j.id, colourOf(j), failed(j)]), xKey, logX, logY]);
    const hover = this.hover;
    const build = () => ({
      legend: { show: false },
      focus: { alpha: 0.25 },
      cursor: { focus: { prox: 24 }, drag: { x: true, y: false } },
      scales: {
        x: { time: false, distr: logX ? 3 : 1 },
        y: { distr: logY ? 3 : 1 },
      },
      axes: [axis(xKey, si), axis('loss', (v) => +v.toPrecision(3), { size: 56 })],
      series: [
        { label: xKey },
        ...jobs.map((job) => ({
          label: job.name,
          stroke: colourOf(job),
          width: 1.5,
          dash: failed(job) ? [6, 4] : undefined,
          spanGaps: false,
          points: { show: false, filter: isolatedPoints, size: 6, fill: colourOf(job) },
        })),
      ],
      hooks: {
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            const s = u.series.findIndex((x, k) => k > 0 && x._focus);
            if (i === null || i === undefined || s < 1) return void (hover.textContent = '');
            const v = u.data[s][i];
            hover.textContent = `${u.series[s].label}  ${xKey} ${si(u.data[0][i])}: ${v == null ? '–' : v.toFixed(4)}`;
          },
        ],
      },
    });
    this.show(key, build, data, jobs.length, points);
  }
}

// Final loss vs N (or C), log-log: points per group, and fitted curves when the API has fits.
export class ScalingChart extends Chart {
  // groups: Map group -> [{x, y, run}]; fits: [{group, xs, ys}]; colourOf(group).
  update({ groups, fits, colourOf, xKey }) {
    const tables = [];
    const series = [];
    const labels = [];  // per series: Map x -> run name, for the hover text
    let points = 0;
    for (const [group, list] of groups) {
      // uPlot needs unique x per series: runs of the same size (seeds) go to separate series of one colour.
      const layers = [];
      for (const p of [...list].sort((a, b) => a.x - b.x)) {
        let layer = layers.find((l) => l.xs[l.xs.length - 1] !== p.x);
        if (!layer) layers.push((layer = { xs: [], ys: [], names: new Map() }));
        layer.xs.push(p.x);
        layer.ys.push(p.y);
        layer.names.set(p.x, p.run.name);
        points++;
      }
      for (const l of layers) {
        tables.push([l.xs, l.ys]);
        labels.push(l.names);
        const c = colourOf(group);
        series.push({ label: group, stroke: c, fill: c, paths: () => null, points: { show: true, size: 8, width: 1, fill: c, stroke: '#fff' } });
      }
    }
    for (const f of fits) {
      tables.push([f.xs, f.ys]);
      labels.push(new Map());
      series.push({ label: `${f.group} fit (${f.law})`, stroke: colourOf(f.group), width: 2, dash: [7, 5], spanGaps: true, points: { show: false } });
    }
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    const key = JSON.stringify([series.map((s) => [s.label, s.stroke]), xKey]);
    const hover = this.hover;
    const build = () => ({
      legend: { show: false },
      cursor: { focus: { prox: 16 }, drag: { x: false, y: false } },
      focus: { alpha: 0.4 },
      // Log scales padded around the data (uPlot would otherwise snap to whole decades).
      scales: {
        x: { time: false, distr: 3, range: (u, lo, hi) => padLog(lo, hi, 1.5) },
        y: { distr: 3, range: (u, lo, hi) => padLog(lo, hi, 1.06) },
      },
      axes: [axis(xKey === 'compute' ? 'compute C (FLOPs)' : 'parameters N (non-embedding)', count),
        axis('final loss', (v) => +v.toPrecision(3), { size: 56 })],
      series: [{ label: xKey }, ...series],
      hooks: {
        setCursor: [
          (u) => {
            if (!hover) return;
            const i = u.cursor.idx;
            const s = u.series.findIndex((x, k) => k > 0 && x._focus);
            if (i == null || s < 1 || u.data[s][i] == null) return void (hover.textContent = '');
            const name = labels[s - 1].get(u.data[0][i]) || u.series[s].label;
            hover.textContent = `${name}: ${count(u.data[0][i])}, loss ${u.data[s][i].toFixed(4)}`;
          },
        ],
      },
    });
    this.figure.dataset.fits = String(fits.length);
    this.show(key, build, data, groups.size ? series.length - fits.length : 0, points);
  }
}

// The base of every uPlot chart of the page: one chart object per <figure>, rebuilt when its series change and
// updated in place when only the data does, its axes (ticks, labels, the theme's colours) and its hover readout's
// place. uPlot itself is passed in (app.js loads it from /vendor/uplot/).
import { logTicks, tickLabels } from './axes.js';

const HEIGHT = 300;

export function plotWidth(plot) {
  return Math.max(280, Math.floor(plot.getBoundingClientRect().width || plot.parentElement.clientWidth || 600));
}

// A colour of the page's theme (style.css; dark mode from the system's preference changes them).
function css(name, fallback) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

// An axis. `formatter` labels each tick, or null for tickLabels (SI from 10k up, as many digits as tell the
// ticks apart). `log`: a log scale, whose ticks come from logTicks (at least 4 labelled, where uPlot's own give
// one or two inside a decade), labels closer than `gap` px to the previous one left blank. `record(labels)`
// gets the labels drawn (the figure's data-ticks-x / -y, read by the tests).
export function axis(label, formatter, { log = false, scale = 'x', gap = 44, record = null, ...extra } = {}) {
  const labelsOf = (splits) => (formatter
    ? splits.map((v) => (v === null || v === undefined ? '' : formatter(v)))
    : tickLabels(splits));
  return {
    label,
    labelSize: 18,
    labelFont: '12px system-ui, sans-serif',
    font: '11px system-ui, sans-serif',
    stroke: css('--muted', '#6b7385'),
    grid: { stroke: css('--line', '#eef0f3'), width: 1 },
    ticks: { stroke: css('--line', '#e3e6ec'), width: 1 },
    // (uPlot's own filter for log axes would blank every tick but the decades: ours are chosen already.)
    ...(log ? { splits: (u, i, min, max) => logTicks(min, max), filter: (u, splits) => splits } : {}),
    values: (u, splits) => {
      let labels = labelsOf(splits);
      if (log) {
        // Labels closer than `gap` to one already kept go blank; decades are kept first, so 10k is never
        // the label that gives way to 9000.
        const at = splits.map((v) => u.valToPos(v, scale));
        const decade = splits.map((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9);
        const kept = [];
        const order = splits.map((_, k) => k).sort((a, b) => Number(decade[b]) - Number(decade[a]) || a - b);
        for (const k of order) {
          if (labels[k] && kept.every((j) => Math.abs(at[j] - at[k]) >= gap)) kept.push(k);
        }
        labels = labels.map((text, k) => (kept.includes(k) ? text : ''));
      }
      record?.(labels.filter(Boolean));
      return labels;
    },
    ...extra,
  };
}

// Base for both charts: owns the uPlot instance, the empty-state text and resizing.
// The point of series 1..lastSeries nearest the cursor, within 24 px: {d, s, i} (series s, index i), or null.
// What a scatter's hover names (never a law's curve or a band's edge, which come after lastSeries).
export function nearestPoint(u, lastSeries) {
  const { left, top } = u.cursor;
  let best = null;
  for (let s = 1; left >= 0 && s <= lastSeries; s++) {
    for (let i = 0; i < u.data[0].length; i++) {
      if (u.data[s][i] == null) continue;
      const d = Math.hypot(u.valToPos(u.data[0][i], 'x') - left, u.valToPos(u.data[s][i], 'y') - top);
      if (d <= 24 && (!best || d < best.d)) best = { d, s, i };
    }
  }
  return best;
}

export class Chart {
  constructor(uPlot, figure) {
    this.uPlot = uPlot;
    this.figure = figure;
    this.plot = figure.querySelector('.plot');
    this.empty = figure.querySelector('.empty');
    this.hover = figure.querySelector('.hover');
    this.u = null;
    this.key = '';
    // (An observer reports every element once when it starts observing: a chart built at that width is not
    // drawn a second time.)
    new ResizeObserver(() => {
      if (!this.u) return;
      const width = plotWidth(this.plot);
      if (width !== this.u.width) this.u.setSize({ width, height: HEIGHT });
    }).observe(this.plot);
  }

  // The labels an axis drew, as the figure's data-ticks-x or data-ticks-y (JSON).
  recordTicks(which) {
    return (labels) => { this.figure.dataset[`ticks${which}`] = JSON.stringify(labels); };
  }

  // key: identity of the series (rebuild when it changes); build(): uPlot options; data: aligned data.
  show(key, build, data, seriesCount, pointCount) {
    this.figure.dataset.series = String(seriesCount);
    this.figure.dataset.points = String(pointCount);
    this.figure.dataset.draws = String(Number(this.figure.dataset.draws || 0) + 1);  // (timed by dashboard-draw.js)
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
    this.figure.dataset.theme = document.documentElement.dataset.theme || '';  // the colours it was built with
  }

  // Built again at the next update: the theme's colours are read when a chart is built.
  restyle() {
    this.key = '';
  }

  destroy() {
    if (this.u) this.u.destroy();
    this.u = null;
    this.key = '';
    if (this.hover) this.hover.textContent = '';
  }
}

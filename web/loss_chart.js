// The metric charts' chart: a metric against step, tokens, FLOPs, training time or any logged metric.
import { plotWidth, axis, Chart } from './chart.js';
import { onColumns } from './columns.js';
import { si } from './format.js';
import { tightLogRange } from './axes.js';
import { valueAt, shortLabels } from './series.js';

// Curves the hover readout names at once (the nearest to the pointer), a line each under a line that says where
// and how many. The readout floats over the plot, in a corner away from the pointer (placeReadout): it never
// moves the plot, and takes no room while the pointer is elsewhere.
const READOUT_ITEMS = 4;

// Indices of series s's points that no line can show, as dots: finite values whose nearest values on both
// sides (skipping the holes of other jobs' x values) are NaN gaps or the ends, e.g. a run's only evaluation.
// uPlot asks on every draw of every series; the answer depends only on the data, so it is kept per data
// column until setData gives new ones.
const isolatedOf = new WeakMap();
function isolatedPoints(u, s) {
  const ys = u.data[s];
  if (!isolatedOf.has(ys)) isolatedOf.set(ys, findIsolated(ys));
  return isolatedOf.get(ys);
}

function findIsolated(ys) {
  const defined = [];
  for (let i = 0; i < ys.length; i++) if (ys[i] !== undefined) defined.push(i);
  const out = defined.filter((i, k) => ys[i] != null && ys[defined[k - 1]] == null && ys[defined[k + 1]] == null);
  return out.length ? out : null;
}

// One metric against step, tokens or FLOPs: one line per curve (a run, or the mean of a run's seeds with a
// min-max band), coloured by group, failed runs dashed, NaN points gaps. The drawn line may be smoothed; the
// readout lists every visible curve's raw value at the cursor (nothing for a curve that has ended there).
// Cursors of every LossChart are synced (uPlot's cursor.sync).
export class LossChart extends Chart {
  // curves: [{id, label, colour, dash, xs, ys (drawn), raw (readout), band: [lo, hi] | null (drawn), rawBand (the
  // readout's band, unsmoothed; band when absent), lead: {x, y} | null,
  // branch: {run, step} | null}] (lead and branch: a cooldown branch, web/family.js);
  // xLabel, yLabel; logX, logY: log axes with tight ranges.
  // xRange: [x0, x1] the axis spans exactly, or null to span its own points: a zoom's range (what was dragged, not
  // the points fetched around it: a run that ended before x0 keeps a point there), or the span a view's charts share.
  update({ curves, xLabel, yLabel, logX, logY, xRange = null }) {
    this.xRange = xRange;
    const tables = [];
    const series = [];
    const bands = [];
    let points = 0;
    // Drawn on the chart's pixel columns (web/columns.js) once there are more points than it has pixels for.
    // A branch's lead (the point where it leaves its run, web/family.js) is drawn before its own points: its line
    // starts on its run's, its band closes there. The readout and the point count keep to its own points.
    const led = (c, ys) => (c.lead ? [c.lead.y, ...ys] : ys);
    const drawn = onColumns(curves.map((c) => ({
      xs: c.lead ? [c.lead.x, ...c.xs] : c.xs,
      ys: (c.band ? [c.ys, c.band[1], c.band[0]] : [c.ys]).map((ys) => led(c, ys)),
    })), this.u ? this.u.width : plotWidth(this.plot), logX);  // (the chart's own width: no forced layout)
    for (const [i, c] of curves.entries()) {
      const { xs, ys } = drawn[i];
      tables.push([xs, ys[0]]);
      points += c.xs.length;
      series.push({
        label: c.label, stroke: c.colour, width: c.branch ? 1.25 : 1.5, dash: c.dash ? [6, 4] : undefined, spanGaps: false,
        points: { show: false, filter: isolatedPoints, size: 6, fill: c.colour },
      });
      if (c.band) {
        const line = series.length;  // uPlot index of the curve (0 is x)
        tables.push([xs, ys[1]], [xs, ys[2]]);
        series.push({ label: `${c.label} max`, stroke: 'transparent', width: 0, points: { show: false } },
          { label: `${c.label} min`, stroke: 'transparent', width: 0, points: { show: false } });
        bands.push({ series: [line + 1, line + 2], fill: `${c.colour}33` });
      }
    }
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    const key = JSON.stringify([curves.map((c) => [c.id, c.colour, c.dash, Boolean(c.band)]), xLabel, yLabel, logX, logY]);
    const readout = this.hover;
    const figure = this.figure;
    this.curves = curves;
    // The readout names a curve by what tells it apart from the others drawn (the full name is its title).
    this.short = shortLabels(curves.map((c) => c.label));
    const build = () => ({
      legend: { show: false },
      // Dragging selects: along x, the zoom of every chart (onZoom puts it in the address and redraws with the
      // points inside it); along y, this chart's y range.
      cursor: { sync: { key: 'gammalab-loss' }, drag: { x: true, y: true, uni: 30, setScale: false }, points: { show: false } },
      bands,
      scales: {
        x: { time: false, distr: logX ? 3 : 1, range: (u, lo, hi) => this.xRange ?? (logX ? tightLogRange(lo, hi) : [lo, hi]) },
        y: { distr: logY ? 3 : 1, range: logY ? (u, lo, hi) => tightLogRange(lo, hi) : undefined },
      },
      axes: [axis(xLabel, logX ? null : si, { log: logX, record: this.recordTicks('X') }),
        axis(yLabel, null, { size: 56, log: logY, scale: 'y', gap: 16, record: this.recordTicks('Y') })],
      series: [{ label: xLabel }, ...series],
      hooks: {
        setCursor: [(u) => this.readout(u, readout, figure)],
        // The x range drawn (the tests read it).
        setScale: [(u, key) => { if (key === 'x') figure.dataset.xscale = JSON.stringify([u.scales.x.min, u.scales.x.max]); }],
        setSelect: [(u) => this.select(u)],
        ready: [(u) => u.over.addEventListener('dblclick', () => this.onZoom?.(null, null))],
      },
    });
    this.figure.dataset.bands = String(bands.length);
    // Each curve's name, colour and where its line starts (a branch's lead, else its first point); the tests read it.
    this.figure.dataset.curves = JSON.stringify(curves.map((c) => ({
      label: c.label, colour: c.colour, branch: c.branch ?? null,
      start: c.lead ? [c.lead.x, c.lead.y] : c.xs.length ? [c.xs[0], c.ys[0]] : null, first: c.xs.length ? [c.xs[0], c.raw[0]] : null,
    })));
    this.figure.dataset.xLabel = xLabel;  // (drawn on the canvas: the tests read what the axis is named here)
    // The largest x drawn (the tests read it: the x axis's data, whichever unit it is in).
    this.figure.dataset.xmax = String(curves.reduce((m, c) => (c.xs.length ? Math.max(m, c.xs[c.xs.length - 1]) : m), -Infinity));
    this.show(key, build, data, curves.length, points);
  }

  select(u) {
    const { left, top, width, height } = u.select;
    if (width <= 0 && height <= 0) return;
    if (width > 0 && height >= u.over.clientHeight - 1) {
      this.onZoom?.(u.posToVal(left, 'x'), u.posToVal(left + width, 'x'));
    } else if (height > 0) {
      u.setScale('y', { min: u.posToVal(top + height, 'y'), max: u.posToVal(top, 'y') });
    }
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
  }

  // The readout: every curve with a point at or before the cursor's x and not past its end.
  readout(u, el, figure) {
    if (!el) return;
    el.replaceChildren();
    const left = u.cursor.left;
    if (left === undefined || left === null || left < 0) {
      figure.dataset.readout = '[]';
      return;
    }
    const x = u.posToVal(left, 'x');
    const rows = [];
    for (const [i, c] of (this.curves || []).entries()) {
      const at = valueAt(c.xs, c.raw, x);
      if (!at) continue;
      // A seeds' band gives its ends beside the mean (min–max, ± s.e. or the t interval, as the legend says), as
      // measured: like the value, not smoothed.
      const ends = c.rawBand ?? c.band;
      const band = ends ? [ends[0][at.i], ends[1][at.i]] : null;
      rows.push({ label: c.label, short: this.short?.[i] ?? c.label, x: at.x, y: at.y, band, colour: c.colour });
    }
    figure.dataset.readout = JSON.stringify(rows.map(({ label, short, x: rx, y, band }) => ({ label, short, x: rx, y, band })));
    if (!rows.length) return;
    // The READOUT_ITEMS curves nearest the pointer's height, highest value first as they lie on the chart, a line
    // each: its colour, its value, and its short name (cut with an ellipsis only where even that is too long).
    // How many there are in all comes first (the full list is figure.dataset.readout).
    const top = u.cursor.top;
    const y = top === undefined || top === null || top < 0 ? null : u.posToVal(top, 'y');
    if (y !== null) rows.sort((a, b) => Math.abs((a.y ?? Infinity) - y) - Math.abs((b.y ?? Infinity) - y));
    const shown = rows.slice(0, READOUT_ITEMS).sort((a, b) => (b.y ?? -Infinity) - (a.y ?? -Infinity));
    const head = document.createElement('span');
    head.className = 'readout-x';
    // Where the values are: the x of the points read (a whole step, never the pointer's "step 48.6"); where the
    // curves' points lie at different x, the pointer's, whole where every point's x is.
    const xs = new Set(rows.map((r) => r.x));
    const where = xs.size === 1 ? rows[0].x : rows.every((r) => Number.isInteger(r.x)) ? Math.round(x) : x;
    const whereText = Number.isInteger(where) && Math.abs(where) < 1e6 ? where.toLocaleString('en-US') : si(where);
    head.textContent = `${u.series[0].label} ${whereText}`
      + `${rows.length > shown.length ? ` · ${shown.length} nearest of ${rows.length}:` : ''}`;
    el.append(head);
    for (const r of shown) {
      const item = document.createElement('span');
      item.className = 'readout-item';
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = r.colour;
      const value = document.createElement('span');
      value.className = 'readout-value';
      value.textContent = r.y === null ? 'NaN' : r.y.toPrecision(5);
      const name = document.createElement('span');
      name.className = 'readout-label';
      name.textContent = r.short;
      name.title = r.label;
      item.append(sw, value, ' ', name);  // (the space: the row's text reads as a line where it is copied)
      if (r.band && Number.isFinite(r.band[0]) && Number.isFinite(r.band[1])) {
        const band = document.createElement('span');
        band.className = 'readout-band';
        band.textContent = ` ${r.band[0].toPrecision(4)}–${r.band[1].toPrecision(4)}`;
        item.append(band);
      }
      el.append(item);
    }
    this.placeReadout(u, el, figure, left, top);
  }

  // The readout floats in a corner of the plot away from the pointer: the left half when the pointer is on the
  // right, the bottom when it is in the top half. It never hides the point it describes, and (positioned over
  // the plot, not beside it) never moves the chart.
  placeReadout(u, el, figure, left, top) {
    const fig = figure.getBoundingClientRect();
    const over = u.over.getBoundingClientRect();
    const overLeft = over.left - fig.left, overTop = over.top - fig.top;
    const margin = 6;
    if (left > over.width / 2) {
      el.style.left = `${overLeft + margin}px`;
      el.style.right = 'auto';
    } else {
      el.style.left = 'auto';
      el.style.right = `${fig.width - overLeft - over.width + margin}px`;
    }
    const low = top !== undefined && top !== null && top >= 0 && top < over.height / 2;
    el.style.top = `${low ? overTop + over.height - el.offsetHeight - margin : overTop + margin}px`;
  }
}

// uPlot wrappers: one chart object per <figure>, rebuilt when its series change and updated in place when
// only the data does. uPlot itself is passed in (app.js loads it from /vendor/uplot/).
import { si, count, valueAt, shortLabels, tightLogRange, logTicks, tickLabels } from './series.js';
import { onColumns } from './columns.js';

const HEIGHT = 300;
// Curves the hover readout names at once (the nearest to the pointer), a line each under a line that says where
// and how many. The readout floats over the plot, in a corner away from the pointer (placeReadout): it never
// moves the plot, and takes no room while the pointer is elsewhere.
const READOUT_ITEMS = 4;

function plotWidth(plot) {
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
function axis(label, formatter, { log = false, scale = 'x', gap = 44, record = null, ...extra } = {}) {
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
class Chart {
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

// Final loss vs N (or C), log-log: points per group, and fitted curves when the API has fits.
export class ScalingChart extends Chart {
  // groups: Map group -> [{x, y, run}]; fits: [{group, xs, ys, band: {lo, hi} | null}] (band: filled between
  // lo and hi at each x, series.js fitBand); colourOf(group).
  // reading: the headline's reading (headline_reading.js), its lines drawn over the fits.
  update({ groups, fits, colourOf, xKey, reading = null }) {
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
    const bands = [];
    const runSeries = series.length;  // the runs' points; fits and bands follow
    for (const f of fits) {
      tables.push([f.xs, f.ys]);
      labels.push(new Map());
      series.push({ label: `${f.group} fit (${f.law})`, stroke: colourOf(f.group), width: 2, dash: [7, 5], spanGaps: true, points: { show: false } });
      if (f.band) {  // [lo, hi] per x: filled between two series, its edges
        const line = series.length;  // uPlot index of the fitted curve (0 is x)
        tables.push([f.xs, f.band.hi], [f.xs, f.band.lo]);
        labels.push(new Map(), new Map());
        // Each band's edges drawn thin and dotted in its group's colour: overlapping bands of similar tints are
        // told apart by where each ends.
        const edge = { stroke: `${colourOf(f.group)}b3`, width: 0.75, dash: [2, 3], spanGaps: true, points: { show: false } };
        series.push({ label: `${f.group} fit (${f.law}) hi`, ...edge }, { label: `${f.group} fit (${f.law}) lo`, ...edge });
        bands.push({ series: [line + 1, line + 2], fill: `${colourOf(f.group)}26` });
      }
    }
    // The reference's curve and a shared fit thin and solid (a per-variant law is dashed); each level line thick in
    // its variant's colour, its ends marked.
    const lines = reading?.lines ?? [];
    for (const l of lines) {
      tables.push([l.xs, l.ys]);
      labels.push(new Map());
      const stroke = colourOf(l.group);
      series.push(l.kind === 'reading'
        ? { label: l.label, stroke, width: 2.5, spanGaps: true, points: { show: true, size: 6, width: 1, fill: stroke, stroke } }
        : { label: l.label, stroke, width: 1.25, spanGaps: true, points: { show: false } });
    }
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    // The runs' extent, read by the scales' range functions on every draw (so new points need no rebuild).
    const pointsOf = [...groups.values()].flat();
    this.xRange = pointsOf.length ? [Math.min(...pointsOf.map((p) => p.x)), Math.max(...pointsOf.map((p) => p.x))] : [];
    this.yRange = pointsOf.length ? [Math.min(...pointsOf.map((p) => p.y)), Math.max(...pointsOf.map((p) => p.y))] : [];
    const key = JSON.stringify([series.map((s) => [s.label, s.stroke]), bands.length, xKey]);
    const hover = this.hover;
    const build = () => ({
      legend: { show: false },
      bands,
      cursor: { drag: { x: false, y: false } },
      // Log scales around the runs' points (uPlot would otherwise snap to whole decades, and a wide band of an
      // extrapolated law would squeeze the points, whose differences are the study, into a stripe): the
      // points take about four fifths of the height; fitted curves and bands outside are cut at the edge.
      scales: {
        x: { time: false, distr: 3, range: (u, lo, hi) => tightLogRange(this.xRange[0] ?? lo, this.xRange[1] ?? hi, 0.12) },
        y: { distr: 3, range: (u, lo, hi) => tightLogRange(this.yRange[0] ?? lo, this.yRange[1] ?? hi, 0.12) },
      },
      axes: [axis(xKey === 'compute' ? 'compute C (FLOPs)' : 'parameters N (non-embedding)', null,
        { log: true, record: this.recordTicks('X') }),
      axis('final loss', null, { size: 56, log: true, scale: 'y', gap: 16, record: this.recordTicks('Y') })],
      series: [{ label: xKey }, ...series],
      hooks: {
        setCursor: [
          // The run nearest the pointer (within 24 px), never a law's curve or a band's edge.
          (u) => {
            if (!hover) return;
            const { left, top } = u.cursor;
            let best = null;
            for (let s = 1; left >= 0 && s <= runSeries; s++) {
              for (let i = 0; i < u.data[0].length; i++) {
                if (u.data[s][i] == null) continue;
                const d = Math.hypot(u.valToPos(u.data[0][i], 'x') - left, u.valToPos(u.data[s][i], 'y') - top);
                if (d <= 24 && (!best || d < best.d)) best = { d, s, i };
              }
            }
            if (!best) return void (hover.textContent = '');
            const name = labels[best.s - 1].get(u.data[0][best.i]) || u.series[best.s].label;
            hover.textContent = `${name}: ${count(u.data[0][best.i])}, loss ${u.data[best.s][best.i].toFixed(4)}`;
            this.figure.dataset.hoverRun = name;
          },
        ],
        draw: [(u) => this.onDraw?.(u)],
      },
    });
    this.figure.dataset.fits = String(fits.length);
    this.figure.dataset.readings = String(lines.filter((l) => l.kind === 'reading').length);
    this.figure.dataset.headline = (reading?.estimators ?? []).join(',');
    // The share of the plot's height the runs' points span (the tests read it: the points are the study, and
    // must not be squeezed into a stripe by the axis).
    this.figure.dataset.pointsSpan = '';
    this.onDraw = null;
    if (this.yRange.length) {
      this.onDraw = (u) => {
        const span = Math.abs(u.valToPos(this.yRange[0], 'y') - u.valToPos(this.yRange[1], 'y')) / u.bbox.height * devicePixelRatio;
        this.figure.dataset.pointsSpan = span.toFixed(3);
      };
    }
    this.figure.dataset.bands = String(bands.length);
    this.show(key, build, data, groups.size ? runSeries : 0, points);
  }
}

// A marker of a series' points in one of the shapes of surface.js MARKERS (uPlot draws circles only): a points
// path builder, drawn with the series' points.fill and points.stroke.
function markerPaths(shape) {
  return (u, s, i0, i1) => {
    const xs = u.data[0];
    const ys = u.data[s];
    const size = u.series[s].points.size * devicePixelRatio;
    const r = size / 2;
    const path = new Path2D();
    for (let i = i0; i <= i1; i++) {
      if (ys[i] == null) continue;
      const x = u.valToPos(xs[i], 'x', true);
      const y = u.valToPos(ys[i], 'y', true);
      if (shape === 'square') path.rect(x - r * 0.85, y - r * 0.85, 1.7 * r, 1.7 * r);
      else if (shape === 'triangle') {
        path.moveTo(x, y - r * 1.1);
        path.lineTo(x + r, y + r * 0.75);
        path.lineTo(x - r, y + r * 0.75);
        path.closePath();
      } else if (shape === 'diamond') {
        path.moveTo(x, y - r * 1.15);
        path.lineTo(x + r, y);
        path.lineTo(x, y + r * 1.15);
        path.lineTo(x - r, y);
        path.closePath();
      } else {
        path.moveTo(x + r, y);
        path.arc(x, y, r, 0, 2 * Math.PI);
      }
    }
    return { stroke: path, fill: shape === 'ring' ? null : path, clip: null, flags: 3 };
  };
}

// Final (annealed) loss against tokens D, log-log (study.js surfaceView): a line through each variant's and
// size's mean loss per budget, in the variant's colour with a marker per size, and the fitted law L(N, D) at each
// size's N, dashed. The hover names the nearest point: variant, size, D, loss and its runs.
const X_LABEL_D = 'tokens D (each run\'s or branch\'s budget)';
const Y_LABEL_D = 'final loss (annealed)';
export class SurfaceChart extends Chart {
  update({ lines, laws, colourOf, markerOf }) {
    const tables = [];
    const series = [];
    const hoverOf = [];  // per series: Map D -> text
    let points = 0;
    for (const line of lines) {
      const c = colourOf(line.variant);
      const marker = markerOf(line.preset);
      tables.push([line.points.map((p) => p.x), line.points.map((p) => p.y)]);
      points += line.points.length;
      hoverOf.push(new Map(line.points.map((p) => [p.x, `${line.variant} ${line.preset}, D=${si(p.x)}: loss ${p.y.toFixed(4)}`
        + `${Number.isFinite(p.se) ? ` ± ${p.se.toFixed(4)}` : ''} (${p.n} run${p.n === 1 ? '' : 's'})`])));
      series.push({
        label: `${line.variant} ${line.preset}`, stroke: c, width: 1.5,
        points: { show: true, size: 9, width: 1.5, fill: c, stroke: c, paths: markerPaths(marker.shape) },
      });
    }
    const lineSeries = series.length;
    for (const law of laws) {
      tables.push([law.xs, law.ys]);
      hoverOf.push(new Map());
      series.push({ label: `${law.variant} ${law.preset} law`, stroke: colourOf(law.variant), width: 1.25, dash: [7, 5], spanGaps: true, points: { show: false } });
    }
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    const all = lines.flatMap((l) => l.points);
    this.xRange = all.length ? [Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x))] : [];
    this.yRange = all.length ? [Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.y))] : [];
    const key = JSON.stringify(series.map((s) => [s.label, s.stroke]));
    const hover = this.hover;
    const figure = this.figure;
    const build = () => ({
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      // Around the runs' points, as the scaling chart: the laws are cut at the edge rather than squeeze them.
      scales: {
        x: { time: false, distr: 3, range: (u, lo, hi) => tightLogRange(this.xRange[0] ?? lo, this.xRange[1] ?? hi, 0.08) },
        y: { distr: 3, range: (u, lo, hi) => tightLogRange(this.yRange[0] ?? lo, this.yRange[1] ?? hi, 0.12) },
      },
      axes: [axis(X_LABEL_D, null, { log: true, record: this.recordTicks('X') }),
        axis(Y_LABEL_D, null, { size: 56, log: true, scale: 'y', gap: 16, record: this.recordTicks('Y') })],
      series: [{ label: 'D' }, ...series],
      hooks: {
        setCursor: [(u) => {
          if (!hover) return;
          const { left, top } = u.cursor;
          let best = null;
          for (let s = 1; left >= 0 && s <= lineSeries; s++) {
            for (let i = 0; i < u.data[0].length; i++) {
              if (u.data[s][i] == null) continue;
              const d = Math.hypot(u.valToPos(u.data[0][i], 'x') - left, u.valToPos(u.data[s][i], 'y') - top);
              if (d <= 24 && (!best || d < best.d)) best = { d, s, i };
            }
          }
          hover.textContent = best ? hoverOf[best.s - 1].get(u.data[0][best.i]) || '' : '';
          figure.dataset.hover = hover.textContent;
        }],
      },
    });
    // What is drawn, for the tests: each line's variant, size, marker, colour and points; each law's size.
    figure.dataset.lines = JSON.stringify(lines.map((l) => ({
      variant: l.variant, preset: l.preset, params: l.params, colour: colourOf(l.variant), marker: markerOf(l.preset).shape,
      points: l.points.map((p) => [p.x, p.y]),
    })));
    figure.dataset.laws = JSON.stringify(laws.map((l) => ({ variant: l.variant, preset: l.preset, params: l.params })));
    figure.dataset.axes = JSON.stringify([X_LABEL_D, Y_LABEL_D]);
    this.show(key, build, data, lineSeries, points);
  }
}

// Mean final loss of the tune stage against the tuned value (log x), one line per group, its pick ringed.
export class TuneChart extends Chart {
  // tune: tuneSeries(...); colourOf(label), dashOf(label) (study.js, tuneStyles); seeds: Map label -> [[x, loss]]
  // of each tune run (tune_seeds.js), drawn as small rings about its curve's mean: the seeds' spread.
  update({ tune, colourOf, dashOf = () => undefined, seeds = new Map() }) {
    const tables = [];
    const series = [];
    let points = 0;
    let seedPoints = 0;
    for (const g of tune?.groups || []) {
      tables.push([g.xs, g.ys]);
      points += g.xs.length;
      const c = colourOf(g.label);
      series.push({ label: g.label, stroke: c, width: 1.5, dash: dashOf(g.label), points: { show: true, size: 7, fill: c } });
      if (g.best) {
        tables.push([[g.best.x], [g.best.y]]);
        series.push({ label: `${g.label} pick`, stroke: c, paths: () => null, points: { show: true, size: 14, width: 2, fill: 'transparent', stroke: c } });
      }
      // uPlot needs distinct x in a series: seeds at one value go to layers of their own.
      const layers = [];
      for (const [x, y] of [...(seeds.get(g.label) || [])].sort((a, b) => a[0] - b[0])) {
        let layer = layers.find((l) => l.xs[l.xs.length - 1] !== x);
        if (!layer) layers.push((layer = { xs: [], ys: [] }));
        layer.xs.push(x);
        layer.ys.push(y);
        seedPoints++;
      }
      for (const l of layers) {
        tables.push([l.xs, l.ys]);
        series.push({ label: `${g.label} seed`, stroke: c, paths: () => null, points: { show: true, size: 5, width: 1, fill: 'transparent', stroke: `${c}b3` } });
      }
    }
    this.figure.dataset.seedPoints = String(seedPoints);
    const data = tables.length ? this.uPlot.join(tables) : [[]];
    const key = JSON.stringify([series.map((s) => [s.label, s.stroke]), tune?.field]);
    const build = () => ({
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, distr: 3, range: (u, lo, hi) => tightLogRange(lo, hi, 0.08) }, y: { range: (u, lo, hi) => [lo - (hi - lo) * 0.08 - 1e-9, hi + (hi - lo) * 0.08 + 1e-9] } },
      axes: [axis(tune?.field || 'value', null, { log: true, record: this.recordTicks('X') }),
        axis(seedPoints ? 'final loss (mean; rings: each seed)' : 'mean final loss', null, { size: 56, record: this.recordTicks('Y') })],
      series: [{ label: tune?.field || 'value' }, ...series],
    });
    const groups = tune?.groups || [];
    this.figure.dataset.picks = String(groups.filter((g) => g.best).length);
    this.show(key, build, data, groups.length, points);
  }
}

// The scaling law's chart: final loss against N or C with the fitted laws, their bands and the headline's reading.
import { axis, Chart, nearestPoint } from './chart.js';
import { count } from './format.js';
import { tightLogRange } from './axes.js';

// Final loss vs N (or C), log-log: points per group, and fitted curves when the API has fits.
export class ScalingChart extends Chart {
  // groups: Map group -> [{x, y, run}]; fits: [{group, xs, ys, band: {lo, hi} | null}] (band: filled between
  // lo and hi at each x, laws.js fitBand); colourOf(group).
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
            const best = nearestPoint(u, runSeries);
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

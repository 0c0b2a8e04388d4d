// A surface of cooldown branches: final loss against tokens D per variant and size, a marker per size.
import { axis, Chart, nearestPoint } from './chart.js';
import { si } from './format.js';
import { tightLogRange } from './axes.js';

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
          const best = nearestPoint(u, lineSeries);
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

// The tune stage's chart: mean final loss against the tuned value per group, with each seed's and the pick.
import { axis, Chart } from './chart.js';
import { tightLogRange } from './axes.js';

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

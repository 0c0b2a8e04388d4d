// Final loss against tokens D, a line per variant and model size: how a sweep with cooldown branches is read
// (docs/branches.md). Such a sweep is a surface: every size has its losses at several budgets D, each the end of
// a run's or a branch's decay (an annealed loss), and the Chinchilla law L(N, D) is fitted to all of them. A plot
// against N alone stacks a size's budgets at one x and can draw the law at one tokens-per-parameter only; against
// D, each size is a curve of its own and the law is drawn at each size's N. Pure helpers (no DOM), unit-tested in
// test/surface.test.js; study.js builds the view, surface_chart.js draws it.
import { sortGroups } from './colours.js';
import { chinchillaLoss, logSpace } from './laws.js';
import { meanSe } from './seeds.js';
import { studyRuns, inFitState } from './series.js';

// The study's succeeded main-stage runs with a size, a budget and a finite positive loss (`lossKey`: "loss",
// "final_val_loss" or "final_train_loss"), by variant and preset. A run's tokens are its budget D: the tokens it
// was planned to train on, a branch's own (shorter) budget.
function finished(runs, lossKey) {
  return studyRuns(runs).filter((r) => inFitState(r) && r.preset != null && r.params > 0 && r.tokens > 0
    && typeof r[lossKey] === 'number' && Number.isFinite(r[lossKey]) && r[lossKey] > 0);
}

// The lines of the plot: one per variant and preset with its N and, per budget D (ascending), the mean loss over
// the runs there (its seeds): [{variant, preset, params, points: [{x: D, y: mean, se, n, names}]}], variants in
// the page's order, then presets by N. `surface`: some line has two or more budgets (with one each, D only
// follows N and the plot against N says everything).
export function surfaceLines(runs, lossKey) {
  const byLine = new Map();
  for (const r of finished(runs, lossKey)) {
    const key = `${r.variant}\u0000${r.preset}`;
    if (!byLine.has(key)) byLine.set(key, { variant: r.variant ?? 'unknown', preset: r.preset, params: r.params, at: new Map() });
    const line = byLine.get(key);
    if (!line.at.has(r.tokens)) line.at.set(r.tokens, []);
    line.at.get(r.tokens).push(r);
  }
  const order = sortGroups([...byLine.values()].map((l) => l.variant), 'variant');
  const lines = [...byLine.values()].sort((a, b) => order.indexOf(a.variant) - order.indexOf(b.variant)
    || a.params - b.params || a.preset.localeCompare(b.preset)).map((l) => ({
    variant: l.variant, preset: l.preset, params: l.params,
    points: [...l.at].sort((a, b) => a[0] - b[0]).map(([x, list]) => {
      const { mean, se, n } = meanSe(list.map((r) => r[lossKey]));
      return { x, y: mean, se, n, names: list.map((r) => r.name) };
    }),
  }));
  return { lines, surface: lines.some((l) => l.points.length > 1) };
}

// The model sizes of the lines, smallest N first (a variant's N differs a little from the baseline's at one
// preset: the baseline's, else the smallest, orders them).
export function surfaceSizes(lines) {
  const n = new Map();
  for (const l of lines) if (!n.has(l.preset) || l.variant === 'baseline') n.set(l.preset, l.params);
  return [...n].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([preset]) => preset);
}

// A marker per model size, in the order of surfaceSizes; its glyph names it in a legend.
export const MARKERS = [
  { shape: 'circle', glyph: '●' }, { shape: 'square', glyph: '■' }, { shape: 'triangle', glyph: '▲' },
  { shape: 'diamond', glyph: '◆' }, { shape: 'ring', glyph: '○' },
];
export function markerOf(sizes, preset) {
  const k = sizes.indexOf(preset);
  return MARKERS[(k < 0 ? 0 : k) % MARKERS.length];
}

// The fitted Chinchilla law of each line's variant at the line's N, over the line's own budgets (log-spaced from
// its smallest D over `pad` to its largest times `pad`: a law is shown where its size has data, so nine curves over
// every size's range do not bury the points): [{variant, preset, params, xs, ys}] for the lines whose variant has
// a group in a stored report of law chinchilla (the only law with D in it); ys null where the law is not a finite
// positive loss.
export function lawsAtSizes(lines, reports, pad = 1.25) {
  const report = reports.find((r) => r.law === 'chinchilla');
  if (!report) return [];
  const out = [];
  for (const line of lines) {
    const group = report.groups.find((g) => g.group === line.variant);
    const L = group && chinchillaLoss(group.parameters);
    if (!L || !line.points.length) continue;
    const xs = logSpace(line.points[0].x / pad, line.points[line.points.length - 1].x * pad, 24);
    const ys = xs.map((D) => {
      const y = L(line.params, D);
      return Number.isFinite(y) && y > 0 ? y : null;
    });
    if (ys.some((y) => y !== null)) out.push({ variant: line.variant, preset: line.preset, params: line.params, xs, ys });
  }
  return out;
}

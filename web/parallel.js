// The tune stage in parallel coordinates: a vertical axis per config field that varies between the tune runs (the
// variant and the size first, the tuned field last) and the final loss at the right, each tune run a line through
// its values, coloured by its loss (the best at the palette's end farthest from the page's background, on top).
// What the loss-against-value chart shows one field at a time, this shows for every field at once: which sizes
// and arms sit where, and whether the best LRs line up.
// Drawn as SVG (uPlot draws functions of one x, not lines across axes); text only through textContent.
import { jobConfig, varyingPaths, configText } from './config_columns.js';
import { SEQUENTIAL } from './colours.js';

const MAX_FIELD_AXES = 6;
const FIRST = ['scale.variant', 'model.preset'];

// An axis over `values` (one per run, undefined where a run lacks the field): numbers on a log scale where all
// are positive and span a decade or more (learning rates), else linear; anything else as ordered categories.
// pos(value) is in [0, 1], 0 at the bottom; ticks: [{value, text}].
function axisOf(path, values) {
  const present = values.filter((v) => v !== undefined && v !== null);
  const numbers = present.length > 0 && present.every((v) => typeof v === 'number' && Number.isFinite(v));
  if (numbers) {
    const lo = Math.min(...present);
    const hi = Math.max(...present);
    const log = lo > 0 && hi / lo >= 10;
    const f = log ? Math.log : (x) => x;
    const span = f(hi) - f(lo);
    const pos = (v) => (typeof v === 'number' ? (span > 0 ? (f(v) - f(lo)) / span : 0.5) : null);
    const distinct = [...new Set(present)].sort((a, b) => a - b);
    const ticks = (distinct.length <= 8 ? distinct : [lo, hi]).map((v) => ({ value: v, text: configText(v) }));
    return { path, kind: log ? 'log' : 'linear', pos, ticks };
  }
  const categories = [...new Set(present.map((v) => configText(v)))].sort();
  const pos = (v) => {
    const k = categories.indexOf(configText(v));
    return k < 0 ? null : categories.length === 1 ? 0.5 : k / (categories.length - 1);
  };
  return { path, kind: 'category', pos, ticks: categories.map((c) => ({ value: c, text: c })) };
}

// The tune runs of `jobs` (stage 'tune') with their final loss from `lossOf(job)` (NaN: no loss, a failed or
// diverged run): {axes: [...field axes, loss axis], lines: [{job, name, values, ys, loss, colour}], failed},
// or null with fewer than two tune runs. `tunedField`: the tune stage's field, put last before the loss. `dark`:
// the page's theme is dark, and the best run takes the palette's bright end (its dark end would vanish there).
export function parallelView(jobs, lossOf, tunedField, { dark = false } = {}) {
  const runs = jobs.filter((j) => j.stage === 'tune');
  if (runs.length < 2) return null;
  const configs = runs.map((j) => jobConfig(j));
  const varying = varyingPaths(configs, new Set());
  const first = FIRST.filter((p) => varying.includes(p));
  // A field with one value per variant and size is set by them (a preset's d_model, a size's steps and warmup):
  // their axes say it already. The seed is no setting of the search.
  const keyOf = (c) => JSON.stringify(first.map((f) => c.get(f)));
  const setByFirst = (p) => {
    const valueOf = new Map();  // the first axes' values -> p's value there
    for (const c of configs) {
      const key = keyOf(c);
      const v = JSON.stringify(c.get(p) ?? null);
      if (!valueOf.has(key)) valueOf.set(key, v);
      else if (valueOf.get(key) !== v) return false;
    }
    return true;
  };
  const rest = varying.filter((p) => !FIRST.includes(p) && p !== tunedField && p !== 'seed' && !setByFirst(p));
  const tuned = varying.includes(tunedField) ? [tunedField] : [];
  const paths = [...first, ...rest.slice(0, Math.max(0, MAX_FIELD_AXES - first.length - tuned.length)), ...tuned];
  const losses = runs.map((j) => Number(lossOf(j)));
  const finite = losses.filter(Number.isFinite);
  const axes = paths.map((p) => axisOf(p, configs.map((c) => c.get(p))));
  const loss = axisOf('final loss', finite);
  // A run without a loss sits above the loss axis's top, at a tick of its own: it failed at those values.
  const lossAxis = { ...loss, kind: 'loss', pos: (v) => (Number.isFinite(v) ? loss.pos(v) * 0.9 : 1) };
  lossAxis.ticks = [...(finite.length ? [Math.min(...finite), Math.max(...finite)] : []).map((v) => ({ value: v, text: v.toFixed(4) })),
    ...(finite.length < losses.length ? [{ value: NaN, text: 'no loss' }] : [])];
  const rank = [...finite].sort((a, b) => b - a);  // worst first: the palette's far end is the best
  const lines = runs.map((job, k) => {
    const values = paths.map((p) => configs[k].get(p));
    const l = losses[k];
    const best = Number.isFinite(l) ? (rank.length > 1 ? rank.indexOf(l) / (rank.length - 1) : 1) : null;
    const t = best === null ? null : dark ? 1 - best : best;
    return {
      job, name: job.name, values, loss: l,
      ys: [...axes.map((a, i) => a.pos(values[i])), lossAxis.pos(l)],
      colour: t === null ? '#9aa1ad' : SEQUENTIAL[Math.round(t * (SEQUENTIAL.length - 1))],
    };
  });
  // The best run drawn last, on top.
  lines.sort((a, b) => (Number.isFinite(b.loss) ? b.loss : Infinity) - (Number.isFinite(a.loss) ? a.loss : Infinity));
  return { axes: [...axes, lossAxis], lines, failed: losses.length - finite.length };
}

// Tick labels an axis has room for: `placed` is [{tick, y}] (y in pixels, larger lower), and no two kept labels
// are closer than `gap` pixels (a label's height and a little). The lowest and the highest are always kept; from
// the bottom up, a tick is kept when it clears the last kept one and the highest. The values left out stay on
// the lines' hover titles. (Eight learning rates on a log axis put 0.0156 and 0.0208 one line apart.)
export function legibleTicks(placed, gap) {
  const order = [...placed].sort((a, b) => b.y - a.y);
  if (order.length <= 2) return order;
  const top = order[order.length - 1];
  const kept = [order[0]];
  for (const p of order.slice(1, -1)) {
    if (kept[kept.length - 1].y - p.y >= gap && p.y - top.y >= gap) kept.push(p);
  }
  kept.push(top);
  return kept;
}

const TICK_GAP = 13;  // px: the tick labels' 11px text and a little

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, text = null) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  return el;
}

// Draws `view` (parallelView) into `figure`'s .plot, as wide as it is. The figure's data attributes say what is
// drawn (the tests read them): axes (their paths) and lines.
export function drawParallel(figure, view) {
  const plot = figure.querySelector('.plot');
  plot.replaceChildren();
  figure.hidden = !view;
  if (!view) return;
  const width = Math.max(320, plot.clientWidth || figure.clientWidth || 800);
  const height = 260;
  const top = 44, bottom = 22, left = 56, right = 56;
  const x = (i) => left + ((width - left - right) * i) / (view.axes.length - 1);
  const y = (p) => top + (1 - p) * (height - top - bottom);
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'parallel', role: 'img' });
  root.append(svg('title', {}, `tune runs across ${view.axes.map((a) => a.path).join(', ')}`));
  for (const line of view.lines) {
    const points = line.ys.map((p, i) => (p === null ? null : `${x(i).toFixed(1)},${y(p).toFixed(1)}`));
    if (points.includes(null)) continue;  // (a run without one of the fields: no line to draw through it)
    const poly = svg('polyline', { points: points.join(' '), fill: 'none', stroke: line.colour, 'stroke-width': 1.5,
      'stroke-dasharray': Number.isFinite(line.loss) ? 'none' : '4 3', 'data-job-id': line.job.id });
    poly.append(svg('title', {}, `${line.name}: ${view.axes.slice(0, -1).map((a, i) => `${a.path} = ${configText(line.values[i])}`).join(', ')}; `
      + `final loss ${Number.isFinite(line.loss) ? line.loss.toFixed(4) : 'none'}`));
    root.append(poly);
  }
  view.axes.forEach((a, i) => {
    root.append(svg('line', { x1: x(i), x2: x(i), y1: y(0), y2: y(1), class: 'parallel-axis' }));
    // Labels closer than a long path's width alternate between two rows, so that neighbours never overlap.
    const row = x(1) - x(0) < 130 && i % 2 ? 13 : 0;
    root.append(svg('text', { x: x(i), y: top - 20 + row, 'text-anchor': 'middle', class: 'parallel-label' }, a.path));
    const placed = a.ticks.map((t) => ({ tick: t, y: y(a.kind === 'loss' && Number.isNaN(t.value) ? 1 : a.pos(t.value)) }));
    for (const { tick, y: at } of legibleTicks(placed, TICK_GAP)) {
      root.append(svg('text', { x: x(i) + 4, y: at + 4, class: 'parallel-tick', 'data-axis': String(i) }, tick.text));
    }
  });
  plot.append(root);
  figure.dataset.axes = JSON.stringify(view.axes.map((a) => a.path));
  figure.dataset.lines = String(root.querySelectorAll('polyline').length);
}

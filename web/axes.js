// Axes of the page's charts: tight log ranges, log ticks (at least four labels) and tick labels that tell every
// tick apart.
import { si } from './format.js';

// A tight range for a log axis: the data's [lo, hi] padded by a few percent in log space (no snap to decades).
export function tightLogRange(lo, hi, pad = 0.04) {
  if (!(lo > 0 && hi > 0)) return [1, 10];
  if (lo === hi) return [lo / 1.1, hi * 1.1];
  const a = Math.log10(lo);
  const b = Math.log10(hi);
  const d = (b - a) * pad;
  return [10 ** (a - d), 10 ** (b + d)];
}

// Tick values for a log axis over [lo, hi], so that it carries at least `want` labelled ticks: the decades when
// they are enough (every k-th when they are too many), else over half a decade or more the sparsest of the
// mantissa sets 1-3, 1-2-5 and 1..9 that gives `want`; over less, where a log axis has one tick or none, round
// linear steps (1, 2, 2.5 or 5 times a power of ten), still placed on the log scale.
export function logTicks(lo, hi, want = 4) {
  if (!(lo > 0 && hi > lo)) return [];
  const inside = (v) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  const e0 = Math.floor(Math.log10(lo));
  const e1 = Math.ceil(Math.log10(hi));
  const span = Math.log10(hi / lo);
  const decades = [];
  for (let e = e0; e <= e1; e++) if (inside(10 ** e)) decades.push(+(10 ** e).toPrecision(12));
  if (decades.length >= want) {
    const every = Math.ceil(decades.length / 10);
    return decades.filter((_, i) => i % every === 0);
  }
  if (span >= 0.5) {
    for (const mantissas of [[1, 3], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
      const ticks = [];
      for (let e = e0; e <= e1; e++) {
        for (const m of mantissas) if (inside(m * 10 ** e)) ticks.push(+(m * 10 ** e).toPrecision(12));
      }
      if (ticks.length >= want) return ticks;
    }
  }
  // The largest round step that still gives `want` ticks.
  const p = 10 ** Math.floor(Math.log10((hi - lo) / want));
  const count = (step) => Math.floor(hi / step + 1e-9) - Math.ceil(lo / step - 1e-9) + 1;
  const step = [10, 5, 2.5, 2, 1, 0.5, 0.25, 0.2, 0.1].map((m) => m * p).find((st) => count(st) >= want) || p / 10;
  const ticks = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-9); k++) ticks.push(+(k * step).toPrecision(12));
  return ticks;
}

// Labels for an axis's ticks: SI prefixes from 10k up (no "1230000000000" to be clipped), and as few
// significant digits (3 or more) as tell every tick apart (2.252 and 2.254, not 2.25 twice).
export function tickLabels(values) {
  const text = (v, digits) => {
    if (v === null || v === undefined || !Number.isFinite(v)) return '';
    return Math.abs(v) >= 1e4 ? si(v, digits) : `${+v.toPrecision(digits)}`;
  };
  for (let digits = 3; digits < 8; digits++) {
    const labels = values.map((v) => text(v, digits));
    if (new Set(labels.filter(Boolean)).size === labels.filter(Boolean).length) return labels;
  }
  return values.map((v) => text(v, 8));
}

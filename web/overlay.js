// Runs of other sweeps drawn over the open sweep's in the metric charts: the `with` setting holds their ids
// (`#/sweeps/3?with=5,7`). An overlaid sweep's groups (its variants, or model sizes) are groups of their own,
// keyed by the sweep's id, so that they take colours no group of the open sweep has and hide or show on their
// own; its curves and legend keys carry its name, so that two sweeps' "baseline" cannot be mistaken for each
// other. Pure helpers (no DOM), unit-tested in test/overlay.test.js.
import { CATEGORICAL } from './colours.js';

// An overlaid sweep's group, as the legend and the `hidden` setting key it: the sweep's id (no comma, unlike a
// name, so the list in the address stays a list) and the group.
export const overlayGroup = (sweepId, group) => `${sweepId}/${group}`;

// What a reader sees for an overlaid sweep's group or curve: the sweep's name first.
export const overlayLabel = (sweepName, text) => `${sweepName} · ${text}`;

// The ids the `with` setting may hold: each once, never the open sweep's own.
export function overlayIds(chosen, openId) {
  return [...new Set(chosen.map(String))].filter((id) => id !== String(openId));
}

// The sweeps that can be added to the overlay: every listed sweep but the open one and those overlaid already,
// newest first (as the sweep list shows them).
export function overlayChoices(sweeps, openId, chosen) {
  const taken = new Set([String(openId), ...chosen.map(String)]);
  return sweeps.filter((s) => !taken.has(String(s.id))).reverse();
}

// The chart groups of the open sweep and its overlays: the open sweep's groups as they are, then each overlaid
// sweep's (`overlays`: [{id, name, groups}] in the order chosen), keyed by overlayGroup. Returns {groups: keys in
// order, labels: key -> text}.
export function overlayGroups(openGroups, overlays) {
  const groups = [...openGroups];
  const labels = new Map(openGroups.map((g) => [g, g]));
  for (const o of overlays) {
    for (const g of o.groups) {
      const key = overlayGroup(o.id, g);
      groups.push(key);
      labels.set(key, overlayLabel(o.name, g));
    }
  }
  return { groups, labels };
}

// How far apart two colours look ("#rrggbb"): RGB distance weighted by the mean red ("redmean"), a cheap
// stand-in for a perceptual distance that ranks teal close to green, as the eye does.
function colourDistance(a, b) {
  const [r1, g1, b1] = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const [r2, g2, b2] = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  const r = (r1 + r2) / 2;
  return Math.sqrt((2 + r / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - r) / 256) * (b1 - b2) ** 2);
}

// Colours for the overlaid sweeps' groups (`keys`, in order), given those the open sweep's groups have (`taken`):
// each the palette's colour farthest from every colour taken so far, so that an overlaid "baseline" never looks
// like the open sweep's "unified" (the next free colour of the palette can: teal beside green). Once the palette
// is spent, colours repeat, farthest first still.
export function overlayColours(keys, taken, palette = CATEGORICAL) {
  const used = [...taken];
  const out = new Map();
  for (const key of keys) {
    const free = palette.filter((c) => !used.some((u) => u.toLowerCase() === c.toLowerCase()));
    const pool = free.length ? free : palette;
    const far = (c) => (used.length ? Math.min(...used.map((u) => colourDistance(c, u))) : 0);
    const colour = pool.reduce((best, c) => (far(c) > far(best) ? c : best), pool[0]);
    out.set(key, colour);
    used.push(colour);
  }
  return out;
}

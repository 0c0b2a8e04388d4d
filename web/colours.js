// Colours of groups: the paper's variants in a fixed order and categorical colours, sizes on a sequential
// palette, and the order a legend lists groups in.

// A colour per group. Variants get a categorical palette (Okabe-Ito, colour-blind safe, then Tableau);
// ordered groups (model sizes) a sequential ramp from light to dark.
// The two controls come after qknorm with colours of their own: dnp_novec's sienna (readable on both themes), not the teal (#44AA99, last)
// that stands beside unified's green.
export const CATEGORICAL = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#332288', '#882255',
  '#117733', '#999933', '#AA4499', '#A0522D', '#888888', '#44AA99'];
export const SEQUENTIAL = ['#fde725', '#b5de2b', '#6ece58', '#35b779', '#1f9e89', '#26828e', '#31688e', '#3e4989',
  '#482878', '#440154'];

// The paper's variants first, in the order of docs/variants.md, then the controls (qknorm, dnp_novec, unified_dp),
// so their colours are the same in every sweep.
export const VARIANT_ORDER = ['baseline', 'none', 'unified', 'hg', 'ap', 'dp', 'dnp', 'or', 'er', 'iwd', 'qknorm',
  'dnp_novec', 'unified_dp'];

// How far apart two colours look ("#rrggbb"): RGB distance weighted by the mean red ("redmean"), a cheap
// stand-in for a perceptual distance that ranks teal close to green, as the eye does.
export function colourDistance(a, b) {
  const [r1, g1, b1] = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const [r2, g2, b2] = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  const r = (r1 + r2) / 2;
  return Math.sqrt((2 + r / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - r) / 256) * (b1 - b2) ** 2);
}

// Colours for `keys` (in order) beside those already `taken`: each the palette's colour farthest from every
// colour taken so far, so that a new group never looks like one in use (the palette's next free colour can:
// teal beside green). Once the palette is spent, colours repeat, farthest first still.
export function farthestColours(keys, taken, palette = CATEGORICAL) {
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

// Named variants keep their own colour; beside them any other group (a variant of a user's own, the 2026 arms)
// takes the free colour farthest from those in use, so two groups share one only when the palette runs out.
// Groups none of which is a variant (seeds, a config field's values) take the palette from its start, its most
// distinct colours first.
export function groupColours(groups, ordered) {
  const out = new Map();
  if (ordered) {
    groups.forEach((g, i) => {
      const t = groups.length === 1 ? 1 : i / (groups.length - 1);
      out.set(g, SEQUENTIAL[Math.round(2 + t * (SEQUENTIAL.length - 3))]);
    });
    return out;
  }
  for (const g of groups) {
    const k = VARIANT_ORDER.indexOf(g);
    if (k >= 0) out.set(g, CATEGORICAL[k % CATEGORICAL.length]);
  }
  const others = groups.filter((g) => !out.has(g));
  if (out.size) {
    for (const [g, colour] of farthestColours(others, out.values())) out.set(g, colour);
    return out;
  }
  others.forEach((g, i) => out.set(g, CATEGORICAL[i % CATEGORICAL.length]));
  return out;
}

// Sorts group names: variants in VARIANT_ORDER, presets by their parameter count (then name).
export function sortGroups(groups, by, paramsOf = new Map()) {
  const list = [...new Set(groups)];
  if (by === 'preset') {
    return list.sort((a, b) => (paramsOf.get(a) ?? Infinity) - (paramsOf.get(b) ?? Infinity) || a.localeCompare(b));
  }
  const rank = (g) => (VARIANT_ORDER.includes(g) ? VARIANT_ORDER.indexOf(g) : VARIANT_ORDER.length);
  return list.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

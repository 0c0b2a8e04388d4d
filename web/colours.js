// Colours of groups: the paper's variants in a fixed order and categorical colours, sizes on a sequential
// palette, and the order a legend lists groups in.

// A colour per group. Variants get a categorical palette (Okabe-Ito, colour-blind safe, then Tableau);
// ordered groups (model sizes) a sequential ramp from light to dark. On the dark theme a colour too dark to read
// is lightened (`themed`).
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

// The dark theme's card (style.css, --card under [data-theme="dark"]): the background every chart is drawn on.
export const DARK_CARD = '#1b1f27';
// WCAG's minimum contrast for graphics (lines, swatches) against what they sit on.
const MIN_CONTRAST = 3;

function channels(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}
function hexOf(rgb) {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}
// WCAG's relative luminance, and the contrast of two colours (1 to 21).
function luminance(hex) {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// `colour`, or where it is too dark to read on `background` (contrast under 3:1), the least mix of it with white
// that reads: the palette's navy and wine were nearly invisible on the dark theme's card. The hue stays, so a
// group keeps its colour across themes; colours that read already are left as they are.
const readable = new Map();  // `${colour} ${background}` -> the colour drawn: asked for each group at every draw
export function readableOn(colour, background) {
  const key = `${colour} ${background}`;
  if (!readable.has(key)) readable.set(key, lightenedToRead(colour, background));
  return readable.get(key);
}

function lightenedToRead(colour, background) {
  if (contrast(colour, background) >= MIN_CONTRAST) return colour;
  const base = channels(colour);
  const mix = (t) => hexOf(base.map((c) => c + t * (255 - c)));
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 20; i++) {
    const t = (lo + hi) / 2;
    if (contrast(mix(t), background) >= MIN_CONTRAST) hi = t;
    else lo = t;
  }
  return mix(hi);
}

// A palette colour as the page's theme draws it (web/theme.js sets <html data-theme>); as is outside a page.
export function themed(colour) {
  const dark = typeof document !== 'undefined' && document.documentElement?.dataset?.theme === 'dark';
  return dark ? readableOn(colour, DARK_CARD) : colour;
}

// How far apart two colours look ("#rrggbb"): RGB distance weighted by the mean red ("redmean"), a cheap
// stand-in for a perceptual distance that ranks teal close to green, as the eye does.
export function colourDistance(a, b) {
  const [r1, g1, b1] = channels(a);
  const [r2, g2, b2] = channels(b);
  const r = (r1 + r2) / 2;
  return Math.sqrt((2 + r / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - r) / 256) * (b1 - b2) ** 2);
}

// Colours for `keys` (in order) beside those already `taken`: each the palette's colour farthest from every
// colour taken so far, so that a new group never looks like one in use (the palette's next free colour can:
// teal beside green). Once the palette is spent, colours repeat, farthest first still. The choice is made on the
// palette's own colours, so a group gets the same hue on either theme; the colours returned are as the theme
// draws them (`themed`), and `taken` may be given either way.
export function farthestColours(keys, taken, palette = CATEGORICAL) {
  return themedMap(farthestOfPalette(keys, [...taken].map(paletteColourOf), palette));
}

function farthestOfPalette(keys, taken, palette) {
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

// The palette colour that `shown` is the theme's drawing of (the inverse of `themed` on the palettes), or `shown`.
function paletteColourOf(shown) {
  const lower = shown.toLowerCase();
  return [...CATEGORICAL, ...SEQUENTIAL].find((c) => themed(c).toLowerCase() === lower) ?? shown;
}

function themedMap(colours) {
  return new Map([...colours].map(([k, c]) => [k, themed(c)]));
}

// Named variants keep their own colour; beside them any other group (a variant of a user's own, the 2026 arms)
// takes the free colour farthest from those in use, so two groups share one only when the palette runs out.
// Groups none of which is a variant (seeds, a config field's values) take the palette from its start, its most
// distinct colours first. As the theme draws them (`themed`).
export function groupColours(groups, ordered) {
  const out = new Map();
  if (ordered) {
    groups.forEach((g, i) => {
      const t = groups.length === 1 ? 1 : i / (groups.length - 1);
      out.set(g, SEQUENTIAL[Math.round(2 + t * (SEQUENTIAL.length - 3))]);
    });
    return themedMap(out);
  }
  for (const g of groups) {
    const k = VARIANT_ORDER.indexOf(g);
    if (k >= 0) out.set(g, CATEGORICAL[k % CATEGORICAL.length]);
  }
  const others = groups.filter((g) => !out.has(g));
  if (out.size) {
    for (const [g, colour] of farthestOfPalette(others, out.values(), CATEGORICAL)) out.set(g, colour);
    return themedMap(out);
  }
  others.forEach((g, i) => out.set(g, CATEGORICAL[i % CATEGORICAL.length]));
  return themedMap(out);
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

// Unit tests of the group colours on the dark theme (web/colours.js): no browser, no server. The page's theme
// is <html data-theme>; here a stand-in document carries it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATEGORICAL, DARK_CARD, SEQUENTIAL, VARIANT_ORDER, contrast, farthestColours, groupColours, readableOn, themed } from '../colours.js';

function withTheme(theme, f) {
  const saved = globalThis.document;
  globalThis.document = { documentElement: { dataset: { theme } } };
  try {
    return f();
  } finally {
    if (saved === undefined) delete globalThis.document;
    else globalThis.document = saved;
  }
}

test('every palette colour reads on the dark card (contrast at least 3:1), the navy and the wine lightened', () => {
  for (const colour of [...CATEGORICAL, ...SEQUENTIAL]) {
    const shown = readableOn(colour, DARK_CARD);
    assert.ok(contrast(shown, DARK_CARD) >= 3, `${colour} shown as ${shown}: ${contrast(shown, DARK_CARD).toFixed(2)}`);
    if (contrast(colour, DARK_CARD) >= 3) assert.equal(shown, colour, `${colour} reads already: kept`);
  }
  assert.ok(contrast('#332288', DARK_CARD) < 2, 'the navy as it was: nearly invisible');
  assert.notEqual(readableOn('#332288', DARK_CARD), '#332288');
  assert.notEqual(readableOn('#882255', DARK_CARD), '#882255');
  // Lightened towards white, so its hue stays: its strongest channel stays the strongest.
  const channels = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  for (const colour of ['#332288', '#882255', '#440154']) {
    const before = channels(colour);
    const after = channels(readableOn(colour, DARK_CARD));
    assert.equal(after.indexOf(Math.max(...after)), before.indexOf(Math.max(...before)), colour);
    after.forEach((c, i) => assert.ok(c >= before[i], `${colour}: lighter in every channel`));
  }
});

test('the light theme and a page with no document keep the palette as it is', () => {
  assert.equal(themed('#332288'), '#332288');
  withTheme('light', () => assert.deepEqual([...groupColours(['dnp', 'or'], false).values()], ['#332288', '#882255']));
});

test('on the dark theme every variant and every size has a readable colour of its own, the same group the same hue', () => {
  withTheme('dark', () => {
    const variants = groupColours(VARIANT_ORDER, false);
    const colours = [...variants.values()];
    assert.equal(new Set(colours).size, colours.length, 'no two variants share a colour');
    for (const c of colours) assert.ok(contrast(c, DARK_CARD) >= 3, c);
    assert.equal(variants.get('baseline'), CATEGORICAL[0], 'a colour that reads already is the light theme\'s');
    const sizes = groupColours(['s', 'm', 'l', 'xl'], true);
    for (const c of sizes.values()) assert.ok(contrast(c, DARK_CARD) >= 3, c);
    // Groups beside the variants take the farthest free colours, never one in use, readable.
    const taken = colours.slice(0, 8);
    const others = farthestColours(['mine', 'yours'], taken);
    for (const c of others.values()) assert.ok(contrast(c, DARK_CARD) >= 3 && !taken.includes(c), c);
  });
  // The same groups get the same palette colours on both themes: the choice is not made on the lightened ones.
  const groups = ['baseline', 'qknorm', 'seednorm', 'peri_ln', 'gated', 'pre_affine', 'ln_scaling', 'dyt', 'derf', 'mine'];
  const light = withTheme('light', () => groupColours(groups, false));
  const dark = withTheme('dark', () => groupColours(groups, false));
  for (const g of groups) assert.equal(dark.get(g), readableOn(light.get(g), DARK_CARD), g);
  const lightMore = withTheme('light', () => farthestColours(['a', 'b', 'c'], light.values()));
  const darkMore = withTheme('dark', () => farthestColours(['a', 'b', 'c'], dark.values()));
  for (const k of ['a', 'b', 'c']) assert.equal(darkMore.get(k), readableOn(lightMore.get(k), DARK_CARD), k);
});

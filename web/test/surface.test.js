// Unit tests of the plot of final loss against tokens D per model size (web/surface.js): no browser, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chinchillaLoss, fitCurve } from '../laws.js';
import { setMeta } from '../series.js';
import { surfaceLines, surfaceSizes, markerOf, MARKERS, lawsAtSizes } from '../surface.js';

setMeta({
  job_states: [{ name: 'pending', active: false, terminal: false }, { name: 'running', active: true, terminal: false },
    { name: 'succeeded', active: false, terminal: true }, { name: 'failed', active: false, terminal: true }],
  fit_state: 'succeeded', failed_state: 'failed', losses: { train: 'train/loss', val: 'val/loss' }, wall_clock: 'wall_s',
});

// A WSD ladder's runs as GET /api/sweeps/{id}/runs gives them: two sizes, two variants, two seeds, each run with
// one branch at a quarter of its budget (a variant's N, and so its D, a little off the baseline's).
const LAW = { E: 1.5, A: 40, alpha: 0.4, B: 300, beta: 0.35 };
const L = (N, D) => LAW.E + LAW.A * N ** -LAW.alpha + LAW.B * D ** -LAW.beta;
function runs() {
  const out = [];
  let id = 1;
  for (const [preset, base] of [['s', 10000], ['m', 40000]]) {
    for (const [variant, N] of [['unified', base * 1.01], ['baseline', base]]) {
      for (const seed of [0, 1]) {
        for (const D of [10 * N, 40 * N]) {
          const loss = L(N, D) + (seed ? 0.01 : -0.01);
          out.push({ id: String(id++), name: `${preset}/${variant}/s${seed}/D=${D}`, preset, variant, params: N, tokens: D, state: 'succeeded',
            stage: 'main', loss, final_val_loss: loss, final_train_loss: loss + 0.1 });
        }
      }
    }
  }
  return out;
}

test('surfaceLines: a line per variant and size, the mean over seeds per budget, variants in the page\'s order', () => {
  const { lines, surface } = surfaceLines(runs(), 'loss');
  assert.equal(surface, true);
  assert.deepEqual(lines.map((l) => `${l.variant} ${l.preset}`), ['baseline s', 'baseline m', 'unified s', 'unified m']);
  const [first] = lines;
  assert.equal(first.params, 10000);
  assert.deepEqual(first.points.map((p) => p.x), [100000, 400000]);
  for (const p of first.points) {
    assert.ok(Math.abs(p.y - L(10000, p.x)) < 1e-12, 'the seeds\' mean');
    assert.equal(p.n, 2);
    assert.ok(Math.abs(p.se - 0.01) < 1e-12, `s.e. of ±0.01: ${p.se}`);
    assert.equal(p.names.length, 2);
  }
  // Another loss column.
  assert.ok(Math.abs(surfaceLines(runs(), 'final_train_loss').lines[0].points[0].y - (L(10000, 100000) + 0.1)) < 1e-12);
});

test('surfaceLines: not a surface when each size has one budget; unfinished, tune-stage and lossless runs stay out', () => {
  const ladder = runs().filter((r) => r.tokens === 10 * r.params);
  assert.equal(surfaceLines(ladder, 'loss').surface, false);
  assert.equal(surfaceLines(ladder, 'loss').lines.length, 4, 'the lines are there, one point each');
  const noisy = [...ladder,
    { ...ladder[0], id: 'x1', tokens: 1e9, state: 'running' },
    { ...ladder[0], id: 'x2', tokens: 2e9, stage: 'tune' },
    { ...ladder[0], id: 'x3', tokens: 3e9, loss: NaN },
    { ...ladder[0], id: 'x4', tokens: 4e9, loss: null }];
  assert.equal(surfaceLines(noisy, 'loss').surface, false);
  assert.equal(surfaceLines([], 'loss').surface, false);
});

test('sizes are ordered by the baseline\'s N and each has its own marker', () => {
  const { lines } = surfaceLines(runs(), 'loss');
  const sizes = surfaceSizes(lines);
  assert.deepEqual(sizes, ['s', 'm']);
  assert.equal(markerOf(sizes, 's').shape, 'circle');
  assert.equal(markerOf(sizes, 'm').shape, 'square');
  assert.equal(new Set(MARKERS.map((m) => m.shape)).size, MARKERS.length);
});

test('lawsAtSizes: the stored Chinchilla law at each line\'s N over its own budgets; no curve without that law', () => {
  const { lines } = surfaceLines(runs(), 'loss');
  const estimate = (v) => ({ value: v, lo: v, hi: v, bounded: true });
  const report = { law: 'chinchilla', groups: ['baseline', 'unified'].map((group) => ({ group, parameters: Object.fromEntries(Object.entries(LAW).map(([k, v]) => [k, estimate(v)])) })) };
  const laws = lawsAtSizes(lines, [{ law: 'n', groups: [] }, report]);
  assert.equal(laws.length, 4);
  for (const [i, law] of laws.entries()) {
    const line = lines[i];
    assert.deepEqual([law.variant, law.preset, law.params], [line.variant, line.preset, line.params]);
    assert.ok(Math.abs(law.xs[0] - line.points[0].x / 1.25) < 1e-6 && Math.abs(law.xs.at(-1) - line.points.at(-1).x * 1.25) < 1e-3);
    // The law through the data it was made from: at each budget the curve is within its grid of the points.
    for (let k = 0; k < law.xs.length; k++) assert.ok(Math.abs(law.ys[k] - L(line.params, law.xs[k])) < 1e-12);
  }
  assert.deepEqual(lawsAtSizes(lines, [{ law: 'n', groups: report.groups }]), [], 'law n has no D');
  const partial = { law: 'chinchilla', groups: [{ group: 'baseline', parameters: { E: estimate(1), A: estimate(1), alpha: estimate('nan'), B: estimate(1), beta: estimate(1) } }] };
  assert.deepEqual(lawsAtSizes(lines, [partial]), [], 'a law without finite parameters draws nothing');
});

test('chinchillaLoss is the law fitCurve draws against N', () => {
  const L2 = chinchillaLoss({ E: { value: 1.5 }, A: 40, alpha: 0.4, B: { value: 300 }, beta: '0.35' });
  assert.ok(Math.abs(L2(1e4, 2e5) - L(1e4, 2e5)) < 1e-12);
  assert.ok(Math.abs(fitCurve('chinchilla', LAW, 'params', 20)(1e4) - L(1e4, 2e5)) < 1e-12);
  assert.equal(chinchillaLoss({ E: 1, A: 1, alpha: 1, B: 1 }), null, 'no beta');
});

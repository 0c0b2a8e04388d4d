// What the scaling chart draws of each headline (headline_reading.js): the reference's curve and a level line per
// size for the local multiplier, the shared fit for the law, against compute only, one reference at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headlineReadings, headlineNote } from '../headline_reading.js';
import { pairedComparisons } from '../comparisons.js';

const estimate = (value) => ({ value, lo: value * 0.9, hi: value * 1.1, bounded: true });
const size = (params, compute, baselineMean, gap, local) => ({
  params, tokens: 20 * params, compute, variant_compute: compute, baseline_mean: baselineMean, pairs: 2, complete: true,
  paired_mean: gap, gap: estimate(gap), local_multiplier: estimate(local), inside: true,
});
const comparison = (variant, reference, sizes) => ({
  variant, baseline: reference, paired: true, ladder: true, sizes, local_multiplier: estimate(1.3), sizes_pooled: sizes.length,
  baseline_curves: [{ compute: [1e12, 1e13, 1e14], loss: [3.2, 3.0, 2.8] }],
});
const report = (estimators) => ({
  law: 'c', confidence: 0.95, baseline: 'baseline', bootstrap: { used: 50, requested: 50, unit: 'paired seeds' },
  comparisons: [comparison('unified', 'baseline', [size(1e6, 1e12, 3.2, -0.05, 1.4), size(1e7, 1e14, 2.8, -0.02, 'nan')]),
    comparison('unified', 'qknorm', [size(1e6, 1e12, 3.18, -0.03, 1.2)])],
  verdicts: [{ variant: 'unified', reference: 'baseline', estimator: estimators.baseline, settled: true, headline: 'h', details: [] },
    { variant: 'unified', reference: 'qknorm', estimator: estimators.qknorm, settled: true, headline: 'h', details: [] }],
  multipliers: [{ variant: 'unified', baseline: 'baseline', constant: estimate(1.3),
    shared_fit: { E: estimate(1.5), alpha: estimate(0.1), A_baseline: estimate(40), A_variant: estimate(37) } }],
});

test('the local multiplier: the reference\'s curve and a level line per size that has one, against compute', () => {
  const comparisons = pairedComparisons([report({ baseline: 'local multiplier', qknorm: 'local multiplier' })]);
  const r = headlineReadings(comparisons, { xKey: 'compute', lossKey: 'loss', range: [1e12, 1e14] });
  assert.equal(r.reference, 'baseline', 'the study\'s baseline first');
  assert.deepEqual(r.estimators, ['local multiplier']);
  const curves = r.lines.filter((l) => l.kind === 'curve');
  assert.deepEqual(curves.map((l) => [l.group, l.xs, l.ys]), [['baseline', [1e12, 1e13, 1e14], [3.2, 3.0, 2.8]]]);
  const readings = r.lines.filter((l) => l.kind === 'reading');
  assert.equal(readings.length, 1, 'the size without m_local has no line');
  assert.equal(readings[0].group, 'unified');
  assert.deepEqual(readings[0].ys, [3.2 - 0.05, 3.2 - 0.05], 'at the variant\'s mean loss: the baseline\'s plus the gap');
  assert.ok(Math.abs(readings[0].xs[1] / readings[0].xs[0] - 1.4) < 1e-12, 'its length in C is m_local');
  assert.match(headlineNote(r), /^headline, as the verdict reads it: thin solid: baseline's mean loss per size/);
  // With the baseline hidden, the next reference's.
  const other = headlineReadings(comparisons, { xKey: 'compute', lossKey: 'loss', hidden: ['baseline'], range: [1e12, 1e14] });
  assert.equal(other.reference, 'qknorm');
  assert.equal(other.lines.filter((l) => l.kind === 'reading').length, 1);
});

test('the law: the shared fit, both arms with common E and alpha', () => {
  const comparisons = pairedComparisons([report({ baseline: 'law', qknorm: 'local multiplier' })]);
  const r = headlineReadings(comparisons, { xKey: 'compute', lossKey: 'final_val_loss', range: [1e12, 1e14] });
  assert.deepEqual(r.estimators, ['law']);
  const [base, unified] = r.lines;
  assert.deepEqual([base.group, base.kind, unified.group, unified.kind], ['baseline', 'shared', 'unified', 'shared']);
  const k = 10;
  assert.ok(Math.abs(base.ys[k] - (1.5 + 40 * base.xs[k] ** -0.1)) < 1e-12);
  assert.ok(Math.abs(unified.ys[k] - (1.5 + 37 * unified.xs[k] ** -0.1)) < 1e-12);
  assert.match(headlineNote(r), /the shared fit \(common E and α\) whose constant is the headline over baseline/);
});

test('nothing drawn against N or on the training loss, and the legend says where the headline is read', () => {
  const comparisons = pairedComparisons([report({ baseline: 'local multiplier', qknorm: 'local multiplier' })]);
  const byN = headlineReadings(comparisons, { xKey: 'params', lossKey: 'loss' });
  assert.deepEqual(byN.lines, []);
  assert.equal(headlineNote(byN), 'the headline is read against compute: choose x = compute C to see it drawn');
  const train = headlineReadings(comparisons, { xKey: 'compute', lossKey: 'final_train_loss' });
  assert.deepEqual(train.lines, []);
  assert.match(headlineNote(train), /final validation loss/);
  // A fit stored before verdicts: nothing to say.
  const old = pairedComparisons([{ ...report({}), verdicts: [] }]);
  assert.equal(headlineNote(headlineReadings(old, { xKey: 'params', lossKey: 'loss' })), '');
});

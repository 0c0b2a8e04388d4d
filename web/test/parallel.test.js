// The tune stage in parallel coordinates (parallel.js): which axes, where each run's line crosses them, its colour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parallelView, legibleTicks } from '../parallel.js';
import { SEQUENTIAL } from '../colours.js';

let nextId = 1;
const job = (variant, lr, extra = {}) => ({
  id: String(nextId++), name: `${variant}-lr${lr}`, stage: 'tune',
  config_json: JSON.stringify({ scale: { variant }, model: { preset: 'tiny' }, optim: { lr }, seed: 100, ...extra }),
});

test('axes: the variant first, the tuned field last before the loss; LRs on a log scale', () => {
  const jobs = [job('baseline', 1e-3), job('baseline', 1e-2), job('unified', 1e-3), job('unified', 1e-1),
    { ...job('baseline', 1e-3), stage: 'main' }];
  const losses = new Map([[jobs[0].id, 3.0], [jobs[1].id, 2.8], [jobs[2].id, 2.9], [jobs[3].id, NaN]]);
  const view = parallelView(jobs, (j) => losses.get(j.id), 'optim.lr');
  assert.deepEqual(view.axes.map((a) => [a.path, a.kind]), [['scale.variant', 'category'], ['optim.lr', 'log'], ['final loss', 'loss']]);
  assert.equal(view.lines.length, 4, 'tune runs only');
  assert.equal(view.failed, 1);
  const byName = new Map(view.lines.map((l) => [l.name, l]));
  // 1e-2 lies halfway between 1e-3 and 1e-1 in log LR; the variants at the ends of their axis.
  assert.deepEqual(byName.get('baseline-lr0.01').ys.slice(0, 2), [0, 0.5]);
  assert.equal(byName.get('unified-lr0.1').ys[0], 1);
  // Losses between 0 and 0.9 of the loss axis; a run without one above, at 1, grey.
  assert.equal(byName.get('baseline-lr0.001').ys[2], 0.9, 'the worst loss at the top of the finite range');
  assert.equal(byName.get('baseline-lr0.01').ys[2], 0);
  assert.equal(byName.get('unified-lr0.1').ys[2], 1);
  assert.equal(byName.get('unified-lr0.1').colour, '#9aa1ad');
  // Darkest is best, drawn last (on top); the worst lightest.
  assert.equal(view.lines.at(-1).name, 'baseline-lr0.01');
  assert.equal(view.lines.at(-1).colour, SEQUENTIAL.at(-1));
  assert.equal(byName.get('baseline-lr0.001').colour, SEQUENTIAL[0]);
  assert.deepEqual(view.axes.at(-1).ticks.map((t) => t.text), ['2.8000', '3.0000', 'no loss']);
});

test('a field that varies besides the tuned one gets its axis; the seed does not; under two runs, no view', () => {
  const jobs = [job('baseline', 1e-3, { model: { preset: 'tiny', d_model: 64 } }), job('baseline', 2e-3, { model: { preset: 'tiny', d_model: 128 }, seed: 101 })];
  const view = parallelView(jobs, () => 3, 'optim.lr');
  assert.deepEqual(view.axes.map((a) => a.path), ['model.d_model', 'optim.lr', 'final loss']);
  assert.equal(view.axes[0].kind, 'linear', 'a factor of 2: not a log axis');
  assert.equal(parallelView(jobs.slice(0, 1), () => 3, 'optim.lr'), null);
});

test('a field set by the variant and the size gets no axis; in the dark theme the best takes the bright end', () => {
  const sized = (variant, preset, steps, lr) => ({ ...job(variant, lr), config_json: JSON.stringify({
    scale: { variant }, model: { preset }, steps, optim: { lr }, seed: 100 }) });
  const jobs = [sized('baseline', 'small', 100, 1e-3), sized('baseline', 'small', 100, 1e-2),
    sized('baseline', 'large', 400, 1e-3), sized('unified', 'large', 400, 1e-2)];
  const losses = new Map(jobs.map((j, k) => [j.id, 3 - 0.1 * k]));
  const view = parallelView(jobs, (j) => losses.get(j.id), 'optim.lr', { dark: true });
  assert.deepEqual(view.axes.map((a) => a.path), ['scale.variant', 'model.preset', 'optim.lr', 'final loss'],
    'steps follow the size: no axis of their own');
  assert.equal(view.lines.at(-1).colour, SEQUENTIAL[0], 'the best on top, in the bright end on a dark page');
  assert.equal(view.lines[0].colour, SEQUENTIAL.at(-1));
});


test('tick labels: close ones are left out, the ends always kept', () => {
  const at = (ys) => ys.map((y, k) => ({ tick: { value: k, text: String(k) }, y }));
  // Eight LRs on a log axis from 238 px (the lowest) to 44 (the highest), two of them 8 px apart.
  const kept = legibleTicks(at([238, 210, 202, 170, 150, 120, 60, 44]), 13).map((p) => p.y);
  assert.deepEqual(kept, [238, 210, 170, 150, 120, 60, 44]);
  for (let k = 1; k < kept.length; k += 1) assert.ok(kept[k - 1] - kept[k] >= 13, `${kept[k - 1]} and ${kept[k]}`);
  // A tick just under the highest gives way to it; two ticks are both kept whatever their distance.
  assert.deepEqual(legibleTicks(at([200, 50, 44]), 13).map((p) => p.y), [200, 44]);
  assert.deepEqual(legibleTicks(at([100, 95]), 13).map((p) => p.y), [100, 95]);
  assert.deepEqual(legibleTicks(at([44, 100, 238]), 13).map((p) => p.y), [238, 100, 44], 'in any order');
});

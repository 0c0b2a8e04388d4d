// Unit tests of the tune card's seeds (web/tune_seeds.js): each tune run's loss on the curve whose config it has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tuneSeries } from '../tune_report.js';
import { tuneSeedPoints } from '../tune_seeds.js';

test('each succeeded tune run with a loss lands on its group\'s curve at its value; others are left out', () => {
  const tune = tuneSeries({ groups: [
    { key: { 'scale.variant': 'baseline', 'model.preset': 'a' }, best: 0, trials: [{ values: { 'optim.lr': 0.01 }, mean_loss: 3 }, { values: { 'optim.lr': 0.03 }, mean_loss: 3.2 }] },
    { key: { 'scale.variant': 'unified', 'model.preset': 'a' }, best: 0, trials: [{ values: { 'optim.lr': 0.01 }, mean_loss: 2.9 }] },
  ] });
  const job = (id, variant, lr, seed, extra = {}) => ({ id, stage: 'tune', state: 'succeeded', ...extra,
    config_json: JSON.stringify({ scale: { variant }, model: { preset: 'a' }, optim: { lr }, seed }) });
  const jobs = [job('1', 'baseline', 0.01, 0), job('2', 'baseline', 0.01, 1), job('3', 'baseline', 0.03, 0),
    job('4', 'unified', 0.01, 0), job('5', 'unified', 0.01, 1, { state: 'failed' }), job('6', 'unified', 0.01, 2, { stage: 'main' }),
    job('7', 'unified', 0.01, 3)];
  const losses = new Map([['1', 3.1], ['2', 2.9], ['3', 3.2], ['4', 2.95], ['5', 2.8], ['6', 2.7], ['7', NaN]]);
  const points = tuneSeedPoints(tune, jobs, (j) => losses.get(j.id));
  assert.deepEqual(points.get('scale.variant=baseline model.preset=a'), [[0.01, 3.1], [0.01, 2.9], [0.03, 3.2]]);
  assert.deepEqual(points.get('scale.variant=unified model.preset=a'), [[0.01, 2.95]], 'failed, main-stage and lossless runs left out');
});

// Unit tests of the dashboard's data helpers (no browser, no server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendColumns, afterStepFor, setMeta, LOSS_NAMES, STATE_ORDER, ACTIVE_STATES, isFailed, stateClass, jobInfo,
  lossTables, scalingPoints, fitCurve, logSpace, groupColours, sortGroups, num, si, count, fitReports,
} from '../series.js';

// What GET /api/meta answers (tests/service/http_api_test.cpp checks the server's side).
const META = {
  job_states: [
    { name: 'pending', active: false, terminal: false },
    { name: 'leased', active: true, terminal: false },
    { name: 'running', active: true, terminal: false },
    { name: 'succeeded', active: false, terminal: true },
    { name: 'failed', active: false, terminal: true },
    { name: 'cancelled', active: false, terminal: true },
  ],
  fit_state: 'succeeded',
  failed_state: 'failed',
  metrics: ['train/loss', 'val/loss', 'lr'],
  losses: { train: 'train/loss', val: 'val/loss' },
};
setMeta(META);

test('appendColumns appends only new steps per metric and maps NaN to null', () => {
  const store = {};
  assert.equal(appendColumns(store, { 'train/loss': { step: [1, 2], tokens: [10, 20], value: [3, null] } }), 2);
  // An overlapping refetch (after_step one before the last step) adds only what is new.
  assert.equal(appendColumns(store, {
    'train/loss': { step: [2, 3], tokens: [20, 30], value: [null, 2.5] },
    'val/loss': { step: [2], tokens: [20], value: [2.75] },
  }), 2);
  assert.deepEqual(store['train/loss'], { step: [1, 2, 3], tokens: [10, 20, 30], value: [3, null, 2.5] });
  assert.deepEqual(store['val/loss'].step, [2]);
  assert.equal(appendColumns(store, {}), 0);
  assert.equal(appendColumns(store, null), 0);
});

test('afterStepFor starts from scratch, then refetches from just before the oldest last step', () => {
  assert.equal(afterStepFor({}), -1);
  assert.equal(afterStepFor({ 'train/loss': { step: [0], tokens: [0], value: [1] } }), -1);
  const store = { 'train/loss': { step: [10, 20], tokens: [1, 2], value: [1, 1] } };
  assert.equal(afterStepFor(store), 19, 'a val/loss at step 20 relayed later is still fetched');
  store['val/loss'] = { step: [10], tokens: [1], value: [1] };
  assert.equal(afterStepFor(store), 9);
});

test('setMeta takes the states and loss names from the server; jobInfo reads proto JSON', () => {
  assert.deepEqual(LOSS_NAMES, ['train/loss', 'val/loss']);
  assert.deepEqual(STATE_ORDER, ['running', 'leased', 'pending', 'succeeded', 'failed', 'cancelled']);
  assert.deepEqual([...ACTIVE_STATES], ['leased', 'running']);
  assert.equal(isFailed({ state: 'failed' }), true);
  assert.equal(isFailed({ state: 'cancelled' }), false);
  assert.deepEqual(['running', 'pending', 'succeeded', 'failed', 'cancelled'].map(stateClass), ['active', '', 'ok', 'bad', 'warn']);
  assert.deepEqual(jobInfo({ config_json: '{"model":{"preset":"tiny-0.1m"},"scale":{"variant":"unified"}}' }),
    { variant: 'unified', preset: 'tiny-0.1m' });
  assert.deepEqual(jobInfo({ config_json: '{"model":{"preset":""}}' }), { variant: 'baseline', preset: 'custom' });
  assert.deepEqual(jobInfo({ config_json: 'not json' }), { variant: 'baseline', preset: 'custom' });
});

test('lossTables keeps jobs with points, x ascending, and drops x <= 0 on a log axis', () => {
  const metrics = new Map([
    ['1', { 'train/loss': { step: [0, 10, 20], tokens: [0, 100, 200], value: [5, null, 3] } }],
    ['2', { 'val/loss': { step: [10], tokens: [100], value: [4] } }],
  ]);
  const jobs = [{ id: '1' }, { id: '2' }, { id: '3' }];
  const lin = lossTables(jobs, metrics, 'train/loss', 'step', false);
  assert.deepEqual(lin.jobs.map((j) => j.id), ['1']);
  assert.deepEqual(lin.tables, [[[0, 10, 20], [5, null, 3]]]);
  const log = lossTables(jobs, metrics, 'train/loss', 'tokens', true);
  assert.deepEqual(log.tables, [[[100, 200], [null, 3]]]);
  assert.equal(lossTables(jobs, metrics, 'val/loss', 'step', false).jobs[0].id, '2');
});

test('scalingPoints groups finished runs with a size and a positive loss', () => {
  const runs = [
    { name: 'a', variant: 'baseline', state: 'succeeded', params: 100, loss: 3 },
    { name: 'b', variant: 'baseline', state: 'succeeded', params: 200, loss: 2.5 },
    { name: 'c', variant: 'unified', state: 'running', params: 100, loss: 3.1 },
    { name: 'd', variant: 'unified', state: 'succeeded', params: 100, loss: null },
    { name: 'e', variant: 'none', state: 'failed', params: null, loss: 4 },
  ];
  const done = scalingPoints(runs, 'variant', 'loss');
  assert.deepEqual([...done.keys()], ['baseline']);
  assert.deepEqual(done.get('baseline').map((p) => [p.x, p.y]), [[100, 3], [200, 2.5]]);
  const all = scalingPoints(runs, 'variant', 'loss', 'params', true);
  assert.deepEqual([...all.keys()], ['baseline', 'unified']);
});

test('fitCurve draws the laws of the fit report on the axes they belong to', () => {
  const n = fitCurve('n', { E: { value: 1.5 }, A: { value: 100 }, alpha: { value: 0.5 } }, 'params');
  assert.equal(n(10000), 1.5 + 100 / 100);
  assert.equal(fitCurve('n', { E: { value: 1.5 }, A: { value: 100 }, alpha: { value: 0.5 } }, 'compute'), null);
  assert.equal(fitCurve('n', { E: { value: 'nan' }, A: { value: 1 }, alpha: { value: 1 } }, 'params'), null);
  const c = fitCurve('c', { E: { value: 1 }, A: { value: 10 }, alpha: { value: 1 } }, 'compute');
  assert.equal(c(10), 2);
  const ch = fitCurve('chinchilla', { E: { value: 1 }, A: { value: 10 }, alpha: { value: 1 }, B: { value: 20 }, beta: { value: 1 } },
    'params', 20);
  assert.equal(ch(10), 1 + 1 + 20 / 200);
  assert.equal(fitCurve('isoflop', { a: { value: 0.5 } }, 'params'), null);
});

test('formatting, log grids and colours', () => {
  assert.equal(num('inf'), Infinity);
  assert.ok(Number.isNaN(num('nan')));
  assert.equal(si(1234567), '1.23M');
  assert.equal(count(1.2e9), '1.2B');
  assert.equal(si(NaN), '–');
  const grid = logSpace(10, 1000, 3);
  assert.equal(grid.length, 3);
  assert.ok(Math.abs(grid[1] - 100) < 1e-9);
  assert.deepEqual(logSpace(0, 10), []);
  const colours = groupColours(['baseline', 'unified'], false);
  assert.notEqual(colours.get('baseline'), colours.get('unified'));
  assert.equal(groupColours(['unified'], false).get('unified'), colours.get('unified'), 'a variant keeps its colour');
  assert.deepEqual(sortGroups(['unified', 'zz', 'baseline', 'none'], 'variant'), ['baseline', 'none', 'unified', 'zz']);
  assert.deepEqual(sortGroups(['b', 'a', 'c'], 'preset', new Map([['a', 30], ['b', 10]])), ['b', 'a', 'c']);
});

test('fitReports reads a report, a list, or proto Fit messages; newest per law', () => {
  const report = { law: 'n', groups: [{ group: 'baseline', parameters: {} }] };
  assert.deepEqual(fitReports(null), []);
  assert.deepEqual(fitReports({ error: 'not found' }), []);
  assert.deepEqual(fitReports(report), [report]);
  const newer = { ...report, groups: [{ group: 'unified', parameters: {} }] };
  const fits = {
    fits: [
      { version: 3, law: 'n', report_json: JSON.stringify(newer) },
      { version: 2, law: 'c', report_json: JSON.stringify({ ...report, law: 'c' }) },
      { version: 1, law: 'n', report_json: JSON.stringify(report) },
      { version: 0, law: 'n', report_json: '{broken' },
    ],
  };
  const out = fitReports(fits);
  assert.deepEqual(out.map((r) => [r.law, r.groups[0].group]), [['n', 'unified'], ['c', 'baseline']]);
  assert.deepEqual(fitReports(fits.fits).length, 2);
});

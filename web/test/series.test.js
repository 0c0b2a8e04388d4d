// Unit tests of the dashboard's data helpers (no browser, no server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settingsToQuery, settingsFromQuery, settingsProblems } from '../address.js';
import { tightLogRange, logTicks, tickLabels } from '../axes.js';
import { colourDistance, groupColours, sortGroups } from '../colours.js';
import { multipliers, pairedComparisons } from '../comparisons.js';
import { scalingPoints, fitCurve, logSpace, fitReports, missingFitReason, fitBand, storedBand } from '../laws.js';
import { sortRows, filterRows, seriesCsv } from '../rows.js';
import { meanSe, seedBand, seedKey, tQuantile975, gapClass } from '../seeds.js';
import {
  appendColumns, afterStepFor, setMeta, LOSS_NAMES, STATE_ORDER, ACTIVE_STATES, isFailed, stateClass, jobInfo, lossTables, num, wallClock, metricAtStep, studyTable, ema, valueAt, shortLabels, studyRuns, stageJobs, sweepStatus, configDiff, jobActions, sizeLabel,
} from '../series.js';
import { tuneSeries } from '../tune_report.js';
import { bytesText, count, si } from '../format.js';
import { REPORT, estimate } from './fit-report.js';

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
  assert.deepEqual(jobInfo({ config_json: '{"model":{"preset":"","n_layers":8,"d_model":512}}' }),
    { variant: 'baseline', preset: 'custom 8x512' });
  assert.deepEqual(jobInfo({ config_json: 'not json' }), { variant: 'baseline', preset: 'custom ?x?' });
  // A declared N names the size (a program of the user's own, an imported run), written as the server does.
  assert.equal(sizeLabel({ model: { preset: '' }, declared_params: 25165824 }), 'N 25.17M');
  assert.equal(sizeLabel({ declared_params: 950 }), 'N 950');
  assert.equal(sizeLabel({ declared_params: 1.5e3 }), 'N 1.5k');
  assert.equal(sizeLabel({ model: { preset: 'tiny-2x16' }, declared_params: 5 }), 'tiny-2x16');
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
  assert.equal(si(4.28e119), '4.28e+119', 'past the largest prefix: an exponent, not a Y with one');
  assert.equal(si(2.5e24), '2.5Y');
  const grid = logSpace(10, 1000, 3);
  assert.equal(grid.length, 3);
  assert.ok(Math.abs(grid[1] - 100) < 1e-9);
  assert.deepEqual(logSpace(0, 10), []);
  const colours = groupColours(['baseline', 'unified'], false);
  assert.notEqual(colours.get('baseline'), colours.get('unified'));
  assert.equal(groupColours(['unified'], false).get('unified'), colours.get('unified'), 'a variant keeps its colour');
  // The demo's four arms, and groups the palette does not name beside named ones: never two alike (it once gave
  // the fourth group of a chart the second variant's colour).
  const arms = groupColours(['baseline', 'none', 'unified', 'qknorm'], false);
  assert.equal(new Set(arms.values()).size, 4, [...arms.values()].join(' '));
  const mixed = groupColours(['baseline', 'none', 'unified', 'my-variant', 'other'], false);
  assert.equal(new Set(mixed.values()).size, 5, [...mixed.values()].join(' '));
  // The 2026 arms beside the baseline, the control and unified (configs/sweeps/arms-2026.yaml): eleven groups,
  // eight of them unnamed, each its own colour, and none as close to another as the palette's teal is to
  // unified's green (the next free colour gave derf that teal).
  const armsSweep = groupColours(['baseline', 'unified', 'qknorm', 'derf', 'dyt', 'gated', 'ln_scaling', 'peri_ln',
    'peri_ln_owd', 'pre_affine', 'seednorm'], false);
  const armColours = [...armsSweep.values()];
  assert.equal(new Set(armColours).size, 11, armColours.join(' '));
  const closest = Math.min(...armColours.flatMap((a, i) => armColours.slice(i + 1).map((b) => colourDistance(a, b))));
  assert.ok(closest > colourDistance('#44AA99', '#009E73'), `closest pair ${closest.toFixed(0)}: ${armColours.join(' ')}`);
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
  assert.deepEqual(out.map((r) => r.version), [3, 2], 'each keeps its version: the study card names it as its intervals\' source');
  assert.deepEqual(fitReports(fits.fits).length, 2);
});

test('studyTable: mean ± s.e. over seeds per size and variant, difference to baseline', () => {
  const run = (preset, params, variant, loss, state = 'succeeded') => ({ preset, params, variant, loss, state });
  const t = studyTable([
    run('m', 2e6, 'unified', 3.0), run('m', 2e6, 'baseline', 3.2), run('m', 2e6, 'baseline', 3.4),
    run('s', 1e6, 'baseline', 4.0), run('s', 1e6, 'unified', 3.5), run('s', 1e6, 'unified', 3.7),
    run('s', 1e6, 'unified', 9.9, 'failed'), run('s', 1e6, 'unified', null),
  ]);
  assert.deepEqual(t.variants, ['baseline', 'unified']);
  assert.deepEqual(t.sizes.map((s) => s.preset), ['s', 'm'], 'by parameter count');
  const su = t.sizes[0].cells.get('unified');
  assert.equal(su.n, 2);
  assert.ok(Math.abs(su.mean - 3.6) < 1e-12);
  assert.ok(Math.abs(su.se - 0.1) < 1e-12, `s.e. of 3.5, 3.7 is 0.1: ${su.se}`);
  assert.ok(Math.abs(su.delta - -0.4) < 1e-12);
  assert.ok(Number.isNaN(t.sizes[0].cells.get('baseline').delta));
  assert.ok(Math.abs(t.sizes[1].cells.get('unified').delta - -0.3) < 1e-12);
  assert.ok(Number.isNaN(meanSe([1]).se));
  assert.equal(t.budgets, false);
  // Cooldown branches: two budgets of one size are two rows, never one mean over both.
  const b = studyTable([
    { ...run('s', 1e6, 'baseline', 3.0), tokens: 5e6 }, { ...run('s', 1e6, 'baseline', 2.0), tokens: 2e7 },
  ]);
  assert.equal(b.budgets, true);
  assert.deepEqual(b.sizes.map((r) => [r.tokens, r.cells.get('baseline').mean]), [[5e6, 3.0], [2e7, 2.0]]);
});

test('multipliers come from the reports that have them, with interval and compute range', () => {
  const m = multipliers([{ law: 'n', multipliers: [] }, { law: 'c', confidence: 0.9, bootstrap: { used: 40, unit: 'runs within each size' }, multipliers: [
    { variant: 'unified', baseline: 'baseline', constant: { value: 1.3, lo: 1.1, hi: 'inf', bounded: false }, compute_range: [1e12, 1e15] },
    { variant: 'slow', baseline: 'baseline', constant: { value: 0.8, lo: 0.5, hi: 0.9, bounded: true }, compute_range: [1e12, 1e15],
      shared_fit: { E: { value: 1.5 }, alpha: { value: 0.1 }, A_baseline: { value: 30 }, A_variant: { value: 'inf' } } },
    { variant: 'x', baseline: 'baseline', constant: null }] }]);
  assert.deepEqual(m[0], {
    law: 'c', variant: 'unified', baseline: 'baseline', value: 1.3, lo: 1.1, hi: Infinity, bounded: false, atBound: false,
    range: [1e12, 1e15], profile: null, better: true, factor: 1.3, interval: null, includesOne: false,
    confidence: 0.9, unit: 'runs within each size', bootstrapped: true, resamples: { used: 40, requested: 40 }, sharedFit: null,
  });
  // The joint fit the constant comes from, by name (a stored non-finite value as the number it stands for).
  assert.deepEqual(m[1].sharedFit, { E: 1.5, alpha: 0.1, A_baseline: 30, A_variant: Infinity });
  // Below 1 the variant needs more compute: the sentence turns the value and its interval round.
  assert.equal(m[1].better, false);
  assert.equal(m[1].factor, 1.25);
  assert.deepEqual(m[1].interval.map((x) => +x.toFixed(4)), [1.1111, 2]);
  assert.equal(m.length, 2, 'a multiplier without a constant is left out');
});

test('ema smooths, keeps gaps and is the identity at weight 0', () => {
  assert.deepEqual(ema([1, 2, 3], 0), [1, 2, 3]);
  const s = ema([1, null, 3], 0.5);
  assert.equal(s[0], 1, 'debiased: the first value is itself');
  assert.equal(s[1], null);
  assert.ok(Math.abs(s[2] - (0.5 * 0.5 * 1 + 0.5 * 3) / 0.75) < 1e-12);
});

test('valueAt: the last point at or before x, nothing past the run\'s end or before its start', () => {
  const xs = [10, 20, 30];
  const ys = [3, 2, 1];
  assert.deepEqual(valueAt(xs, ys, 25), { x: 20, y: 2, i: 1 });
  assert.deepEqual(valueAt(xs, ys, 30), { x: 30, y: 1, i: 2 });
  assert.equal(valueAt(xs, ys, 31), null);
  assert.equal(valueAt(xs, ys, 5), null);
  assert.equal(valueAt([], [], 5), null);
});

test('shortLabels: the parts every curve shares are left out, an overlaid sweep\'s name kept; never ambiguous', () => {
  assert.deepEqual(shortLabels([
    'tiny-0.03m/baseline/adamw/cosine/s0', 'tiny-0.05m/unified/adamw/cosine/s1',
    'web-seeds · tiny-0.03m/baseline/adamw/cosine/s1', 'tiny-0.03m/baseline/adamw/cosine/s0 → branch at step 20, D=20k',
  ]), ['tiny-0.03m/baseline/s0', 'tiny-0.05m/unified/s1', 'web-seeds · tiny-0.03m/baseline/s1',
    'tiny-0.03m/baseline/s0 → branch at step 20, D=20k']);
  // A size the whole sweep shares goes too.
  assert.deepEqual(shortLabels(['tiny/baseline/adamw/cosine/lr=0.002/s0', 'tiny/unified/adamw/cosine/lr=0.003/s0']),
    ['baseline/lr=0.002', 'unified/lr=0.003']);
  // One curve, names with nothing in common, and names that are all parts in common keep theirs.
  assert.deepEqual(shortLabels(['tiny/baseline/s0']), ['tiny/baseline/s0']);
  assert.deepEqual(shortLabels(['baseline tiny (2 seeds)', 'unified tiny (2 seeds)']), ['baseline tiny (2 seeds)', 'unified tiny (2 seeds)']);
  assert.deepEqual(shortLabels(['a/b', 'b/a/c']), ['a/b', 'c']);
  // Two that would read the same keep their full names, all of them.
  assert.deepEqual(shortLabels(['c/m/x', 'm/c/x', 'c/m/y']), ['c/m/x', 'm/c/x', 'c/m/y']);
  assert.deepEqual(shortLabels([]), []);
});

test('seedBand: mean, min and max per x over the seeds; seedKey ignores the seed', () => {
  assert.deepEqual(seedBand([[[1, 2], [4, 2]], [[1, 3], [2, 5]]]), [[1, 2, 3], [3, 2, 5], [2, 2, 5], [4, 2, 5]]);
  const a = { id: '1', config_json: JSON.stringify({ seed: 1, model: { preset: 'x' } }) };
  const b = { id: '2', config_json: JSON.stringify({ seed: 2, model: { preset: 'x' } }) };
  const c = { id: '3', config_json: JSON.stringify({ seed: 2, model: { preset: 'y' } }) };
  assert.equal(seedKey(a), seedKey(b));
  assert.notEqual(seedKey(a), seedKey(c));
});

test('tightLogRange pads in log space without snapping to decades', () => {
  const [lo, hi] = tightLogRange(2.13, 3.9);
  assert.ok(lo < 2.13 && lo > 2.0 && hi > 3.9 && hi < 4.2, `${lo} ${hi}`);
});

test('sortRows sorts numbers numerically with nulls last; filterRows matches every word', () => {
  const rows = [{ n: 'a10', v: 2 }, { n: 'a9', v: null }, { n: 'b1', v: 1 }];
  assert.deepEqual(sortRows(rows, (r) => r.v).map((r) => r.n), ['b1', 'a10', 'a9']);
  assert.deepEqual(sortRows(rows, (r) => r.v, true).map((r) => r.n), ['a10', 'b1', 'a9']);
  assert.deepEqual(sortRows(rows, (r) => r.n).map((r) => r.n), ['a9', 'a10', 'b1']);
  assert.deepEqual(filterRows(rows, (r) => [r.n, r.v], 'A1').map((r) => r.n), ['a10']);
  assert.deepEqual(filterRows(rows, (r) => [r.n], '  '), rows);
});

test('seriesCsv quotes what needs quoting', () => {
  assert.equal(seriesCsv([{ run: 'a,"b"', metric: 'train/loss', step: [1, 2], tokens: [10, 20], value: [3.5, null] }]),
    'run,metric,step,tokens,value\n"a,""b""",train/loss,1,10,3.5\n"a,""b""",train/loss,2,20,\n');
});

test('settings round-trip through the address, typed by their defaults', () => {
  const defaults = { xKey: 'step', logY: false, smoothing: 0, metrics: ['train/loss'] };
  const q = settingsToQuery({ xKey: 'tokens', logY: true, smoothing: 0.6, metrics: ['lr', 'val/loss'] }, defaults);
  assert.deepEqual(settingsFromQuery(q, defaults), { xKey: 'tokens', logY: true, smoothing: 0.6, metrics: ['lr', 'val/loss'] });
  assert.equal(settingsToQuery(defaults, defaults), '');
  assert.deepEqual(settingsFromQuery('smoothing=abc&other=1', defaults), {});
});

test('tuneSeries: mean final loss against the tuned value per group, the pick, failed values left out', () => {
  const report = { groups: [
    { key: { 'scale.variant': 'baseline' }, best: 1, problem: '', seeds: 3, pick_share: 0.62, trials: [
      { values: { 'optim.lr': 0.01 }, runs: 1, failed: 0, mean_loss: 3.1 },
      { values: { 'optim.lr': 0.003 }, runs: 1, failed: 0, mean_loss: 2.9 },
      { values: { 'optim.lr': 0.03 }, runs: 1, failed: 1, mean_loss: 'inf' }] },
    { key: { 'scale.variant': 'unified' }, best: -1, problem: 'edge', trials: [
      { values: { 'optim.lr': 0.01 }, runs: 1, failed: 0, mean_loss: 2.5 }] }] };
  const t = tuneSeries(JSON.stringify(report));
  assert.equal(t.field, 'optim.lr');
  // The pick is the smallest value tried (the failed 0.03 was tried too): at an edge of the grid.
  assert.deepEqual(t.groups[0], { label: 'scale.variant=baseline', variant: 'baseline', xs: [0.003, 0.01], ys: [2.9, 3.1], best: { x: 0.003, y: 2.9, origin: '' }, problem: '', edge: true, share: 0.62, seeds: 3, match: { 'scale.variant': 'baseline' } });
  assert.deepEqual(t.groups[1].best, null);
  assert.equal(t.groups[1].edge, false);
  assert.equal(t.groups[1].share, null, 'a report without the share: not measured');
  assert.equal(t.groups[1].problem, 'edge');
  // A value the coordinator added says so.
  report.groups[0].trials[1].origin = 'refined';
  assert.equal(tuneSeries(report).groups[0].best.origin, 'refined');
  assert.deepEqual(tuneSeries(report).rules, [], 'no size rule');
  report.rules = [{ family: { 'scale.variant': 'baseline' }, field: 'optim.lr', sizes: [], problem: '', intercept: 1.6, slope: -0.5, slope_se: 0.1, residual_sd: 0.1, df: 3 }];
  const ruled = tuneSeries(report).rules[0];
  assert.equal(ruled.label, 'scale.variant=baseline');
  assert.equal(ruled.slope, -0.5);
  assert.equal(ruled.intercept, 1.6);
  assert.ok(Math.abs(ruled.scatter - Math.exp(0.1)) < 1e-12);
  assert.equal(tuneSeries(''), null);
  assert.equal(tuneSeries('{"groups": []}'), null);
});

test('logTicks: at least 4 ticks on any log range, round values, decades where they are enough', () => {
  const cases = [[2.1, 2.7], [2.25, 2.26], [1e10, 1.1e11], [10, 1e8], [1e-3, 0.1], [3e3, 2e4], [0.0102, 0.1], [1, 3], [1e3, 1e30]];
  for (const [lo, hi] of cases) {
    const ticks = logTicks(lo, hi);
    assert.ok(ticks.length >= 4, `${lo}..${hi}: ${ticks}`);
    assert.ok(ticks.every((t) => t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)), `${lo}..${hi} inside: ${ticks}`);
    assert.ok(ticks.every((t, k) => k === 0 || t > ticks[k - 1]), `${lo}..${hi} increasing: ${ticks}`);
    assert.ok(ticks.length <= 12, `${lo}..${hi} not crowded: ${ticks}`);
  }
  assert.deepEqual(logTicks(2.1, 2.7), [2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7]);
  assert.deepEqual(logTicks(10, 1e5), [10, 100, 1000, 1e4, 1e5]);
  assert.deepEqual(logTicks(1e10, 1.1e11), [1e10, 2e10, 5e10, 1e11]);
  assert.deepEqual(logTicks(5, 5), []);
});

test('tickLabels: SI from 10k, and enough digits to tell the ticks apart', () => {
  assert.deepEqual(tickLabels([2.2, 2.4, 2.6]), ['2.2', '2.4', '2.6']);
  assert.deepEqual(tickLabels([2.25, 2.252, 2.254]), ['2.25', '2.252', '2.254']);
  assert.deepEqual(tickLabels([1e10, 2e10, 1.23e12]), ['10G', '20G', '1.23T']);
  assert.deepEqual(tickLabels([5000, 10000, 15000]), ['5000', '10k', '15k']);
  assert.deepEqual(tickLabels([0.001, 0.003]), ['0.001', '0.003']);
});

test('sweepStatus: the CLI\'s words for a sweep, by its counts', () => {
  const sweep = (finished, counts, total = 4) => ({ finished, job_counts: counts, total_jobs: total });
  assert.equal(sweepStatus(sweep(false, { running: 1, succeeded: 3 })), 'active');
  assert.equal(sweepStatus(sweep(true, { succeeded: 4 })), 'finished');
  assert.equal(sweepStatus(sweep(true, { failed: 4 })), 'failed');
  assert.equal(sweepStatus(sweep(true, { failed: 1, succeeded: 3 })), 'partly failed');
  assert.equal(sweepStatus(sweep(true, { cancelled: 4 })), 'cancelled');
  assert.equal(sweepStatus(sweep(true, {}, 0)), 'finished');
});

test('missingFitReason: why there is no law, from the fewest sizes of any variant', () => {
  const run = (variant, params, state = 'succeeded', stage = 'main') => ({ variant, params, state, stage });
  assert.match(missingFitReason([]), /no run has finished/);
  const two = [run('baseline', 1e4), run('baseline', 2e4), run('unified', 1e4), run('unified', 2e4), run('unified', 4e4)];
  assert.match(missingFitReason(two), /needs succeeded runs at 3 or more model sizes per variant; this sweep has 2 sizes/);
  assert.equal(missingFitReason([...two, run('baseline', 4e4)]), '');
  assert.match(missingFitReason([...two, run('baseline', 4e4, 'failed')]), /has 2 sizes/, 'a failed run is no size');
  assert.match(missingFitReason([...two, run('baseline', 4e4, 'succeeded', 'tune')]), /has 2 sizes/, 'nor a tune run');
});

test('seedBand: min–max, ± one standard error, or Student\'s 95% interval of the mean (min–max with two seeds), closed where one seed is left', () => {
  const tables = [[[1, 2], [1.0, 2.0]], [[1, 2], [3.0, 4.0]], [[1], [2.0]]];
  const [xs, mean, lo, hi] = seedBand(tables, 'minmax');
  assert.deepEqual([xs, mean, lo, hi], [[1, 2], [2, 3], [1, 2], [3, 4]]);
  const [, , seLo, seHi] = seedBand(tables, 'se');
  // x = 1: 1, 3, 2: sd 1, s.e. 1/sqrt(3); x = 2: 2, 4: sd sqrt(2), s.e. 1.
  assert.ok(Math.abs(seHi[0] - (2 + 1 / Math.sqrt(3))) < 1e-12 && Math.abs(seLo[0] - (2 - 1 / Math.sqrt(3))) < 1e-12);
  assert.ok(Math.abs(seHi[1] - 4) < 1e-12 && Math.abs(seLo[1] - 2) < 1e-12);
  const [, , ciLo, ciHi] = seedBand(tables, 'ci95');
  assert.ok(Math.abs(ciHi[0] - (2 + 4.303 / Math.sqrt(3))) < 1e-12, 't(0.975, 2) = 4.303');
  assert.deepEqual([ciLo[1], ciHi[1]], [2, 4], 'two seeds: their min–max, not t(0.975, 1) = 12.706 standard errors');
  assert.deepEqual(seedBand([[[5], [7]]], 'ci95').slice(1), [[7], [7], [7]], 'one seed: no band');
  assert.ok(Math.abs(tQuantile975(60) - 2.0003) < 0.002);
});

test('configDiff: the dot paths whose values differ between runs, in order', () => {
  const job = (config) => ({ config_json: JSON.stringify(config) });
  const a = job({ seed: 0, optim: { lr: 0.001, name: 'adamw' }, scale: { variant: 'baseline' } });
  const b = job({ seed: 1, optim: { lr: 0.003, name: 'adamw' }, scale: { variant: 'baseline' }, tokens: 5 });
  assert.deepEqual(configDiff([a, b]), [
    { path: 'optim.lr', values: ['0.001', '0.003'] },
    { path: 'seed', values: ['0', '1'] },
    { path: 'tokens', values: ['', '5'] }]);
  assert.deepEqual(configDiff([a, a]), []);
  // Strings read as written, without JSON's quotes; a list stays JSON.
  const c = job({ scale: { variant: 'unified' }, data: { train: 'brown/train.bin' }, ranks: [1, 2] });
  const d = job({ scale: { variant: 'baseline' }, data: { train: 'brown/train.bin' }, ranks: [2] });
  assert.deepEqual(configDiff([c, d]), [
    { path: 'ranks', values: ['[1,2]', '[2]'] },
    { path: 'scale.variant', values: ['unified', 'baseline'] }]);
});

test('stageJobs: the main stage by default, the tune trials alone, or both', () => {
  const jobs = [{ id: '1', stage: 'tune' }, { id: '2', stage: 'main' }, { id: '3', stage: '' }, { id: '4', stage: 'tune' }];
  assert.deepEqual(stageJobs(jobs, 'main').map((j) => j.id), ['2', '3']);
  assert.deepEqual(stageJobs(jobs, 'tune').map((j) => j.id), ['1', '4']);
  assert.deepEqual(stageJobs(jobs, 'all').map((j) => j.id), ['1', '2', '3', '4']);
});

test('studyRuns leaves out the tune stage\'s runs, as the fits do', () => {
  const runs = [{ id: '1', stage: 'tune' }, { id: '2', stage: 'main' }, { id: '3' }];
  assert.deepEqual(studyRuns(runs).map((r) => r.id), ['2', '3']);
});

test('fitBand: the law\'s range over every corner of its parameters\' intervals, around the fitted curve', () => {
  const est = (value, lo, hi) => ({ value, lo, hi, bounded: true });
  const params = { E: est(1.5, 1.4, 1.6), A: est(100, 80, 120), alpha: est(0.5, 0.45, 0.55) };
  const xs = [100, 1e4, 1e6];
  const band = fitBand('n', params, 'params', undefined, xs);
  const curve = fitCurve('n', params, 'params');
  for (let i = 0; i < xs.length; i++) {
    assert.ok(band.lo[i] < curve(xs[i]) && curve(xs[i]) < band.hi[i], `x ${xs[i]}`);
  }
  // At N = 100 the lowest corner is E lo, A lo, alpha hi; the highest E hi, A hi, alpha lo.
  assert.equal(band.lo[0], 1.4 + 80 * 100 ** -0.55);
  assert.equal(band.hi[0], 1.6 + 120 * 100 ** -0.45);
  // No band without intervals (no bootstrap), with an unbounded one, or on an axis the law does not apply to.
  assert.equal(fitBand('n', { E: est(1.5, 'nan', 'nan'), A: params.A, alpha: params.alpha }, 'params', undefined, xs), null);
  assert.equal(fitBand('n', { ...params, alpha: { value: 0.5, lo: 0.4, hi: 'inf', bounded: false } }, 'params', undefined, xs), null);
  assert.equal(fitBand('n', params, 'compute', undefined, xs), null);
  const ch = fitBand('chinchilla', { ...params, B: est(20, 10, 30), beta: est(0.3, 0.2, 0.4) }, 'params', 20, xs);
  assert.equal(ch.lo.length, 3);
  assert.ok(ch.lo.every((y, i) => y < ch.hi[i]));
});

test('storedBand: the fit\'s pointwise band read in log-log between its points, null outside them or on another axis', () => {
  const group = { band: { axis: 'compute', points: [[1e10, 2, 4], [1e12, 1, 2], [1e14, 'nan', 1]] } };
  const b = storedBand(group, 'compute', [1e9, 1e10, 1e11, 1e12]);
  assert.equal(b.pointwise, true);
  assert.deepEqual(b.lo.map((y) => y && +y.toFixed(9)), [null, 2, +Math.SQRT2.toFixed(9), 1]);
  assert.deepEqual(b.hi.map((y) => y && +y.toFixed(9)), [null, 4, +(2 * Math.SQRT2).toFixed(9), 2]);
  assert.equal(storedBand(group, 'params', [1e11]), null, 'a band along C is not drawn over N');
  assert.equal(storedBand({}, 'compute', [1e11]), null);
  assert.equal(storedBand({ band: { axis: 'compute', points: [[1e10, 2, 4]] } }, 'compute', [1e10]), null);
});

test('jobActions: cancel until a job ends, retry after it failed or was cancelled; bytesText', () => {
  assert.deepEqual(jobActions('pending'), { cancel: true, retry: false });
  assert.deepEqual(jobActions('running'), { cancel: true, retry: false });
  assert.deepEqual(jobActions('succeeded'), { cancel: false, retry: false });
  assert.deepEqual(jobActions('failed'), { cancel: false, retry: true });
  assert.deepEqual(jobActions('cancelled'), { cancel: false, retry: true });
  assert.equal(bytesText(512), '512 B');
  assert.equal(bytesText(1536), '1.5 KiB');
  assert.equal(bytesText(64 * 1024 * 1024), '64 MiB');
  assert.equal(bytesText(undefined), '–');
});

test('metricAtStep: any metric read at a step, interpolated between its logged steps, nothing outside them', () => {
  const lr = metricAtStep({ step: [10, 20, 30], value: [0.1, 0.3, null] });
  assert.ok(Number.isNaN(lr(5)), 'before its first logged step: no value (a metric is not 0 at step 0)');
  assert.equal(lr(10), 0.1);
  assert.ok(Math.abs(lr(15) - 0.2) < 1e-12);
  assert.ok(Number.isNaN(lr(25)), 'a value stored as null (not finite) gives none beside it');
  assert.ok(Number.isNaN(lr(30)));
  assert.equal(metricAtStep({ step: [], value: [] }), null);
});

test('wallClock: training seconds at any step, interpolated between logged steps, from 0 s at step 0', () => {
  const clock = wallClock({ step: [10, 20, 30], value: [2, 6, 7] });
  assert.equal(clock(0), 0);
  assert.equal(clock(5), 1);
  assert.equal(clock(10), 2);
  assert.equal(clock(15), 4);
  assert.equal(clock(30), 7);
  assert.ok(Number.isNaN(clock(31)), 'nothing past the last logged step');
  assert.ok(Number.isNaN(clock(-1)));
  assert.equal(wallClock({ step: [], value: [] }), null);
  assert.equal(wallClock(undefined), null);
});

// A hand-written stored report (test/fit-report.js): incomplete pairs, a bound, a profile range.
test('pairedComparisons reads the paired gaps and local multipliers, in the direction a sentence says them', () => {
  const [ahead, behind] = pairedComparisons([{ law: 'n' }, REPORT]);
  assert.equal(ahead.variant, 'unified');
  assert.equal(ahead.reference, 'baseline');
  assert.equal(ahead.paired, false, 'a run without its partner: pairs incomplete');
  assert.equal(ahead.anyPairs, true);
  assert.equal(ahead.complete, false);
  assert.equal(ahead.seeded, true);
  assert.equal(ahead.confidence, 0.95);
  assert.equal(ahead.identified, true);
  assert.equal(ahead.better, true);
  assert.equal(ahead.factor, 1.62);
  assert.deepEqual(ahead.interval, [0.87, 3.41]);
  assert.equal(ahead.includesOne, true);
  assert.deepEqual(ahead.jackknife, [1.41, 2.06]);
  assert.deepEqual(ahead.holdout, { error: 0.05, effect: 0.03 }, 'the laws miss by more than the effect');

  const [full, broken, lone] = ahead.sizes;
  assert.deepEqual([full.params, full.pairs, full.complete, full.gap], [1e4, 2, true, -0.07]);
  assert.deepEqual(full.paired, { mean: -0.07, se: 0.016 });
  assert.equal(full.unpaired, null, 'complete pairs: no unpaired figure beside');
  assert.deepEqual([full.local.value, full.local.bounded, full.outside], [1.65, true, false]);
  assert.equal(broken.complete, false);
  assert.equal(broken.paired.mean, -0.13);
  assert.ok(Number.isNaN(broken.paired.se), 'one pair: no paired s.e.');
  assert.deepEqual(broken.unpaired, { mean: -0.11, se: 0.09 }, 'incomplete: the unpaired gap beside');
  assert.equal(broken.gap, -0.13, 'read by its pair');
  assert.equal(lone.pairs, 0);
  assert.equal(lone.paired, null);
  assert.equal(lone.gap, -0.2, 'no pairs: the difference of the means');
  assert.equal(lone.outside, true);

  assert.equal(behind.reference, 'qknorm');
  assert.equal(behind.better, false);
  assert.equal(behind.factor, 1.25);
  assert.deepEqual(behind.interval.map((x) => +x.toFixed(4)), [1.1111, 2]);
  assert.deepEqual(behind.jackknife, [0.8, 1.6]);
  assert.equal(behind.includesOne, false);
  assert.equal(behind.holdout, null);
  assert.equal(behind.complete, false, 'no sizes: nothing paired');
  assert.deepEqual(behind.laws, [], 'the law compares with the baseline only');

  // The law-based multiplier of the same pair, beside the local one, with the range the fit cannot tell apart.
  assert.equal(ahead.laws.length, 1);
  assert.deepEqual(ahead.laws[0].profile, { lo: 1.08, hi: 1.73, open: true });
  assert.deepEqual(ahead.laws[0].interval, [1.04, 1.58]);
  assert.equal(ahead.laws[0].unit, 'seeds within each size, paired across groups');
  const laws = multipliers([REPORT]);
  assert.equal(pairedComparisons([REPORT], laws)[0].laws[0], laws[0], 'the same rows, so the view can tell which are placed');

  assert.deepEqual(pairedComparisons([{ law: 'n' }]), [], 'a report stored before comparisons existed has none');
  // The resamples an interval rests on, for the label beside it: used of requested, the report's own.
  const fewer = { ...REPORT, bootstrap: { ...REPORT.bootstrap, requested: 50, used: 48 } };
  assert.deepEqual(pairedComparisons([fewer])[0].resamples, { used: 48, requested: 50 });
  assert.deepEqual(multipliers([fewer])[0].resamples, { used: 48, requested: 50 });
  assert.deepEqual(ahead.resamples, { used: 200, requested: 200 });
});

test('pairedComparisons: without resampled seeds no interval, at a bound no interval, off a ladder no multiplier', () => {
  const bySizes = { ...REPORT, bootstrap: { requested: 200, used: 200, seed: 1, unit: 'model sizes' } };
  const [c] = pairedComparisons([bySizes]);
  assert.equal(c.seeded, false, 'resampling sizes redraws the ladder: no comparison interval');
  assert.equal(c.interval, null);
  assert.equal(c.includesOne, false);
  const notLadder = { ...REPORT, comparisons: [{ ...REPORT.comparisons[0], ladder: false, local_multiplier: estimate('nan', 'nan', 'nan') }] };
  const [d] = pairedComparisons([notLadder]);
  assert.equal(d.identified, false);
  assert.ok(d.sizes.every((z) => z.local === null && !z.outside), 'no curve in compute: no local multiplier per size');
  const bounded = { ...REPORT, multipliers: [{ ...REPORT.multipliers[0], constant: estimate(1.33, 'nan', 'nan', true) }] };
  const [m] = multipliers([bounded]);
  assert.deepEqual([m.atBound, m.bounded, m.interval, m.includesOne], [true, false, null, false]);
});

test('pairedComparisons lists a surface\'s gaps by N, then by D, whatever order the report keeps them in', () => {
  const at = (params, tokens) => ({ params, tokens, pairs: 2, complete: true, paired_mean: -0.01, paired_standard_error: 0.01,
    gap: { value: -0.01 }, local_multiplier: { value: 1.1, lo: 1, hi: 1.2, bounded: true } });
  const report = { law: 'chinchilla', confidence: 0.95, bootstrap: { used: 10, unit: 'seeds within each size, paired across groups' },
    comparisons: [{ variant: 'unified', baseline: 'baseline', paired: true, ladder: true, sizes_inside: 2,
      local_multiplier: { value: 1.1, lo: 1, hi: 1.2, bounded: true },
      sizes: [at(1e4, 4e5), at(1e4, 5e4), at(1e4, 1e5), at(2e4, 8e5), at(2e4, 1e5)] }] };
  const [c] = pairedComparisons([report]);
  assert.deepEqual(c.sizes.map((z) => [z.params, z.tokens]), [[1e4, 5e4], [1e4, 1e5], [1e4, 4e5], [2e4, 1e5], [2e4, 8e5]]);
});

test('gapClass colours a gap only when its 95% t interval excludes 0', () => {
  // The two cells: +0.0019 ± 0.0018 over 3 seeds is within noise; -0.1247 ± 0.0836 over 3 too (t = 4.30).
  assert.equal(gapClass(0.0019, 0.0018, 2), 'unresolved');
  assert.equal(gapClass(-0.1247, 0.0836, 2), 'unresolved');
  assert.equal(gapClass(-0.1247, 0.02, 2), 'better');
  assert.equal(gapClass(0.05, 0.01, 2), 'worse');
  assert.equal(gapClass(-0.05, 0.01, 30), 'better');
  assert.equal(gapClass(0.02, 0.01, 30), 'unresolved', 't(30) = 2.04: 2 s.e. is not enough');
  assert.equal(gapClass(0.05, NaN, 2), '');
  assert.equal(gapClass(0.05, 0.01, 0), '', 'one seed: no df, no colour');
});

test('settingsProblems names what an address gives that is no setting or of the wrong kind', () => {
  const defaults = { logY: false, xKey: 'step', x0: 0, metrics: [] };
  assert.deepEqual(settingsProblems('logY=1&xKey=tokens&x0=abc&colour=lr&metrics=a,b', defaults),
    ['logY=1: expected true or false', 'x0=abc: expected a number', 'colour: not a setting']);
  assert.deepEqual(settingsProblems('logY=true&x0=12', defaults), []);
  // A setting of a fixed set of values: one outside it is said, with the values it takes.
  const choices = { xKey: { ok: (v) => ['step', 'tokens'].includes(v), expected: 'step or tokens' } };
  assert.deepEqual(settingsProblems('xKey=steps&logY=true', defaults, choices), ['xKey=steps: expected step or tokens']);
  assert.deepEqual(settingsProblems('xKey=tokens', defaults, choices), []);
  assert.equal(settingsProblems(`${'k'.repeat(100)}=1`, defaults)[0], `${'k'.repeat(40)}…: not a setting`);
});

// Unit tests of a run's family of cooldown branches in the metric charts (web/family.js): no browser, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { branchOf, branchesByRun, familyIds, soloIds, branchLabel, branchColour, interpolate, leadPoint } from '../family.js';

// Jobs as GET /api/sweeps/{id}/jobs gives them (proto JSON: int64 fields as strings, an unset parent as '').
const JOBS = [
  { id: '1', name: 'm/s0', parent_id: '', branch_step: '0', branch_points: ['28', '56'] },
  { id: '2', name: 'm/s0/D=71680', parent_id: '1', branch_step: '28', branch_points: [] },
  { id: '3', name: 'm/s0/D=143360', parent_id: '1', branch_step: '56', branch_points: [] },
  { id: '4', name: 'm/s1', parent_id: '', branch_step: '0', branch_points: ['28'] },
  { id: '5', name: 'm/s1/D=71680', parent_id: '4', branch_step: '28', branch_points: [] },
  { id: '6', name: 'plain' },  // a job of a sweep without branches: no branch fields at all
];

test('branchOf reads a branch\'s run and step from proto JSON; a run or a plain job is no branch', () => {
  assert.deepEqual(branchOf(JOBS[1]), { parentId: '1', step: 28 });
  assert.equal(branchOf(JOBS[0]), null);
  assert.equal(branchOf(JOBS[5]), null);
  assert.equal(branchOf({ id: '7', parent_id: '0' }), null, 'id 0 is no job');
  assert.deepEqual([...branchesByRun(JOBS)], [['1', ['2', '3']], ['4', ['5']]]);
});

test('hiding a run takes its branches; a branch alone keeps its run; a plain job is itself', () => {
  assert.deepEqual(familyIds(JOBS, '1'), ['1', '2', '3']);
  assert.deepEqual(familyIds(JOBS, 1), ['1', '2', '3'], 'ids as numbers too');
  assert.deepEqual(familyIds(JOBS, '3'), ['3'], 'a branch\'s switch is its own');
  assert.deepEqual(familyIds(JOBS, '6'), ['6']);
  assert.deepEqual(soloIds(JOBS, '4'), ['4', '5']);
  assert.deepEqual(soloIds(JOBS, '5'), ['4', '5'], 'a branch shown alone keeps the line it leaves from');
  assert.deepEqual(soloIds(JOBS, '6'), ['6']);
});

test('a branch is named after its run, with its step and budget', () => {
  assert.equal(branchLabel('tiny-2x16/baseline/adamw/wsd/s0', 28, 71680), 'tiny-2x16/baseline/adamw/wsd/s0 → branch at step 28, D=71.7k');
  assert.equal(branchLabel('baseline tiny-2x16', 56), 'baseline tiny-2x16 → branch at step 56', 'no budget known: none said');
});

test('a branch is drawn in its run\'s hue, fainter', () => {
  assert.equal(branchColour('#0072B2'), '#0072B299');
  assert.equal(branchColour('#0072b2').slice(0, 7), '#0072b2');
  assert.equal(branchColour('steelblue'), 'steelblue', 'a colour it cannot fade stays as it is');
});

test('interpolate: the point where there is one, linear between, null outside or next to a gap', () => {
  const xs = [10, 20, 30, 40];
  const ys = [4, 3, null, 1];
  assert.equal(interpolate(xs, ys, 10), 4);
  assert.equal(interpolate(xs, ys, 15), 3.5);
  assert.equal(interpolate(xs, ys, 28), null, 'a gap next to it');
  assert.equal(interpolate(xs, ys, 40), 1);
  assert.equal(interpolate(xs, ys, 9), null);
  assert.equal(interpolate(xs, ys, 41), null);
  assert.equal(interpolate([], [], 1), null);
});

test('leadPoint: a branch leaves its run on the run\'s drawn line at the branch step, in any x unit and scale', () => {
  // A run logged every 10 steps; a branch at step 28 falls between two of its points.
  const run = { base: [10, 20, 30, 40], xs: [10, 20, 30, 40], ys: [3.0, 2.6, 2.5, 2.4] };
  const lead = leadPoint(run, 28);
  assert.equal(lead.x, 28);
  assert.ok(Math.abs(lead.y - 2.52) < 1e-12, `${lead.y}`);
  // At a point the run has, that point.
  assert.deepEqual(leadPoint(run, 30), { x: 30, y: 2.5 });
  // x in other units (FLOPs: 6·N per token, 2048 tokens a step): the run's x at that step.
  const flops = { base: [20480, 40960, 61440], xs: [1e9, 2e9, 3e9], ys: [3.0, 2.6, 2.5] };
  const at = 28 * 2048;
  const f = leadPoint(flops, at);
  assert.ok(Math.abs(f.x - 2.8e9) < 1, `${f.x}`);
  assert.ok(Math.abs(f.y - 2.52) < 1e-12, `${f.y}`);
  // On a log x axis the chart draws each segment straight in log x: the lead is on that segment, not on the
  // straight line in x (which would sit off the drawn line).
  const logRun = { base: [1, 100], xs: [1, 100], ys: [4, 2] };
  assert.equal(leadPoint(logRun, 10, { logX: true }).y, 3, 'half way in log x');
  assert.ok(Math.abs(leadPoint(logRun, 10).y - (4 - (2 * 9) / 99)) < 1e-12, 'linear axis: linear in x');
  // Log y: straight in log y.
  assert.ok(Math.abs(leadPoint({ base: [0, 2], xs: [0, 2], ys: [4, 1] }, 1, { logY: true }).y - 2) < 1e-12);
  // Beyond the run's points (or before them): no lead, never an extrapolation.
  assert.equal(leadPoint(run, 45), null);
  assert.equal(leadPoint(run, 5), null);
  assert.equal(leadPoint({ base: [], xs: [], ys: [] }, 1), null);
});

// Unit tests of the alerts' bookkeeping on the page (web/alerts.js): the list kept newest first and each alert
// once however the answers overlap, the cursor of the next ?after=, and each run's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertsByJob, mergeAlerts, newestAlertId, ruleText } from '../alerts.js';

const alert = (id, job, rule = 'loss_spike') => ({ id: String(id), job_id: String(job), rule, attempt: 1, message: `m${id}` });

test('merged alerts: newest first by id (numerically), each once, a fresh copy replacing the known one', () => {
  const known = [alert(9, 1), alert(10, 2)].reverse();
  const fresh = [alert(12, 1, 'stalled'), alert(11, 3), alert(10, 2)];
  const merged = mergeAlerts(known, fresh);
  assert.deepEqual(merged.map((a) => a.id), ['12', '11', '10', '9'], '"10" sorts after "9" as a number');
  assert.deepEqual(mergeAlerts([], []), []);
});

test('the cursor is the newest id, "0" for none', () => {
  assert.equal(newestAlertId([alert(7, 1), alert(3, 1)]), '7');
  assert.equal(newestAlertId([]), '0');
});

test('per run: its alerts, newest first', () => {
  const byJob = alertsByJob(mergeAlerts([], [alert(1, 5), alert(2, 6, 'diverged'), alert(3, 5, 'stalled')]));
  assert.deepEqual(byJob.get('5').map((a) => a.id), ['3', '1']);
  assert.deepEqual(byJob.get('6').map((a) => a.rule), ['diverged']);
  assert.equal(byJob.get('7'), undefined);
});

test('rules in words; an unknown rule as it came', () => {
  assert.equal(ruleText('loss_spike'), 'loss spike');
  assert.equal(ruleText('worker_lost'), 'worker lost');
  assert.equal(ruleText('new_rule'), 'new_rule');
});

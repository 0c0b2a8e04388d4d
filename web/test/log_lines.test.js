// Unit tests of a job's log read as rows (web/log_lines.js) and of the times the pages print (web/when.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logRows } from '../log_lines.js';
import { isoTime, isoUtc } from '../when.js';

test('a log as rows: attempt headers, the worker\'s notes, metric lines as step, tokens and values, events, other text', () => {
  const text = [
    '== tune/baseline/lr=0.1/s100: attempt 1 on worker 1 (w-1, slot 0)',
    'gammalab-worker: running the job\'s own program: python3 train.py',
    '{"step":10,"metrics":{"train/loss":2.9600470066070557,"lr":0.09955106526613236},"tokens":1280}',
    '{"event":"start","params":1234567,"scale_params":96}',
    '',
    'Traceback (most recent call last):',
    '{"event":"stopped","step":40}',
    '{"step":200,"metrics":{"val/loss":2.0621},"tokens":25600000}\r',
    '{"step":-1,"metrics":{"a":1}}',
    '{not json',
  ].join('\n');
  assert.deepEqual(logRows(text), [
    { kind: 'attempt', step: null, tokens: null, message: 'tune/baseline/lr=0.1/s100: attempt 1 on worker 1 (w-1, slot 0)' },
    { kind: 'worker', step: null, tokens: null, message: 'running the job\'s own program: python3 train.py' },
    { kind: 'metrics', step: 10, tokens: 1280, message: 'train/loss 2.96 · lr 0.09955' },
    { kind: 'event', step: null, tokens: null, message: 'start: params 1.235M · scale_params 96' },
    { kind: 'text', step: null, tokens: null, message: 'Traceback (most recent call last):' },
    { kind: 'event', step: 40, tokens: null, message: 'stopped' },
    { kind: 'metrics', step: 200, tokens: 25600000, message: 'val/loss 2.062' },
    // Not a metric line a worker would store (a negative step): shown as written, not dropped.
    { kind: 'text', step: null, tokens: null, message: '{"step":-1,"metrics":{"a":1}}' },
    { kind: 'text', step: null, tokens: null, message: '{not json' },
  ]);
  assert.deepEqual(logRows(''), []);
  assert.deepEqual(logRows(undefined), []);
});

test('a log\'s tail that starts inside a line keeps that piece as text', () => {
  const rows = logRows('ss":2.5},"tokens":10}\n{"step":20,"metrics":{"loss":2.4}}');
  assert.deepEqual(rows.map((r) => [r.kind, r.step, r.tokens]), [['text', null, null], ['metrics', 20, null]]);
});

test('times print in ISO order in local time whatever the locale; the title\'s form is UTC', () => {
  const ms = Date.UTC(2026, 11, 6, 23, 13, 26);
  const local = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  const expected = `${local.getFullYear()}-${two(local.getMonth() + 1)}-${two(local.getDate())} `
    + `${two(local.getHours())}:${two(local.getMinutes())}:${two(local.getSeconds())}`;
  assert.equal(isoTime(ms), expected);
  assert.equal(isoTime(String(ms)), expected, 'proto JSON writes int64 milliseconds as a string');
  assert.equal(isoTime('2026-12-06T23:13:26Z'), expected, 'a protobuf Timestamp in JSON');
  assert.match(isoTime(ms), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  assert.equal(isoUtc(ms), '2026-12-06T23:13:26.000Z');
  for (const none of [null, undefined, '', 0, '0', 'yesterday']) assert.equal(isoTime(none), '', String(none));
});

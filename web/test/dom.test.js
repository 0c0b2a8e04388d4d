// Text from the database as the page shows it (web/dom.js): names and errors lose control characters and
// bidirectional overrides, which would otherwise draw a terminal escape or show a name in another order than it
// reads; everything else stays, newlines and tabs of a log included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shown } from '../dom.js';

test('bidirectional overrides, embeddings and isolates are dropped', () => {
  for (const c of ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069']) {
    assert.equal(shown(`sweep${c}gpj.exe`), 'sweepgpj.exe', `U+${c.codePointAt(0).toString(16)}`);
  }
});

test('C0 and C1 controls are dropped, tab and newline kept', () => {
  assert.equal(shown('a\u001b[31mred\u001b[0m'), 'a[31mred[0m');
  assert.equal(shown('x\u0000y\u0007z\u007f\u0085\u009b'), 'xyz');
  assert.equal(shown('line 1\n\tline 2'), 'line 1\n\tline 2');
});

test('ordinary text, numbers and empty values are unchanged or empty', () => {
  assert.equal(shown('tiny-0.1m/unified/s0 — ünïcödé ✓ 日本'), 'tiny-0.1m/unified/s0 — ünïcödé ✓ 日本');
  assert.equal(shown(42), '42');
  assert.equal(shown(null), '');
  assert.equal(shown(undefined), '');
});

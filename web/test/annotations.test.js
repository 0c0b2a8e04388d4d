// Unit tests of the note-and-tags form's reading (web/annotations.js): what is sent for what was typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { typedTags, annotationChange, annotationProblem } from '../annotations.js';

test('tags as typed: split at spaces and commas, each once', () => {
  assert.deepEqual(typedTags(' ablation,paper-fig3  ablation\tlr=3e-4 '), ['ablation', 'paper-fig3', 'lr=3e-4']);
  assert.deepEqual(typedTags(''), []);
});

test('the change sent is what differs: a new note, the tags added and those taken off; nothing when nothing does', () => {
  const before = { note: 'old', tags: ['a', 'b'] };
  assert.deepEqual(annotationChange(before, 'new', 'b c'), { note: 'new', add_tags: ['c'], remove_tags: ['a'] });
  assert.deepEqual(annotationChange(before, 'old', 'b a'), null);
  assert.deepEqual(annotationChange(before, '', ''), { note: '', remove_tags: ['a', 'b'] }, 'clearing both');
  assert.deepEqual(annotationChange(null, 'first', ''), { note: 'first' });
  assert.deepEqual(annotationChange(null, '', 'x'), { add_tags: ['x'] });
});

test('the form says what the coordinator would refuse before sending it', () => {
  assert.equal(annotationProblem('fine\nnote', 'a b_c lr=1e-3'), '');
  assert.equal(annotationProblem('x'.repeat(4001), ''), 'a note is at most 4000 bytes');
  assert.equal(annotationProblem('é'.repeat(2001), ''), 'a note is at most 4000 bytes', 'bytes, not characters');
  assert.equal(annotationProblem('', 'ok bad!'), "'bad!' is not a tag: 1 to 40 letters, digits and . _ - : + / =");
  assert.equal(annotationProblem('', 't'.repeat(41)), `'${'t'.repeat(41)}' is not a tag: 1 to 40 letters, digits and . _ - : + / =`);
});

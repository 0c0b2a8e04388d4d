// Unit tests of what the charts colour and split runs by (web/grouping.js): exact keys, short names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupValue, groupLabel, orderedGroups, useTags } from '../grouping.js';

test('a config field\'s groups: exact keys in numeric order, named short as the jobs table writes them', () => {
  const job = (lr) => ({ config_json: JSON.stringify({ optim: { lr } }) });
  const jobs = [job(0.1), job(1 / 60), job(0.0625)];
  assert.equal(groupValue(jobs[1], 'optim.lr'), '0.016666666666666666', 'the key keeps every digit');
  assert.deepEqual(orderedGroups(jobs, 'optim.lr'), ['0.016666666666666666', '0.0625', '0.1']);
  assert.deepEqual(orderedGroups(jobs, 'optim.lr').map((k) => groupLabel(k, 'optim.lr')), ['0.0167', '0.0625', '0.1']);
  assert.equal(groupLabel('–', 'optim.lr'), '–');
  assert.equal(groupLabel('baseline', 'variant'), 'baseline');
  assert.equal(groupLabel('adamw', 'optim.name'), 'adamw', 'a string value as written');
});

test('tags: runs grouped by the set of tags each carries, in any order written, the untagged last', () => {
  const tags = new Map([['1', ['rerun', 'lr-high']], ['2', ['lr-high', 'rerun']], ['3', ['ablation']], ['4', []]]);
  useTags((job) => tags.get(job.id));
  const jobs = ['1', '2', '3', '4', '5'].map((id) => ({ id, config_json: '{}' }));
  assert.equal(groupValue(jobs[0], 'tags'), 'lr-high rerun');
  assert.equal(groupValue(jobs[1], 'tags'), 'lr-high rerun', 'the same tags written in another order: one group');
  assert.equal(groupValue(jobs[4], 'tags'), '(no tags)', 'a run without an annotation');
  assert.deepEqual(orderedGroups(jobs, 'tags'), ['ablation', 'lr-high rerun', '(no tags)']);
  assert.equal(groupLabel('lr-high rerun', 'tags'), 'lr-high rerun');
  useTags(() => []);
});

// Unit tests of what the charts colour and split runs by (web/grouping.js): exact keys, short names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupValue, groupLabel, orderedGroups } from '../grouping.js';

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

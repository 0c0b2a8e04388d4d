// Unit tests of the overlay of other sweeps' runs in the metric charts (web/overlay.js): no browser, no server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlayGroup, overlayLabel, overlayIds, overlayChoices, overlayGroups } from '../overlay.js';
import { groupColours, farthestColours, CATEGORICAL } from '../colours.js';

test('an overlaid sweep\'s groups are its own: keyed by its id, named after it, coloured apart from the open sweep\'s', () => {
  const { groups, labels } = overlayGroups(['baseline', 'unified'], [
    { id: '7', name: 'ladder', groups: ['baseline', 'unified'] },
    { id: '9', name: 'a,b', groups: ['baseline'] },
  ]);
  assert.deepEqual(groups, ['baseline', 'unified', '7/baseline', '7/unified', '9/baseline']);
  assert.equal(labels.get('baseline'), 'baseline');
  assert.equal(labels.get('7/unified'), 'ladder · unified');
  assert.equal(labels.get('9/baseline'), 'a,b · baseline', 'a name with a comma stays in the label, not in the key');
  assert.ok(!overlayGroup('9', 'baseline').includes(','), 'keys go into the address as a comma-separated list');
});

test('an overlaid sweep\'s groups take the colours farthest from those in use, none twice', () => {
  const own = groupColours(['baseline', 'unified'], false);
  const colours = farthestColours(['7/baseline', '7/unified', '9/baseline'], own.values());
  const all = [...own.values(), ...colours.values()];
  assert.equal(new Set(all).size, all.length, `every group its own colour: ${JSON.stringify(all)}`);
  assert.ok(all.every((c) => CATEGORICAL.includes(c)));
  // Not the palette's next free colour: its teal (#44AA99) beside the open sweep's green unified (#009E73).
  assert.ok(![...colours.values()].includes('#44AA99'), JSON.stringify([...colours]));
  // Once the palette is spent, colours repeat rather than fail.
  const many = farthestColours([...Array(CATEGORICAL.length + 2).keys()].map(String), []);
  assert.equal(many.size, CATEGORICAL.length + 2);
  assert.equal(new Set(many.values()).size, CATEGORICAL.length);
});

test('the sweeps that can be overlaid: not the open one, not twice, newest first', () => {
  const sweeps = [{ id: '1' }, { id: '2' }, { id: '3' }, { id: '4' }];
  assert.deepEqual(overlayChoices(sweeps, '2', ['3']).map((s) => s.id), ['4', '1']);
  assert.deepEqual(overlayIds(['3', '2', '3', 4], '2'), ['3', '4']);
  assert.equal(overlayLabel('web-seeds', 'tiny/s0'), 'web-seeds · tiny/s0');
});

// Unit tests of the jobs table's config columns (web/config_columns.js): flattening, which fields vary, the
// default choice, the short value text and the shown columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  flattenConfig, jobConfig, varyingPaths, defaultConfigPaths, configText, shownColumnKeys, DEFAULT_CONFIG_COLUMNS,
} from '../config_columns.js';

// A job as /api/sweeps/{id}/jobs lists it, with the resolved config the coordinator stores.
const job = (config) => ({ config_json: JSON.stringify(config) });
const base = {
  seed: 0, steps: 40,
  model: { preset: 'tiny-0.03m', d_model: 32, n_layers: 1, moe: { n_experts: 0 } },
  optim: { name: 'adamw', lr: 0.003, betas: [0.9, 0.95] },
  scale: { variant: 'baseline' },
};
const withFields = (patch) => structuredClone({ ...base, ...patch });

test('flattenConfig: dotted paths of the leaves; lists are one leaf; nested objects walked', () => {
  const flat = flattenConfig(base);
  assert.equal(flat.get('optim.lr'), 0.003);
  assert.equal(flat.get('model.moe.n_experts'), 0);
  assert.deepEqual(flat.get('optim.betas'), [0.9, 0.95]);
  assert.equal(flat.has('optim'), false, 'an object is not a leaf');
  assert.equal(flat.has('optim.betas.0'), false, 'a list is not walked');
  assert.deepEqual([...flattenConfig({}).keys()], []);
});

test('jobConfig: an unreadable config is an empty one', () => {
  assert.equal(jobConfig({ config_json: '{not json' }).size, 0);
  assert.equal(jobConfig({}).size, 0);
  assert.equal(jobConfig(job(base)).get('seed'), 0);
});

test('varyingPaths: only the fields whose values differ, sorted, without the fixed columns\' paths', () => {
  const configs = [
    withFields({ seed: 0 }), withFields({ seed: 1 }),
    withFields({ seed: 0, optim: { ...base.optim, lr: 0.001 }, scale: { variant: 'unified' } }),
  ].map((c) => jobConfig(job(c)));
  assert.deepEqual(varyingPaths(configs), ['optim.lr', 'seed']);
  // A list that differs varies; equal lists do not.
  const lists = [withFields({}), withFields({ optim: { ...base.optim, betas: [0.9, 0.99] } })].map((c) => jobConfig(job(c)));
  assert.deepEqual(varyingPaths(lists), ['optim.betas']);
  // A field only some jobs have varies (the others show it as absent).
  const absent = [withFields({}), withFields({ ckpt_every: 10 })].map((c) => jobConfig(job(c)));
  assert.deepEqual(varyingPaths(absent), ['ckpt_every']);
  assert.deepEqual(varyingPaths(configs, new Set()), ['optim.lr', 'scale.variant', 'seed'], 'with the fixed columns\' paths');
  assert.deepEqual(varyingPaths([jobConfig(job(base))]), [], 'one job: nothing varies');
  assert.deepEqual(varyingPaths([]), []);
});

test('defaultConfigPaths: the preferred fields first, at most a few; fields a varying preset or variant implies left out', () => {
  assert.equal(DEFAULT_CONFIG_COLUMNS, 2);
  assert.deepEqual(defaultConfigPaths(['optim.beta2', 'optim.lr', 'seed', 'steps']), ['optim.lr', 'seed']);
  assert.deepEqual(defaultConfigPaths(['seed', 'steps']), ['seed', 'steps']);
  // A sweep over presets and variants: d_model, n_layers and the scale switches vary with them, and say nothing
  // the model and variant columns do not.
  assert.deepEqual(defaultConfigPaths(['model.d_model', 'model.n_layers', 'scale.decay', 'scale.param', 'seed'],
    ['model.preset', 'scale.variant']), ['seed']);
  assert.deepEqual(defaultConfigPaths(['model.d_model', 'scale.decay', 'seed'], ['scale.variant']), ['seed', 'model.d_model']);
  // Without a preset axis a model field is an axis of its own.
  assert.deepEqual(defaultConfigPaths(['model.d_model', 'seed']), ['seed', 'model.d_model']);
  assert.deepEqual(defaultConfigPaths(['optim.beta2', 'data.train']), ['data.train', 'optim.beta2'], 'the rest in path order');
  assert.deepEqual(defaultConfigPaths([]), []);
});

test('configText: short numbers as the page writes them, strings as written, absent as a dash', () => {
  assert.equal(configText(0.001), '1e-3');
  assert.equal(configText(0.003), '3e-3');
  assert.equal(configText(0.00025), '2.5e-4');
  assert.equal(configText(0.1), '0.1');
  assert.equal(configText(0.95), '0.95');
  assert.equal(configText(1 / 3), '0.333');
  assert.equal(configText(0), '0');
  assert.equal(configText(7), '7');
  assert.equal(configText(1024), '1024', 'integers to 9999 exactly');
  assert.equal(configText(40000), '40k');
  assert.equal(configText(1_250_000), '1.25M');
  assert.equal(configText(2e9), '2G');
  assert.equal(configText(3e18), '3e18');
  assert.equal(configText(-0.002), '-2e-3');
  assert.equal(configText('unified'), 'unified');
  assert.equal(configText(true), 'true');
  assert.equal(configText([0.9, 0.95]), '[0.9,0.95]');
  assert.equal(configText(undefined), '–');
  assert.equal(configText(null), '–');
});

test('shownColumnKeys: the chosen columns in the table\'s order, else the defaults; the job always', () => {
  const all = ['job', 'variant', 'model', 'optim.lr', 'seed', 'state'];
  const defaults = ['job', 'variant', 'model', 'seed', 'state'];
  assert.deepEqual(shownColumnKeys(all, defaults, [], 'job'), defaults);
  assert.deepEqual(shownColumnKeys(all, defaults, ['state', 'optim.lr'], 'job'), ['job', 'optim.lr', 'state']);
  // A chosen column the sweep does not have (another sweep's field) is skipped.
  assert.deepEqual(shownColumnKeys(all, defaults, ['job', 'model.d_model'], 'job'), ['job']);
});

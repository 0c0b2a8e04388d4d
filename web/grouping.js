// What the metric charts colour runs by and split them into panels by ("colour by", "panels"): the variant, the
// model size, or any config field that varies between the sweep's jobs (a dotted path of the resolved config:
// optim.lr, seed, model.d_model, ...), so that a tune stage's curves can be coloured by their LR and a ladder's
// faceted by width.
import { sortGroups } from './colours.js';
import { jobInfo } from './series.js';
import { jobConfig, configText } from './config_columns.js';

// The groupings every sweep has, named as the address writes them: a run's tags (notes and tags, annotations.js)
// group the runs by the set of tags each carries.
export const BUILT_IN = new Map([['variant', 'variant'], ['preset', 'model size'], ['tags', 'tags']]);
const NO_TAGS = '(no tags)';

// The tags of a job, as the page last loaded them: the page that owns the annotations says how to read them.
let tagsOfJob = () => [];
export function useTags(lookup) {
  tagsOfJob = lookup;
}
const tagSet = (job) => {
  const tags = [...(tagsOfJob(job) || [])].sort();
  return tags.length ? tags.join(' ') : NO_TAGS;
};

// A job's flattened config, read once per config_json (the charts ask for it per job on every redraw).
const flatOf = new WeakMap();
function flat(job) {
  let kept = flatOf.get(job);
  if (!kept || kept.json !== job.config_json) {
    kept = { json: job.config_json, config: jobConfig(job) };
    flatOf.set(job, kept);
  }
  return kept.config;
}

// A config value as a group's key and name: exact (two learning rates never share a group because they round
// alike), strings as written, '–' for a job without the field.
function valueKey(value) {
  if (value === undefined || value === null) return '–';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// The group of `job` under `by`: its variant, its size label, or its value of the config field `by`.
export function groupValue(job, by) {
  if (by === 'tags') return tagSet(job);
  if (BUILT_IN.has(by)) return jobInfo(job)[by];
  return valueKey(flat(job).get(by));
}

// The groups of `jobs` under `by` in the order a legend lists them: the built-in ones as sortGroups orders them;
// a config field's values ascending by number where every value is one (LRs, widths), else as text.
export function orderedGroups(jobs, by, paramsOf) {
  if (by === 'tags') {  // by their tags as text, the untagged last
    return [...new Set(jobs.map(tagSet))].sort((a, b) => (a === NO_TAGS) - (b === NO_TAGS) || a.localeCompare(b));
  }
  if (BUILT_IN.has(by)) return sortGroups(jobs.map((j) => jobInfo(j)[by]), by, paramsOf);
  const values = new Map();
  for (const j of jobs) {
    const v = flat(j).get(by);
    values.set(valueKey(v), v);
  }
  const numeric = [...values.values()].every((v) => typeof v === 'number');
  return [...values.keys()].sort((a, b) => (numeric ? values.get(a) - values.get(b) : a.localeCompare(b)));
}

// Whether `by`'s groups lie on a scale colours should follow (a sequential palette, light to dark): model
// sizes, and a config field whose values are all numbers, but for the seed, whose numbers are names.
export function orderedBy(jobs, by) {
  if (by === 'preset') return true;
  if (BUILT_IN.has(by) || by === 'seed') return false;
  return jobs.length > 0 && jobs.every((j) => typeof flat(j).get(by) === 'number');
}

// A group's name in a legend: a config value short, as the jobs table writes it (0.0167, not
// 0.016666666666666666); the group's key stays exact.
export function groupLabel(key, by) {
  if (BUILT_IN.has(by) || key === '–') return key;
  try {
    return configText(JSON.parse(key));
  } catch {
    return key;  // a string value, as written
  }
}

// What a legend says the colours mean: "variant", "model size", or the field's path.
export function groupingName(by) {
  return BUILT_IN.get(by) ?? by;
}

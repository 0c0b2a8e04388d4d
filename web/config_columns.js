// Config columns of the jobs table: the fields of the jobs' resolved configs (job.config_json) that differ
// between a sweep's jobs, as optional columns, and which of them a sweep shows before anyone chooses.
// A sweep's jobs share most of their config; what tells them apart (the LR, the seed, the budget) is what a
// researcher wants beside each run's loss, and a field that is equal everywhere would only take room.
import { si } from './format.js';

// Paths the table shows as fixed columns already (variant and model), left out of the config columns.
export const FIXED_PATHS = new Set(['scale.variant', 'model.preset']);

// The fields worth a column first, in order, when they vary: the axes sweeps usually have. Anything else that
// varies follows in path order.
export const PREFERRED_PATHS = ['optim.lr', 'seed', 'steps', 'optim.name', 'schedule.kind', 'optim.weight_decay',
  'batch_tokens', 'model.seq_len'];

// Config columns shown by default at most: with the fixed variant and model columns, a sweep's usual axes fit
// beside the losses at a laptop's width.
export const DEFAULT_CONFIG_COLUMNS = 2;

// A config (parsed JSON) flattened to dotted paths of its leaves: {optim: {lr: 1e-3}} -> Map {'optim.lr' => 1e-3}.
// Lists are leaves (a list of layers is one value, not a field per entry).
export function flattenConfig(config) {
  const out = new Map();
  const walk = (value, path) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    } else if (path) {
      out.set(path, value);
    }
  };
  walk(config, '');
  return out;
}

// One job's flattened config; an unreadable config_json is an empty one (the job view shows it as stored).
export function jobConfig(job) {
  try {
    return flattenConfig(JSON.parse(job.config_json || '{}'));
  } catch {
    return new Map();
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The paths whose values are not all equal over `configs` (flattened, one per job; a path absent from some
// job counts as a value of its own), sorted, but for those of `leaveOut` (by default the fixed columns' paths).
export function varyingPaths(configs, leaveOut = FIXED_PATHS) {
  const paths = new Set(configs.flatMap((c) => [...c.keys()]));
  return [...paths].filter((p) => !leaveOut.has(p) && configs.some((c) => c.has(p) !== configs[0].has(p)
    || !same(c.get(p), configs[0].get(p)))).sort();
}

// The config columns a sweep shows by default: of the varying paths, the preferred ones in their order, then
// the rest in path order, at most DEFAULT_CONFIG_COLUMNS. `fixedVarying`: the fixed columns' paths that vary
// (scale.variant, model.preset). Where one does, the other fields of its section follow from it (a preset sets
// d_model and n_layers; a variant its scale.* switches) and its column says them already: none by default.
export function defaultConfigPaths(varying, fixedVarying = []) {
  const sections = fixedVarying.map((p) => `${p.slice(0, p.lastIndexOf('.'))}.`);
  const implied = (p) => sections.some((s) => p.startsWith(s));
  const preferred = PREFERRED_PATHS.filter((p) => varying.includes(p) && !implied(p));
  const rest = varying.filter((p) => !PREFERRED_PATHS.includes(p) && !implied(p)).sort();
  return [...preferred, ...rest].slice(0, DEFAULT_CONFIG_COLUMNS);
}

// A config value as a table shows it, short: integers to 9999 as they are, larger numbers with an SI prefix
// (40000 -> 40k), small ones in exponent form without padding zeros (0.001 -> 1e-3, 3e-4 -> 3e-4), other numbers
// to 3 significant digits; strings as written; true/false; a list as JSON; '–' where the job has no value.
export function configText(value) {
  if (value === undefined || value === null) return '–';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

// Short: integers to 9999 as they are, exponent form from 1e15 and under 0.01 without padding zeros, prefixes
// between (format.js si); a non-finite value as JavaScript writes it.
function numberText(x) {
  return Number.isFinite(x) ? si(x, 3, { below: 1e15, exact: 1e4, trim: true }) : String(x);
}

// The columns shown, in the table's order (`allKeys`): those of `chosen` (the setting: keys of the columns
// shown, empty for the default) that exist, or else those of `defaults`; `always` (the job, without which a row
// has no name) in either case.
export function shownColumnKeys(allKeys, defaults, chosen, always) {
  const want = new Set(chosen.length ? chosen : defaults);
  want.add(always);
  return allKeys.filter((k) => want.has(k));
}

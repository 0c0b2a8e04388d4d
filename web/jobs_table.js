// The open sweep's jobs table: fixed columns and the config fields that vary, a run's swatch that hides, shows
// or solos it, sorting and filtering, fitting the table to its card (table_fit.js), and the compare card.
import { alertBadge, alertsByJob } from './alerts.js';
import { FIXED_PATHS, configText, defaultConfigPaths, jobConfig, shownColumnKeys, varyingPaths } from './config_columns.js';
import { fill, h, pathText, shown } from './dom.js';
import { branchOf, familyIds, soloIds } from './family.js';
import { si } from './format.js';
import { $, annotationOf, changed, settings, state } from './page.js';
import { filterRows, sortRows } from './rows.js';
import { ACTIVE_STATES, configDiff, int, jobInfo, stageJobs, stateClass } from './series.js';
import { fmt } from './study.js';
import { TableFit } from './table_fit.js';

export function workerName(id) {
  return id ? state.workers.get(id)?.hostname || `worker ${id}` : '';
}

// A run's swatch in the jobs table is its switch in the metric charts: a click hides or shows it, Alt-click
// shows it alone (or, when it is alone already, every run again). Hidden runs are a setting (`hiddenRuns`).
// A run's switch takes its cooldown branches with it, and a branch shown alone keeps its run beside it, the
// line it leaves from (family.js familyIds, soloIds); a branch's own switch hides only the branch.
function runToggle(job, colour) {
  const id = String(job.id);
  const off = settings.hiddenRuns.includes(id);
  const branches = familyIds(state.jobs, id).length > 1;
  const what = branches ? 'this run and its branches' : 'this run';
  return h('button', {
    type: 'button', class: `swatch run-toggle${off ? ' off' : ''}`, style: { background: off ? 'transparent' : colour, borderColor: colour },
    dataset: { jobId: id },
    title: off ? `hidden in the charts: click to show ${what} (Alt-click: alone)` : `click: hide ${what} in the charts (Alt-click: alone)`,
    onclick: (event) => {
      const family = new Set(familyIds(state.jobs, id));
      if (event.altKey) {
        const shownAlone = new Set(soloIds(state.jobs, id));
        const others = state.jobs.map((j) => String(j.id)).filter((x) => !shownAlone.has(x));
        const alone = !off && others.every((x) => settings.hiddenRuns.includes(x))
          && [...shownAlone].every((x) => !settings.hiddenRuns.includes(x));
        settings.hiddenRuns = alone ? [] : others;
        // A run of the stage the charts leave out (a tune run while the main stage is shown) would leave them
        // empty: the charts turn to its stage.
        if (!alone && !stageJobs([job], settings.stage).length) settings.stage = job.stage === 'tune' ? 'tune' : 'main';
      } else {
        settings.hiddenRuns = off ? settings.hiddenRuns.filter((x) => !family.has(x))
          : [...settings.hiddenRuns.filter((x) => !family.has(x)), ...family];
      }
      changed();
    },
  });
}

// Under a branch's name in the jobs table: where it leaves its run, and the run (a link, its name on hover). One
// short line: the branch is listed under its run already, and its own name starts with the run's.
function branchNote(job) {
  const b = branchOf(job);
  if (!b) return null;
  const run = state.jobs.find((j) => String(j.id) === b.parentId);
  return h('div', { class: 'branch-note' }, `branch at step ${b.step} of `,
    h('a', { href: `#/jobs/${encodeURIComponent(b.parentId)}`, title: run ? run.name : '' }, `job ${b.parentId}`));
}

// The fixed columns: header, what sorts (a number or text), the text the filter reads, and the cell.
// A run's tags under its name in the jobs table (its note on hover), where it has any.
function runTags(job) {
  const a = annotationOf(job.id);
  return a?.tags.length ? h('div', { class: 'tags', title: a.note || '' }, a.tags.map((t) => h('span', { class: 'badge tag' }, t))) : null;
}

function fixedColumns(colourOf) {
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const alertsOf = alertsByJob(state.alerts);
  const lastTrain = (j) => (j.has_loss && Number.isFinite(j.last_loss) ? j.last_loss : null);
  return [
    { key: 'job', head: 'job', get: (j) => j.name, cell: (j) => [h('div', { class: 'job-name' }, runToggle(j, colourOf(j)),
      h('a', { href: `#/jobs/${encodeURIComponent(j.id)}` }, pathText(j.name))), branchNote(j), runTags(j), j.error ? h('div', { class: 'err' }, j.error) : null] },
    { key: 'variant', head: 'variant', get: (j) => jobInfo(j).variant },
    { key: 'model', head: 'model', get: (j) => jobInfo(j).preset, sortBy: (j) => runOf.get(j.id)?.params ?? null },
    { key: 'state', head: 'state', get: (j) => j.state, cell: (j) => [h('span', { class: `badge ${stateClass(j.state)}` }, j.state),
      j.attempt > 1 ? h('span', { class: 'meta' }, ` try ${j.attempt}`) : null, alertBadge(alertsOf.get(String(j.id)))] },
    { key: 'step', head: 'step / total', num: true, get: (j) => int(j.step), cell: (j) => {
      const total = int(j.total_steps);
      const pct = total > 0 ? Math.min(100, (100 * int(j.step)) / total) : 0;
      return [`${int(j.step)} / ${total}`, h('span', { class: 'progress' }, h('span', { style: { width: `${pct}%` } }))];
    } },
    { key: 'train', head: 'last train loss', num: true, get: lastTrain, cell: (j) => (lastTrain(j) === null ? '–' : lastTrain(j).toFixed(4)) },
    { key: 'val', head: 'final val loss', num: true, get: (j) => runOf.get(j.id)?.final_val_loss ?? null, cell: (j) => fmt(runOf.get(j.id)?.final_val_loss ?? NaN) },
    { key: 'speed', head: 'tokens/s', num: true, get: (j) => (j.tokens_per_s > 0 ? j.tokens_per_s : null), cell: (j) => (j.tokens_per_s > 0 ? si(j.tokens_per_s) : '–') },
    { key: 'worker', head: 'worker', get: (j) => workerName(j.worker_id) },
    { key: 'compare', head: 'compare', get: () => '', cell: (j) => h('input', {
      type: 'checkbox', class: 'compare', title: 'compare this run with the others ticked', checked: settings.compare.includes(String(j.id)),
      dataset: { jobId: j.id },
      onchange: (event) => {
        const id = String(j.id);
        settings.compare = event.target.checked ? [...settings.compare, id] : settings.compare.filter((x) => x !== id);
        changed();
      },
    }) },
  ];
}

// The config fields that vary across the sweep's jobs (config_columns.js), worked out again only when the jobs'
// configs change (a live update brings the same jobs in new states far more often than new jobs).
let configCache = { key: null };
export function sweepConfigs() {
  const key = state.jobs.map((j) => `${j.id}:${j.config_hash}`).join(',');
  if (configCache.key !== key) {
    const configs = new Map(state.jobs.map((j) => [j.id, jobConfig(j)]));
    const paths = varyingPaths([...configs.values()]);
    const fixedVarying = varyingPaths([...configs.values()], new Set()).filter((p) => FIXED_PATHS.has(p));
    configCache = { key, configs, paths, defaults: defaultConfigPaths(paths, fixedVarying) };
  }
  return configCache;
}

// A column per varying config field, keyed and headed by its dotted path: sorts by the value itself (numbers
// numerically), shows and filters by its short text (1e-3, 40k).
function configColumns() {
  const { configs, paths } = sweepConfigs();
  return paths.map((path) => {
    const value = (j) => configs.get(j.id)?.get(path);
    const numeric = state.jobs.every((j) => value(j) === undefined || typeof value(j) === 'number');
    const distinct = new Set(state.jobs.map((j) => JSON.stringify(value(j) ?? null))).size;
    return {
      key: path, head: path, config: true, num: numeric, distinct,
      get: (j) => { const v = value(j); return v !== null && typeof v === 'object' ? JSON.stringify(v) : v ?? null; },
      text: (j) => configText(value(j)), cell: (j) => configText(value(j)),
    };
  });
}

// Every column the table can show, in its order (the config fields after the model, with what says what a run
// is), and those the `columns` setting shows.
function jobColumns(colourOf) {
  const fixed = fixedColumns(colourOf);
  const at = fixed.findIndex((c) => c.key === 'model') + 1;
  const all = [...fixed.slice(0, at), ...configColumns(), ...fixed.slice(at)];
  const defaults = [...fixed.map((c) => c.key), ...sweepConfigs().defaults];
  const keys = new Set(shownColumnKeys(all.map((c) => c.key), defaults, settings.columns, 'job'));
  return { all, defaults, shown: all.filter((c) => keys.has(c.key)) };
}

// The column chooser ("Columns" over the table): a box per column, the table's own and then the config fields
// that vary, and a way back to the default. Rebuilt only when its content changes, so that a live update does
// not take a box from under the pointer.
let chooserKey = '';
function renderColumnChooser({ all, defaults, shown }) {
  const on = new Set(shown.map((c) => c.key));
  const key = JSON.stringify([all.map((c) => [c.key, c.distinct]), [...on]]);
  if (key === chooserKey) return;
  chooserKey = key;
  const choose = (k, checked) => {
    const keys = all.map((c) => c.key).filter((x) => (x === k ? checked : on.has(x)));
    // The default chosen by hand is the default: the address stays short, and follows the sweep's fields.
    settings.columns = JSON.stringify(keys) === JSON.stringify(all.map((c) => c.key).filter((x) => defaults.includes(x))) ? [] : keys;
    changed();
  };
  const box = (c) => h('label', { dataset: { column: c.key }, title: c.key === 'job' ? 'always shown: a row\'s name' : '' },
    h('input', { type: 'checkbox', checked: on.has(c.key), disabled: c.key === 'job', onchange: (e) => choose(c.key, e.target.checked) }),
    h('span', { class: c.config ? 'path' : '' }, c.head),
    c.config ? h('span', { class: 'note' }, `${c.distinct} values`) : null);
  const fixed = all.filter((c) => !c.config);
  const config = all.filter((c) => c.config);
  fill($('jobs-columns-menu'),
    h('div', { class: 'group' }, h('div', { class: 'group-head' }, 'table'), fixed.map(box)),
    h('div', { class: 'group config' }, h('div', { class: 'group-head' }, 'config fields that vary'),
      config.length ? config.map(box) : h('div', { class: 'note' }, 'none: every job has the same config')),
    h('button', { type: 'button', class: 'reset', disabled: !settings.columns.length, onclick: () => {
      settings.columns = [];
      changed();
    } }, 'default columns'));
}

// The runs ticked in the jobs table, side by side: their final losses and every config field that differs.
export function renderCompare() {
  const jobs = settings.compare.map((id) => state.jobs.find((j) => String(j.id) === id)).filter(Boolean);
  $('compare-card').hidden = jobs.length < 2;
  if (jobs.length < 2) return;
  const runOf = new Map(state.runs.map((r) => [r.id, r]));
  const losses = [['state', (j) => j.state], ['final train loss', (j) => fmt(runOf.get(j.id)?.final_train_loss ?? NaN)],
    ['final val loss', (j) => fmt(runOf.get(j.id)?.final_val_loss ?? NaN)]];
  const diff = configDiff(jobs);
  fill($('compare'), [
    h('thead', {}, h('tr', {}, h('th', {}, ''), jobs.map((j) => h('th', {}, h('a', { href: `#/jobs/${encodeURIComponent(j.id)}` }, j.name))))),
    h('tbody', {},
      losses.map(([name, get]) => h('tr', { class: 'loss' }, h('th', {}, name), jobs.map((j) => h('td', {}, get(j))))),
      diff.map((row) => h('tr', { class: 'diff', dataset: { path: row.path } }, h('th', {}, row.path), row.values.map((v) => h('td', {}, v)))),
      diff.length ? null : h('tr', {}, h('td', { colspan: jobs.length + 1 }, 'Their configs are equal.')))]);
}

// The jobs the table's filter keeps: those with every word of it in some shown column (as shown: a config
// value's short text), in their error, or in their note and tags.
export function filteredJobs(jobs, colourOf) {
  const cols = jobColumns(colourOf).shown;
  return filterRows(jobs, (j) => [...cols.map((c) => (c.text ? c.text(j) : c.get(j))), j.error,
    ...(annotationOf(j.id)?.tags || []), annotationOf(j.id)?.note], settings.filter);
}

// The columns that go first when the table is wider than its card, least needed to tell runs apart and see how
// they do first: the worker, speed, last train loss, then model and variant (the job's name says both), then
// the config fields that vary from the last.
function fitOrder(cols) {
  const config = cols.filter((c) => c.config).map((c) => c.key).reverse();
  return ['worker', 'speed', 'train', 'model', 'variant', ...config].filter((k) => cols.some((c) => c.key === k));
}

let jobsFit = null;  // made on the first drawing, when the page is there to measure
let lastJobsRender = null;  // the arguments of the last drawing, for a redraw when the card's width changes

export function renderJobs(groups, tableJobs) {
  lastJobsRender = [groups, tableJobs];
  const columns = jobColumns(groups.colourOf);
  renderColumnChooser(columns);
  const chosen = columns.shown;
  const table = $('jobs');
  let rows = tableJobs;
  const by = chosen.find((c) => c.key === settings.sort);
  if (by) rows = sortRows(rows, by.sortBy || by.get, settings.desc);
  const draw = (dropped) => {
    const cols = chosen.filter((c) => !dropped.has(c.key));
    fill(table.tHead, h('tr', {}, cols.map((c) => h('th', {
      class: [c.num ? 'num' : '', 'sortable', settings.sort === c.key ? (settings.desc ? 'desc' : 'asc') : ''].join(' ').trim(),
      dataset: { key: c.key }, title: c.config ? `config field ${c.key}: sort by it (again: reverse)` : 'sort by this column (again: reverse)',
      onclick: () => {
        if (settings.sort === c.key) settings.desc = !settings.desc;
        else Object.assign(settings, { sort: c.key, desc: false });
        changed();
      },
    }, c.head))));
    fill(table.tBodies[0], rows.map((j) => h('tr', { class: branchOf(j) ? 'branch' : '', dataset: { jobId: j.id, state: j.state } },
      cols.map((c) => h('td', { class: [c.num ? 'num' : '', c.config ? 'config' : ''].join(' ').trim() || null, dataset: { key: c.key } },
        c.cell ? c.cell(j) : c.get(j))))));
  };
  jobsFit ??= new TableFit(document.querySelector('#jobs-card .table-wrap'));
  const dropped = jobsFit.fit(table, chosen.map((c) => c.key).join(' '), fitOrder(chosen), draw);
  const heads = dropped.map((k) => chosen.find((c) => c.key === k).head);
  $('jobs-fit-note').hidden = !heads.length;
  $('jobs-fit-note').textContent = heads.length
    ? `Left out to fit the window: ${heads.join(', ')} (a wider window shows them; Columns chooses).` : '';
  const running = state.jobs.filter((j) => ACTIVE_STATES.has(j.state)).length;
  $('jobs-summary').textContent = `${state.jobs.length} jobs${running ? `, ${running} running` : ''}`
    + (rows.length !== state.jobs.length ? ` (${rows.length} shown)` : '');
}

// The table drawn again to the card's width, when that changed since its last drawing (a window made wider or
// narrower).
export function refitJobsTable() {
  if (lastJobsRender && jobsFit && jobsFit.width !== jobsFit.card.clientWidth) renderJobs(...lastJobsRender);
}

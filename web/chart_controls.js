// The metric charts' controls and legend: the legend's keys, the metric list, the overlay picker, the x axis and
// grouping choices, the note under the legend on a metric x axis, and the controls kept in step with the
// settings (CONTROLS, syncControls).
import { xDropped, xMetric } from './curves.js';
import { fill, h } from './dom.js';
import { branchOf } from './family.js';
import { count } from './format.js';
import { BUILT_IN, groupingName } from './grouping.js';
import { sweepConfigs } from './jobs_table.js';
import { refresh } from './loading.js';
import { overlayChoices, overlayGroup, overlayIds } from './overlay.js';
import { $, METRIC_X, changed, paramsByPreset, settings, state, storedMetrics } from './page.js';
import { isFailed } from './series.js';

// The legend's keys are buttons, rebuilt only when the groups change (a double-click must land on the button
// its first click hit); toggling only changes their class.
let legendKey = '';
export function renderLegend(g) {
  const sizes = paramsByPreset();
  const hidden = new Set(settings.hidden);
  const branches = state.jobs.some((j) => branchOf(j));
  const key = JSON.stringify([g.by, g.groups, [...g.labels], [...g.colours], state.jobs.some(isFailed), branches]);
  if (key !== legendKey) {
    legendKey = key;
    const keys = g.groups.map((group) => h('button', {
      type: 'button', class: 'key', dataset: { group },
      title: 'click: show or hide; double-click: show only this one',
      onclick: () => {
        const set = new Set(settings.hidden);
        if (set.has(group)) set.delete(group);
        else set.add(group);
        settings.hidden = [...set];
        changed();
      },
      ondblclick: () => {
        settings.hidden = g.groups.filter((x) => x !== group);
        changed();
      },
    }, h('span', { class: 'swatch', style: { background: g.colours.get(group) } }), g.labels.get(group) ?? group,
    g.by === 'preset' && sizes.has(group) ? h('span', { class: 'note' }, ` (${count(sizes.get(group))})`) : null));
    keys.unshift(h('span', { class: 'key note by' }, `colour: ${groupingName(g.by)}`));
    if (state.jobs.some(isFailed)) keys.push(h('span', { class: 'key note' }, 'dashed: failed'));
    if (branches) keys.push(h('span', { class: 'key note branches-note' }, 'fainter: a cooldown branch, in its run\'s colour, from the point where it leaves its run'));
    fill($('legend'), keys);
  }
  for (const b of $('legend').querySelectorAll('button.key')) b.classList.toggle('off', hidden.has(b.dataset.group));
}


export function renderMetricList() {
  renderXChoices();
  const names = storedMetrics();
  const chosen = new Set(settings.metrics);
  fill($('metric-list'), names.map((n) => h('label', {}, h('input', {
    type: 'checkbox', checked: chosen.has(n), dataset: { metric: n },
    onchange: (e) => {
      const set = new Set(settings.metrics);
      if (e.target.checked) set.add(n);
      else set.delete(n);
      settings.metrics = names.filter((x) => set.has(x));
      changed();
    },
  }), n)));
}

// Over the metric charts: the sweeps overlaid (each a chip that takes it off again, in its first group's colour)
// and a menu to add another. Rebuilt only when they change, so that a live update leaves an open menu alone.
let overlayKey = '';
export function renderOverlayControl(g) {
  const chosen = overlayIds(settings.with, state.sweep.id);
  const choices = overlayChoices(state.sweeps, state.sweep.id, chosen);
  $('overlay').hidden = !chosen.length && !choices.length;  // (no other sweep to overlay)
  const key = JSON.stringify([chosen.map((id) => [id, state.overlays.get(id)?.sweep?.name, state.overlays.get(id)?.missing]),
    choices.map((s) => [s.id, s.name]), [...g.colours]]);
  if (key === overlayKey) return;
  overlayKey = key;
  const setWith = (ids) => {
    settings.with = ids;
    changed();
    refresh();  // loads a sweep just added
  };
  const chip = (id) => {
    const o = state.overlays.get(id);
    const name = o?.sweep?.name ?? (o?.missing ? `#${id} (no such sweep)` : `#${id}`);
    const first = o?.sweep ? g.groups.find((k) => k.startsWith(overlayGroup(o.sweep.id, ''))) : null;
    return h('span', { class: 'overlay-chip', dataset: { sweepId: id } },
      h('span', { class: 'swatch', style: { background: first ? g.colours.get(first) : 'transparent' } }), name,
      h('button', { type: 'button', class: 'remove', title: `take ${name}'s runs off the charts`, onclick: () => setWith(chosen.filter((x) => x !== id)) }, '×'));
  };
  fill($('overlay'), h('span', { class: 'note' }, chosen.length ? 'with the runs of' : 'overlay the runs of another sweep:'),
    chosen.map(chip),
    choices.length ? h('select', {
      id: 'overlay-add', title: 'draw the runs of another sweep over this one\'s, in colours of their own',
      onchange: (e) => { if (e.target.value) setWith([...chosen, e.target.value]); },
    }, h('option', { value: '' }, chosen.length ? 'add a sweep…' : 'choose a sweep…'),
    choices.map((s) => h('option', { value: s.id }, `${s.name} (#${s.id})`))) : null);
}

// Under the legend, on a metric x axis: what it is, and the points not drawn where it repeats or goes back.
export function renderXNote() {
  const name = xMetric();
  const note = $('x-axis-note');
  note.hidden = !name;
  if (!name) return;
  const missing = !storedMetrics().includes(name);
  note.textContent = missing ? `x = ${name}: no run of this sweep logged it, so no curve has an x.`
    : `x = ${name}, the run's value of it at each point's step (interpolated between the steps it was logged at).`
      + (xDropped.points ? ` ${name} repeats or goes back in ${xDropped.runs.size} run${xDropped.runs.size === 1 ? '' : 's'}: `
        + `${xDropped.points} point${xDropped.points === 1 ? '' : 's'} share${xDropped.points === 1 ? 's' : ''} an x with a later step's and ${xDropped.points === 1 ? 'is' : 'are'} not drawn.` : '');
}

// The x axis choices: the four fixed ones, then every logged metric of the sweep.
let xChoicesKey = '';
function renderXChoices() {
  const names = storedMetrics();
  const key = JSON.stringify([names, settings.xKey]);
  if (key === xChoicesKey) return;
  xChoicesKey = key;
  const select = $('x-axis');
  for (const old of select.querySelectorAll('optgroup')) old.remove();
  const listed = xMetric() && !names.includes(xMetric()) ? [...names, xMetric()] : names;  // (the address's, until loaded)
  if (listed.length) {
    select.append(h('optgroup', { label: 'a logged metric' }, listed.map((n) => h('option', { value: `${METRIC_X}${n}` }, n))));
  }
  select.value = settings.xKey;
}

// The config fields that vary between the sweep's jobs, offered under "colour by" and "panels" (grouping.js),
// beside the variant and the size; a field the address names that no longer varies stays offered, so the
// select shows what the charts do. Rebuilt only when the list changes (an open select keeps its options).
let groupingChoicesKey = '';
export function renderGroupingChoices() {
  const paths = sweepConfigs().paths.filter((p) => p !== 'scale.variant' && p !== 'model.preset');
  const extra = [settings.groupBy, settings.panelBy].filter((p) => p !== 'none' && !BUILT_IN.has(p) && !paths.includes(p));
  const key = JSON.stringify([paths, extra]);
  if (key === groupingChoicesKey) return;
  groupingChoicesKey = key;
  for (const id of ['group-by', 'panel-by']) {
    fill($(id).querySelector('optgroup.fields'), [...paths, ...new Set(extra)].map((p) => h('option', { value: p },
      paths.includes(p) ? p : `${p} (the same in every job)`)));
  }
}

// Controls show the settings (after a load from the address) and write them back on change.
export const CONTROLS = [
  ['x-axis', 'xKey', 'value'], ['log-x', 'logX', 'checked'], ['log-y', 'logY', 'checked'], ['group-by', 'groupBy', 'value'],
  ['panel-by', 'panelBy', 'value'], ['seeds', 'seeds', 'value'], ['smoothing', 'smoothing', 'value'],
  ['scaling-loss', 'scalingLoss', 'value'], ['scaling-x', 'scalingX', 'value'], ['scaling-unfinished', 'unfinished', 'checked'],
  ['jobs-filter', 'filter', 'value'], ['stage', 'stage', 'value'],
];

export function syncControls() {
  for (const [id, key, prop] of CONTROLS) {
    const el = $(id);
    if (document.activeElement === el && prop === 'value' && el.type === 'search') continue;
    if (String(el[prop]) !== String(settings[key])) el[prop] = settings[key];
  }
  $('zoom-reset').hidden = settings.x0 === null;
  $('smoothing-text').textContent = smoothingText(Number(settings.smoothing));
}

// The smoothing's weight and the window it averages over: an EMA of weight w remembers about 1/(1 − w) points.
function smoothingText(w) {
  if (!(w > 0)) return 'off';
  return `${w.toFixed(2)} (EMA over ≈ ${Math.round(1 / (1 - w))} points)`;
}

// Alerts (core/alert.h; docs/alerts.md): what the coordinator raised when a run needed a look, shown above a
// sweep's cards (newest first, each naming its run with a link), as a badge beside a run's state in the jobs
// table, and in a run's own view. The coordinator decides every alert; the page only shows them
// (GET /api/sweeps/ID/alerts, ?after=ID for the ones raised since).
import { h, fill, pathText, shown } from './dom.js';
import { isoTime, isoUtc } from './when.js';

const RULE_TEXT = { diverged: 'diverged', loss_spike: 'loss spike', stalled: 'stalled', worker_lost: 'worker lost' };
export const ruleText = (rule) => RULE_TEXT[rule] ?? rule;

// How many a sweep's banner lists; the rest are counted, with the CLI command that lists them all.
export const BANNER_ROWS = 5;

// `known` and `fresh` (each newest first, as the API answers) as one list, newest first, each alert once.
export function mergeAlerts(known, fresh) {
  const byId = new Map([...known, ...fresh].map((a) => [String(a.id), a]));
  return [...byId.values()].sort((a, b) => Number(b.id) - Number(a.id));
}

// The newest alert id of a list ('0' for none): the cursor of the next ?after=.
export const newestAlertId = (alerts) => (alerts.length ? String(alerts[0].id) : '0');

// Per job id, its alerts, newest first.
export function alertsByJob(alerts) {
  const out = new Map();
  for (const a of alerts) {
    if (!out.has(a.job_id)) out.set(a.job_id, []);
    out.get(a.job_id).push(a);
  }
  return out;
}

function alertRow(a, { withRun }) {
  const where = [`attempt ${a.attempt}`, a.step !== undefined ? `step ${a.step}` : null].filter(Boolean).join(', ');
  return h('li', { class: 'alert-row', dataset: { rule: a.rule, job: a.job_id, id: String(a.id) } },
    h('span', { class: `badge alert ${a.rule}` }, ruleText(a.rule)), ' ',
    withRun ? h('a', { href: `#/jobs/${encodeURIComponent(a.job_id)}` }, pathText(shown(a.job_name || `job ${a.job_id}`))) : null,
    withRun ? ' ' : null,
    h('span', { class: 'meta' }, `(${where})`), ' ',
    h('span', { class: 'alert-message' }, shown(a.message)), ' ',
    h('time', { class: 'meta', title: isoUtc(a.raised_ms) }, isoTime(a.raised_ms)));
}

// A sweep's alerts above its cards: hidden when it has none.
export function renderSweepAlerts(el, alerts, sweepId) {
  el.hidden = alerts.length === 0;
  if (!alerts.length) return fill(el);
  const more = alerts.length - BANNER_ROWS;
  fill(el, h('div', { class: 'alerts-head' }, `${alerts.length} alert${alerts.length === 1 ? '' : 's'}: runs that need a look`),
    h('ul', { class: 'alert-list' }, alerts.slice(0, BANNER_ROWS).map((a) => alertRow(a, { withRun: true }))),
    more > 0 ? h('div', { class: 'meta' }, `and ${more} older (all of them: gammalab alerts ${sweepId})`) : null);
}

// A run's alerts in its view: hidden when it has none.
export function renderJobAlerts(el, alerts) {
  el.hidden = alerts.length === 0;
  fill(el, alerts.length ? h('ul', { class: 'alert-list' }, alerts.map((a) => alertRow(a, { withRun: false }))) : null);
}

// The badge beside a run's state in the jobs table: its newest alert's rule, every one in the title.
export function alertBadge(jobAlerts) {
  if (!jobAlerts?.length) return null;
  return h('span', { class: `badge alert ${jobAlerts[0].rule}`, title: jobAlerts.map((a) => `${ruleText(a.rule)}: ${a.message}`).join('\n') },
    `⚠ ${ruleText(jobAlerts[0].rule)}`);
}

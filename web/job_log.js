// The job view's Log card: the tail of the job's log as a table of steps and messages (log_lines.js), or as
// written with "raw" ticked. Either follows the end as the log grows, unless the reader has scrolled up.
import { h, fill, shown } from './dom.js';
import { bytesText } from './format.js';
import { logRows } from './log_lines.js';

const byId = (id) => document.getElementById(id);

let shownText = null;  // the log text the card shows, so that a live update that brings nothing new redraws nothing

// Whether `el` is scrolled to its end (a few pixels' slack), read before its content changes.
const atEnd = (el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 4;

export function renderJobLog(log) {
  const raw = byId('job-log-raw').checked;
  const pre = byId('job-log');
  const rows = byId('job-log-rows');
  pre.hidden = !raw;
  rows.hidden = raw;
  const scroller = raw ? pre : rows;
  const follow = atEnd(scroller);
  if (!log?.exists) {
    byId('job-log-meta').textContent = log?.refused ? `not read: ${log.refused}` : 'no log yet (written once a worker runs the job)';
    shownText = null;
    pre.textContent = '';
    byId('job-log-table').tBodies[0].replaceChildren();
    return;
  }
  byId('job-log-meta').textContent = log.truncated
    ? `the last ${bytesText(new TextEncoder().encode(log.text).length)} of ${bytesText(log.size)}` : bytesText(log.size);
  if (shownText !== log.text) {
    shownText = log.text;
    pre.textContent = shown(log.text);
    fill(byId('job-log-table').tBodies[0], logRows(log.text).map((r) => (r.kind === 'attempt'
      ? h('tr', { class: 'attempt', dataset: { kind: r.kind } }, h('td', { colspan: 3 }, r.message))
      : h('tr', { dataset: { kind: r.kind } },
        h('td', { class: 'num' }, r.step === null ? '' : r.step.toLocaleString('en-US')),
        h('td', { class: 'num' }, r.tokens === null ? '' : r.tokens.toLocaleString('en-US')),
        h('td', { class: 'message' }, r.message)))));
  }
  if (follow) scroller.scrollTop = scroller.scrollHeight;
}

// Ticking "raw" shows the other form at once, at its end.
export function watchJobLogRaw(current) {
  byId('job-log-raw').addEventListener('change', () => {
    renderJobLog(current());
    const scroller = byId('job-log-raw').checked ? byId('job-log') : byId('job-log-rows');
    scroller.scrollTop = scroller.scrollHeight;
  });
}

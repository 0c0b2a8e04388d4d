// A job's log read as rows: what the job view's Log card shows as a table (the raw text stays one tick away).
//
// The log holds, in order of writing: the worker's header for each attempt ("== NAME: attempt 2 on worker …"),
// the worker's own notes ("gammalab-worker: …"), the trainer's (or a job's own program's) metric lines
// ({"step": 120, "tokens": 491520, "metrics": {...}}, docs/own-program.md), the trainer's events
// ({"event": "stopped", "step": 40}) and anything else a program prints. A reader scanning it wants the step
// and the values, not the JSON around them; no line is dropped or reordered, and a line that is not one of
// the known shapes (a partial first line of a log's tail, a traceback) is a message as written.
import { si } from './format.js';

const WORKER_NOTE = 'gammalab-worker: ';

// A value as a row shows it: four significant digits, SI prefixes for large ones (the dashboard's one formatter).
function value(v) {
  if (typeof v === 'number') return si(v, 4);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

// "train/loss 2.96 · lr 0.09955": an object's fields in their written order.
function pairs(object) {
  return Object.entries(object).map(([k, v]) => `${k} ${value(v)}`).join(' · ');
}

const wholeNumber = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null);

function parsedObject(line) {
  if (!line.startsWith('{')) return null;
  try {
    const v = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

// One row per non-empty line: { kind, step, tokens, message }, kind one of 'attempt' (the worker's header of
// an attempt), 'worker' (its notes), 'metrics', 'event' and 'text'; step and tokens are whole numbers or null.
export function logRows(text) {
  const rows = [];
  for (const raw of String(text ?? '').split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (!line.trim()) continue;
    if (line.startsWith('== ')) {
      rows.push({ kind: 'attempt', step: null, tokens: null, message: line.slice(3) });
      continue;
    }
    if (line.startsWith(WORKER_NOTE)) {
      rows.push({ kind: 'worker', step: null, tokens: null, message: line.slice(WORKER_NOTE.length) });
      continue;
    }
    const object = parsedObject(line);
    const metrics = object?.metrics;
    if (object && metrics && typeof metrics === 'object' && !Array.isArray(metrics) && wholeNumber(object.step) !== null) {
      rows.push({ kind: 'metrics', step: object.step, tokens: wholeNumber(object.tokens), message: pairs(metrics) });
    } else if (object && typeof object.event === 'string') {
      const { event, step, ...rest } = object;
      const detail = pairs(rest);
      rows.push({ kind: 'event', step: wholeNumber(step), tokens: null, message: detail ? `${event}: ${detail}` : event });
    } else {
      rows.push({ kind: 'text', step: null, tokens: null, message: line });
    }
  }
  return rows;
}

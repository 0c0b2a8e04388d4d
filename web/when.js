// Times as the dashboard and the report print them: ISO 8601 order in the reader's local time,
// "2026-12-06 23:13:26", the same in every locale (no "12/6/2026, 11:13:26 PM"), sortable as text. The
// element's title can carry the exact instant in UTC (isoUtc) for a reader comparing with a server's log.

const two = (n) => String(n).padStart(2, '0');

// A time (milliseconds since the epoch, as a number or a proto-JSON string, or an ISO string) as local
// "YYYY-MM-DD HH:MM:SS"; '' for none or an unreadable one.
export function isoTime(t) {
  const d = instant(t);
  if (!d) return '';
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

// The same instant in UTC, "2026-12-06T23:13:26.000Z"; '' for none.
export function isoUtc(t) {
  const d = instant(t);
  return d ? d.toISOString() : '';
}

function instant(t) {
  if (t === null || t === undefined || t === '' || t === 0 || t === '0') return null;
  const d = new Date(typeof t === 'string' && /^\d+$/.test(t) ? Number(t) : t);
  return Number.isFinite(d.getTime()) ? d : null;
}

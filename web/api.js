// Every HTTP request of the dashboard goes through request() here, so what each request must carry (a
// credential, a header) is added in this one place.

export class HttpError extends Error {
  constructor(path, status, body) {
    super(`${path}: HTTP ${status}${body?.error ? ` (${body.error})` : ''}`);
    this.status = status;
  }
}

// The one fetch of the dashboard (same origin: the coordinator serves the page and the API).
export async function request(path, init = {}) {
  return fetch(path, { cache: 'no-store', credentials: 'same-origin', ...init });
}

// A GET whose answer's headers matter too (a sweep's jobs: where the next changes start): {body, headers}.
export async function getAnswer(path) {
  const res = await request(path);
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(path, res.status, body);
  return { body, headers: res.headers };
}

export async function getJSON(path) {
  return (await getAnswer(path)).body;
}

// A write (the job view's cancel and retry): same origin, so the browser's Origin header matches the
// coordinator's and the session cookie goes along; the answer's JSON, or an HttpError.
// `body`, when given, goes as JSON (a note and tags: web/annotations.js).
export async function postJSON(path, body) {
  const res = await request(path, body === undefined ? { method: 'POST' }
    : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(path, res.status, answer);
  return answer;
}

// For answers that may not exist yet (a sweep's fits): null on 404.
export async function getOptional(path) {
  try {
    return await getJSON(path);
  } catch (e) {
    if (e instanceof HttpError && e.status === 404) return null;
    console.warn(e);
    return null;
  }
}

// The live event stream (EventSource sends the page's cookies, never custom headers).
export function events(path = '/api/events') {
  return new EventSource(path);
}

// The view's settings in the address: written (only what differs from the defaults), read back, and checked.

// The view's settings in the address (#/sweeps/ID?key=value&...) and back: only keys of `defaults` are read,
// each parsed to the type of its default (boolean, number, string, or a list of strings joined by ",").
export function settingsToQuery(settings, defaults) {
  const params = new URLSearchParams();
  for (const [k, d] of Object.entries(defaults)) {
    const v = settings[k];
    if (JSON.stringify(v) === JSON.stringify(d)) continue;
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return params.toString();
}

// What settingsFromQuery leaves out of an address, in words: a key that is no setting, or a value of the wrong
// kind ("logY=1: expected true or false"). The page says so rather than ignore a hand-edited address silently.
// `choices`: per setting with a fixed set of values, {ok(value), expected}: a value outside it is said too.
export function settingsProblems(query, defaults, choices = {}) {
  const problems = [];
  for (const [k, text] of new URLSearchParams(query)) {
    const shownText = `${k}=${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
    if (!Object.hasOwn(defaults, k)) {
      problems.push(`${k.length > 40 ? `${k.slice(0, 40)}…` : k}: not a setting`);
      continue;
    }
    const d = defaults[k];
    if (typeof d === 'boolean' && text !== 'true' && text !== 'false') problems.push(`${shownText}: expected true or false`);
    else if (typeof d === 'number' && !Number.isFinite(Number(text))) problems.push(`${shownText}: expected a number`);
    else if (choices[k] && !choices[k].ok(text)) problems.push(`${shownText}: expected ${choices[k].expected}`);
  }
  return problems;
}

export function settingsFromQuery(query, defaults) {
  const params = new URLSearchParams(query);
  const out = {};
  for (const [k, d] of Object.entries(defaults)) {
    if (!params.has(k)) continue;
    const text = params.get(k);
    if (typeof d === 'boolean') out[k] = text === 'true';
    else if (typeof d === 'number') {
      const n = Number(text);
      if (Number.isFinite(n)) out[k] = n;
    } else if (Array.isArray(d)) out[k] = text.split(',').filter(Boolean);
    else if (d === null || typeof d === 'string') out[k] = text;
  }
  return out;
}

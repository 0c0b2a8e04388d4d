// Building DOM nodes without HTML strings: text always goes in as text nodes (never parsed as markup), so
// names and errors from the database cannot inject anything into the page.

// h('td', {class: 'num', dataset: {jobId: 1}, style: {width: '3px'}, onclick}, child, ...): children are nodes,
// strings or numbers (as text), arrays of those, or null/false (skipped).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') Object.assign(el.style, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// Text as it may be shown: without control characters (ESC and the rest of C0 and C1, but for tab and newline)
// and without the bidirectional overrides, embeddings and isolates (U+202A..U+202E, U+2066..U+2069) that make
// a name display in another order than it reads. The CLI drops the same (core/utf8_text.h); every text this
// page shows goes through here, by append() or by setting textContent.
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
export function shown(text) {
  return String(text ?? '').replace(HIDDEN, '');
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : shown(c));
  }
}

// A path-like name ("tiny-0.03m/unified/adamw/cosine/s1") as children that may wrap after each "/": a narrow
// column breaks it between its parts, not inside one (style.css still breaks a part too long for the line).
export function pathText(text) {
  return String(text).split('/').flatMap((part, i) => (i ? ['/', document.createElement('wbr'), part] : [part]));
}

// Replaces the children of `el` with `children`.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// Saves `blob` as a file named `name` (a download).
export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

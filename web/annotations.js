// Notes and tags on a sweep or a run (core/annotation.h; docs/dashboard.md): shown under its name, written in
// place, and the search across sweeps in the sidebar. The coordinator checks every change (GET and POST
// /api/sweeps/ID/annotations, GET /api/search) and its refusal is shown as it words it.
import { h, fill } from './dom.js';
import { getJSON, postJSON } from './api.js';

// What the coordinator allows (core/annotation.h): the form says so before a refusal has to.
const NOTE_BYTES = 4000;
const TAG = /^[A-Za-z0-9._\-:+/=]{1,40}$/;

// Tags as typed: words split at spaces and commas, each once.
export function typedTags(text) {
  return [...new Set(String(text).split(/[\s,]+/).filter(Boolean))];
}

// The change from `before` (an annotation, or null) to the note and tags typed: null when nothing changed.
export function annotationChange(before, note, tagsText) {
  const had = before?.tags || [];
  const tags = typedTags(tagsText);
  const change = {};
  if (note !== (before?.note || '')) change.note = note;
  const add = tags.filter((t) => !had.includes(t));
  const remove = had.filter((t) => !tags.includes(t));
  if (add.length) change.add_tags = add;
  if (remove.length) change.remove_tags = remove;
  return Object.keys(change).length ? change : null;
}

// The first thing the form can tell is wrong with what was typed, or ''.
export function annotationProblem(note, tagsText) {
  if (new TextEncoder().encode(note).length > NOTE_BYTES) return `a note is at most ${NOTE_BYTES} bytes`;
  const bad = typedTags(tagsText).find((t) => !TAG.test(t));
  return bad ? `'${bad}' is not a tag: 1 to 40 letters, digits and . _ - : + / =` : '';
}

// The forms open for editing, by what they edit ("sweep 3", "job 12"): a live redraw leaves an open form alone.
const editing = new Set();

// Shows `annotation` (or none) of the sweep `sweepId` (jobId '' for the sweep itself) in `el`: its tags, its note
// and a button to write them; saved through the API, after which `onSaved(annotation)` is called.
export function renderAnnotation(el, { sweepId, jobId = '', annotation, onSaved }) {
  const key = jobId ? `job ${jobId}` : `sweep ${sweepId}`;
  if (el.dataset.editing === key && editing.has(key)) return;
  el.dataset.editing = '';
  editing.delete(key);
  const tags = annotation?.tags || [];
  const note = annotation?.note || '';
  const what = jobId ? 'run' : 'sweep';
  fill(el,
    tags.length ? h('span', { class: 'tags' }, tags.map((t) => h('span', { class: 'badge tag', dataset: { tag: t } }, t))) : null,
    note ? h('p', { class: 'note-text' }, note) : null,
    h('button', { type: 'button', class: 'link annotate', title: `a note and tags on this ${what}, found again by the sweep list's search`,
      onclick: () => openForm(el, key, { sweepId, jobId, annotation, onSaved }) },
    tags.length || note ? 'edit note and tags' : 'add a note or tags'));
}

function openForm(el, key, { sweepId, jobId, annotation, onSaved }) {
  editing.add(key);
  el.dataset.editing = key;
  const text = h('textarea', { class: 'note-input', rows: 3, maxlength: NOTE_BYTES, placeholder: 'a note: what happened, what to try next' });
  text.value = annotation?.note || '';
  const tags = h('input', { type: 'text', class: 'tags-input', placeholder: 'tags, e.g. ablation paper-fig3' });
  tags.value = (annotation?.tags || []).join(' ');
  const status = h('span', { class: 'meta status' });
  const close = (saved) => {
    editing.delete(key);
    el.dataset.editing = '';
    renderAnnotation(el, { sweepId, jobId, annotation: saved, onSaved });
  };
  const save = async () => {
    const problem = annotationProblem(text.value, tags.value);
    if (problem) {
      status.textContent = problem;
      return;
    }
    const change = annotationChange(annotation, text.value, tags.value);
    if (!change) return close(annotation);
    status.textContent = 'saving…';
    try {
      const saved = await postJSON(`/api/sweeps/${encodeURIComponent(sweepId)}/annotations`, { ...(jobId ? { job_id: jobId } : {}), ...change });
      close(saved);
      onSaved?.(saved);
    } catch (e) {
      status.textContent = `not saved: ${e.message}`;
    }
  };
  fill(el, h('div', { class: 'annotation-form' }, text, tags,
    h('div', {}, h('button', { type: 'button', class: 'save', onclick: save }, 'save'), ' ',
      h('button', { type: 'button', class: 'cancel', onclick: () => close(annotation) }, 'cancel'), ' ', status)));
  text.focus();
}

// The sidebar's search: after a pause in typing, the sweeps and runs whose names, notes or tags hold every word
// (tag:NAME for a tag), as links; nothing typed, nothing shown.
export function startSearch(input, out) {
  let timer = null;
  let asked = '';
  const run = async () => {
    const q = input.value.trim();
    asked = q;
    if (!q) {
      out.hidden = true;
      fill(out);
      return;
    }
    try {
      const answer = await getJSON(`/api/search?q=${encodeURIComponent(q)}&limit=50`);
      if (asked !== q) return;  // a later search is on its way
      out.hidden = false;
      fill(out, answer.hits.length ? answer.hits.map(hitItem) : h('li', { class: 'empty' }, 'nothing found'),
        answer.truncated ? h('li', { class: 'meta' }, 'the first 50; more matched') : null);
    } catch (e) {
      if (asked !== q) return;
      out.hidden = false;
      fill(out, h('li', { class: 'error' }, e.message));
    }
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      clearTimeout(timer);
      run();
    }
  });
}

function hitItem(hit) {
  const a = hit.annotation;
  const href = a.job_id ? `#/jobs/${encodeURIComponent(a.job_id)}` : `#/sweeps/${encodeURIComponent(a.sweep_id)}`;
  return h('li', { dataset: { sweepId: a.sweep_id, jobId: a.job_id } }, h('a', { href },
    h('div', { class: 'name' }, a.job_id ? hit.job_name : hit.sweep_name),
    h('div', { class: 'sub' }, a.job_id ? `run of ${hit.sweep_name} (#${a.sweep_id})` : `sweep #${a.sweep_id}`),
    a.tags.length ? h('div', { class: 'tags' }, a.tags.map((t) => h('span', { class: 'badge tag' }, t))) : null,
    a.note ? h('div', { class: 'sub note-line' }, a.note.split('\n')[0]) : null));
}

// What the runs are coloured and grouped by on the metric charts and in the jobs table ("colour by": grouping.js
// keys, with overlaid sweeps' groups of their own), and a curve's name on a chart.
import { groupLabel, groupValue, orderedBy, orderedGroups } from './grouping.js';
import { overlayGroup, overlayGroups, overlayLabel } from './overlay.js';
import { overlays, paramsByPreset, state } from './page.js';
import { farthestColours, groupColours } from './colours.js';

// The overlaid sweep a job belongs to (undefined for the open sweep's own).
export let overlayOfJob = new Map();

// Groups, colours and order of the jobs under a key ("variant" or "preset"): the open sweep's, then each
// overlaid sweep's as groups of their own (overlay.js). groupOf(job): its group's key; labels: key -> legend text.
export function groupsBy(by) {
  const own = orderedGroups(state.jobs, by, paramsByPreset());
  overlayOfJob = new Map();
  for (const o of overlays()) for (const j of o.jobs) overlayOfJob.set(j.id, o);
  const { groups, labels } = overlayGroups(own, overlays().map((o) => ({
    id: o.sweep.id, name: o.sweep.name, groups: orderedGroups(o.jobs, by, paramsByPreset(o.runs)),
  })));
  for (const group of own) labels.set(group, groupLabel(group, by));
  // The open sweep's groups keep the colours they have without an overlay; the overlaid ones take the farthest.
  const ownColours = groupColours(own, orderedBy(state.jobs, by));
  const colours = new Map([...ownColours, ...farthestColours(groups.slice(own.length), ownColours.values())]);
  const groupOf = (job) => {
    const o = overlayOfJob.get(job.id);
    return o ? overlayGroup(o.sweep.id, groupValue(job, by)) : groupValue(job, by);
  };
  return { by, groups, labels, colours, groupOf, colourOf: (job) => colours.get(groupOf(job)) };
}

// A curve's or a run's name as the charts give it: an overlaid sweep's runs carry their sweep's name first.
export function chartName(job, text) {
  const o = overlayOfJob.get(job.id);
  return o ? overlayLabel(o.sweep.name, text) : text;
}

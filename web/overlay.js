// Runs of other sweeps drawn over the open sweep's in the metric charts: the `with` setting holds their ids
// (`#/sweeps/3?with=5,7`). An overlaid sweep's groups (its variants, or model sizes) are groups of their own,
// keyed by the sweep's id, so that they take colours no group of the open sweep has and hide or show on their
// own; its curves and legend keys carry its name, so that two sweeps' "baseline" cannot be mistaken for each
// other. Pure helpers (no DOM), unit-tested in test/overlay.test.js.

// An overlaid sweep's group, as the legend and the `hidden` setting key it: the sweep's id (no comma, unlike a
// name, so the list in the address stays a list) and the group.
export const overlayGroup = (sweepId, group) => `${sweepId}/${group}`;

// What a reader sees for an overlaid sweep's group or curve: the sweep's name first.
export const overlayLabel = (sweepName, text) => `${sweepName} · ${text}`;

// The ids the `with` setting may hold: each once, never the open sweep's own.
export function overlayIds(chosen, openId) {
  return [...new Set(chosen.map(String))].filter((id) => id !== String(openId));
}

// The sweeps that can be added to the overlay: every listed sweep but the open one and those overlaid already,
// newest first (as the sweep list shows them).
export function overlayChoices(sweeps, openId, chosen) {
  const taken = new Set([String(openId), ...chosen.map(String)]);
  return sweeps.filter((s) => !taken.has(String(s.id))).reverse();
}

// The chart groups of the open sweep and its overlays: the open sweep's groups as they are, then each overlaid
// sweep's (`overlays`: [{id, name, groups}] in the order chosen), keyed by overlayGroup. Returns {groups: keys in
// order, labels: key -> text}.
export function overlayGroups(openGroups, overlays) {
  const groups = [...openGroups];
  const labels = new Map(openGroups.map((g) => [g, g]));
  for (const o of overlays) {
    for (const g of o.groups) {
      const key = overlayGroup(o.id, g);
      groups.push(key);
      labels.set(key, overlayLabel(o.name, g));
    }
  }
  return { groups, labels };
}


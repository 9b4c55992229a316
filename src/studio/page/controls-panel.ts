/**
 * The controls as form inputs: filled from the scenario's values (what the worker read from the
 * YAML), and turned back into the changes the user made. Only changed values become controls, so an
 * untouched form runs the YAML as written.
 */

import { escapeHtml } from "../../viz/render/escape-html.js";
import type { ControlValues, Routing, Storage, StudioControls } from "../controls.js";

/** A label and its input; the label is `for` the input's id. */
const field = (label: string, input: string) => {
  const id = /id="([^"]+)"/.exec(input)?.[1];
  return `<label${id === undefined ? "" : ` for="${id}"`}>${label}</label>${input}`;
};

/** Builds the form for the scenario's values, with the user's changes shown over them. */
export function renderControls(form: HTMLFormElement, values: ControlValues, changed: StudioControls): void {
  const design = changed.design ?? values.design;
  const now = {
    ...values,
    ...(design === undefined ? {} : values.perDesign[design]),
    ...changed,
    routing: { ...values.routing, ...changed.routing },
  };
  const option = (value: string, selected: string | undefined) =>
    `<option value="${escapeHtml(value)}"${value === selected ? " selected" : ""}>${escapeHtml(value)}</option>`;
  form.innerHTML = [
    "<h2>Cluster</h2>",
    field(
      "nodes",
      `<input id="c-nodes" data-control="nodes" type="number" min="1" value="${now.nodes ?? ""}">`,
    ),
    field(
      "storage",
      `<select id="c-storage" data-control="storage">${["ssd", "hdd"].map((each) => option(each, now.storage)).join("")}</select>`,
    ),
    "<h2>Workload</h2>",
    field(
      "writes/s (all groups)",
      `<input id="c-writes" data-control="writesPerS" type="number" min="0" value="${Math.round(now.writesPerS ?? 0)}">`,
    ),
    field(
      "row size (bytes)",
      `<input id="c-row" data-control="rowBytes" type="number" min="1" value="${now.rowBytes ?? ""}">`,
    ),
    field(
      "retention",
      `<input id="c-retention" data-control="retention" value="${escapeHtml(now.retention ?? "")}" placeholder="30d">`,
    ),
    "<h2>Design</h2>",
    field(
      "design",
      `<select id="c-design" data-control="design">${values.designs.map((each) => option(each, now.design)).join("")}</select>`,
    ),
    field(
      "salt buckets (0: none)",
      `<input id="c-buckets" data-control="saltBuckets" type="number" min="0" value="${now.saltBuckets ?? 0}">`,
    ),
    field(
      "salted fields",
      `<input id="c-fields" data-control="saltFields" value="${escapeHtml((now.saltFields ?? []).join(", "))}" placeholder="deviceID, ts">`,
    ),
    field(
      "batching interval",
      `<input id="c-batch" data-control="batch" value="${escapeHtml(now.batch ?? "")}" placeholder="2s">`,
    ),
    ...(values.profiles.length === 0 && (values.clusters ?? 1) <= 1
      ? []
      : [
          "<h2>Clusters and routing</h2>",
          field(
            "clusters kept",
            `<input id="c-clusters" data-control="clusters" type="number" min="1" max="${values.clusters}" value="${now.clusters ?? 1}">`,
          ),
          ...values.profiles.map((profile, index) =>
            field(
              escapeHtml(profile),
              `<select id="c-routing-${index}" data-routing="${escapeHtml(profile)}">${[
                "single-cluster",
                "multi-cluster",
              ]
                .map((each) => option(each, now.routing[profile]))
                .join("")}</select>`,
            ),
          ),
        ]),
  ].join("");
}

/** The values the user changed from the scenario's, read from the form. */
export function changedControls(form: HTMLFormElement, values: ControlValues): StudioControls {
  const changes: StudioControls = {};
  const read = (name: string) =>
    form.querySelector<HTMLInputElement>(`[data-control="${name}"]`)?.value.trim();
  const number = (name: string) => {
    const text = read(name);
    return text === undefined || text === "" ? undefined : Number(text);
  };
  const nodes = number("nodes");
  if (nodes !== undefined && nodes !== values.nodes) changes.nodes = nodes;
  const storage = read("storage") as Storage | undefined;
  if (storage && storage !== values.storage) changes.storage = storage;
  const writes = number("writesPerS");
  if (writes !== undefined && writes !== Math.round(values.writesPerS ?? 0)) changes.writesPerS = writes;
  const rowBytes = number("rowBytes");
  if (rowBytes !== undefined && rowBytes !== values.rowBytes) changes.rowBytes = rowBytes;
  const retention = read("retention");
  if (retention && retention !== values.retention) changes.retention = retention;
  const design = read("design");
  // The design's salt and batching as the YAML states them, to tell a change from a look.
  const designValues = design === undefined ? undefined : values.perDesign[design];
  const buckets = number("saltBuckets");
  const fields = read("saltFields")
    ?.split(",")
    .map((each) => each.trim())
    .filter((each) => each !== "");
  const batch = read("batch");
  const saltChanged = buckets !== designValues?.saltBuckets;
  const fieldsChanged = (fields ?? []).join(",") !== (designValues?.saltFields ?? []).join(",");
  const batchChanged = batch !== designValues?.batch;
  if (design && (saltChanged || fieldsChanged || batchChanged)) {
    changes.design = design;
    if (saltChanged && buckets !== undefined) changes.saltBuckets = buckets;
    if (fieldsChanged && fields) changes.saltFields = fields;
    if (batchChanged && batch !== undefined) changes.batch = batch;
  }
  const clusters = number("clusters");
  if (clusters !== undefined && clusters !== values.clusters) changes.clusters = clusters;
  const routing: Record<string, Routing> = {};
  for (const select of form.querySelectorAll<HTMLSelectElement>("[data-routing]")) {
    const profile = select.dataset.routing;
    if (profile === undefined) continue;
    if (select.value !== values.routing?.[profile]) routing[profile] = select.value as Routing;
  }
  if (Object.keys(routing).length > 0) changes.routing = routing;
  return changes;
}

/**
 * The studio's controls: the settings people change most, applied on top of the scenario's YAML
 * (which keeps its comments and anchors) to give the scenario that runs. Pure: the page reads the
 * current values from the document to fill the controls; the worker applies them before judging;
 * the export writes the document they give, so `keyspread lab` on the exported YAML is this run.
 */

export type Storage = "ssd" | "hdd";
export type Routing = "single-cluster" | "multi-cluster";

export interface StudioControls {
  /** cluster.nodes: the nodes planned for. */
  nodes?: number;
  /** cluster.storage. */
  storage?: Storage;
  /** Total writes per second: every group's writesPerS scaled by the same factor. */
  writesPerS?: number;
  /** workload.rowBytes. */
  rowBytes?: number;
  /** workload.retention, e.g. 30d. */
  retention?: string;
  /** The design the salt and batching controls change. */
  design?: string;
  /** That design's schema.salt.buckets (0 removes the salt). */
  saltBuckets?: number;
  /** That design's schema.salt.fields. */
  saltFields?: string[];
  /** That design's batch interval, e.g. 2s ("" removes the batching). */
  batch?: string;
  /** How many of replication.clusters to keep (1: a single cluster, replication removed). */
  clusters?: number;
  /** replication.appProfiles[].routing, by profile name. */
  routing?: Record<string, Routing>;
}

type Doc = Record<string, unknown>;

const isObject = (value: unknown): value is Doc =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const child = (parent: Doc, key: string): Doc => {
  const value = parent[key];
  if (isObject(value)) return value;
  const created: Doc = {};
  parent[key] = created;
  return created;
};

const groupsOf = (doc: Doc): Doc[] => {
  const workload = doc.workload;
  const groups = isObject(workload) ? workload.groups : undefined;
  return Array.isArray(groups) ? groups.filter(isObject) : [];
};

const designsOf = (doc: Doc): Doc[] => (Array.isArray(doc.designs) ? doc.designs.filter(isObject) : []);

/** A design's salt and batching as the document states them. */
export interface DesignControls {
  saltBuckets: number;
  saltFields: string[];
  batch: string;
}

export interface ControlValues extends StudioControls {
  designs: string[];
  perDesign: Record<string, DesignControls>;
  profiles: string[];
}

function designControls(design: Doc): DesignControls {
  const schema = isObject(design.schema) ? design.schema : {};
  const salt = isObject(schema.salt) ? schema.salt : {};
  return {
    saltBuckets: typeof salt.buckets === "number" ? salt.buckets : 0,
    saltFields: Array.isArray(salt.fields) ? salt.fields.map(String) : [],
    batch: typeof design.batch === "string" ? design.batch : "",
  };
}

/** The controls' values as the document states them (what the controls show before any change). */
export function controlsOf(document: unknown): ControlValues {
  const doc = isObject(document) ? document : {};
  const cluster = isObject(doc.cluster) ? doc.cluster : {};
  const workload = isObject(doc.workload) ? doc.workload : {};
  const replication = isObject(doc.replication) ? doc.replication : undefined;
  const clusters = Array.isArray(replication?.clusters) ? replication.clusters.length : 1;
  const profiles = Array.isArray(replication?.appProfiles) ? replication.appProfiles.filter(isObject) : [];
  const writes = groupsOf(doc).reduce(
    (sum, group) => sum + (typeof group.writesPerS === "number" ? group.writesPerS : 0),
    0,
  );
  const designs = designsOf(doc);
  const perDesign = Object.fromEntries(
    designs.map((design) => [String(design.name), designControls(design)]),
  );
  const first = designs[0] === undefined ? undefined : String(designs[0].name);
  return {
    ...(typeof cluster.nodes === "number" ? { nodes: cluster.nodes } : {}),
    ...(cluster.storage === "hdd" || cluster.storage === "ssd" ? { storage: cluster.storage } : {}),
    writesPerS: writes,
    ...(typeof workload.rowBytes === "number" ? { rowBytes: workload.rowBytes } : {}),
    ...(typeof workload.retention === "string" ? { retention: workload.retention } : {}),
    ...(first === undefined ? {} : { design: first, ...perDesign[first] }),
    clusters,
    routing: Object.fromEntries(
      profiles.map((profile) => [
        String(profile.name),
        profile.routing === "multi-cluster" ? "multi-cluster" : "single-cluster",
      ]),
    ),
    designs: designs.map((design) => String(design.name)),
    perDesign,
    profiles: profiles.map((profile) => String(profile.name)),
  };
}

/** The document with the controls applied (a copy; the input is not changed). */
export function applyControls(document: unknown, controls: StudioControls): unknown {
  if (!isObject(document)) return document;
  const doc = structuredClone(document);
  if (controls.nodes !== undefined) child(doc, "cluster").nodes = controls.nodes;
  if (controls.storage !== undefined) child(doc, "cluster").storage = controls.storage;
  if (controls.rowBytes !== undefined) child(doc, "workload").rowBytes = controls.rowBytes;
  if (controls.retention !== undefined) child(doc, "workload").retention = controls.retention;
  if (controls.writesPerS !== undefined) scaleWrites(doc, controls.writesPerS);
  const design = designsOf(doc).find((each) => each.name === controls.design);
  if (design) applyToDesign(design, controls);
  if (controls.clusters !== undefined) keepClusters(doc, controls.clusters);
  if (controls.routing && isObject(doc.replication) && Array.isArray(doc.replication.appProfiles)) {
    for (const profile of doc.replication.appProfiles.filter(isObject)) {
      const routing = controls.routing[String(profile.name)];
      if (routing === undefined || routing === profile.routing) continue;
      profile.routing = routing;
      if (routing === "multi-cluster") delete profile.cluster;
      else profile.cluster ??= firstClusterName(doc);
    }
  }
  return doc;
}

function scaleWrites(doc: Doc, total: number): void {
  const groups = groupsOf(doc);
  const today = groups.reduce(
    (sum, group) => sum + (typeof group.writesPerS === "number" ? group.writesPerS : 0),
    0,
  );
  if (today === total || today === 0) return;
  for (const group of groups)
    if (typeof group.writesPerS === "number") group.writesPerS = (group.writesPerS * total) / today;
}

function applyToDesign(design: Doc, controls: StudioControls): void {
  if (controls.batch !== undefined) {
    if (controls.batch === "") delete design.batch;
    else design.batch = controls.batch;
  }
  if (controls.saltBuckets === undefined && controls.saltFields === undefined) return;
  const schema = child(design, "schema");
  if (controls.saltBuckets === 0) {
    delete schema.salt;
    return;
  }
  const salt = child(schema, "salt");
  if (controls.saltBuckets !== undefined) salt.buckets = controls.saltBuckets;
  if (controls.saltFields !== undefined) {
    if (controls.saltFields.length === 0) delete salt.fields;
    else salt.fields = controls.saltFields;
  }
}

function firstClusterName(doc: Doc): string | undefined {
  const replication = isObject(doc.replication) ? doc.replication : undefined;
  const first = Array.isArray(replication?.clusters) ? replication.clusters.find(isObject) : undefined;
  return typeof first?.name === "string" ? first.name : undefined;
}

/** Keeps the first `count` clusters; 1 removes replication (one cluster, no app profiles). */
function keepClusters(doc: Doc, count: number): void {
  const replication = doc.replication;
  if (!isObject(replication) || !Array.isArray(replication.clusters)) return;
  if (count >= replication.clusters.length) return;
  if (count <= 1) {
    delete doc.replication;
    return;
  }
  const clusters = replication.clusters.slice(0, count);
  replication.clusters = clusters;
  const kept = new Set(clusters.filter(isObject).map((cluster) => cluster.name));
  const first = firstClusterName(doc);
  if (Array.isArray(replication.appProfiles))
    for (const profile of replication.appProfiles.filter(isObject))
      if (profile.cluster !== undefined && !kept.has(profile.cluster)) profile.cluster = first;
  if (Array.isArray(replication.failures))
    replication.failures = replication.failures.filter(
      (failure) => isObject(failure) && kept.has(failure.cluster),
    );
}

/**
 * The scenario file format (YAML or JSON): a cluster, a workload and the candidate key designs to
 * replay it under. Parsing is pure (text in, validated object out); reading the file is the CLI's job.
 */

import { CORE_SCHEMA, mergeTag, load as parseYaml } from "js-yaml";
import * as v from "valibot";
import type { SchemaSpec } from "../../keys/types.js";
import { allowedKeys, isUnknownKey, unknownKeyMessage } from "../../keys/unknown-key.js";
import {
  AutoscalingSchema,
  checkClusterOptions,
  NodeScalingFactorSchema,
  TieredStorageSchema,
} from "./cluster-options.js";
import { DATA_BOOST_STALENESS_S } from "./data-boost-limits.js";
import { formatDuration } from "./duration.js";
import { durationField } from "./duration-field.js";
import { checkReplication, ReplicationSchema } from "./replication-topology.js";
import {
  ScenarioError,
  type ScenarioProblem,
  scenarioProblem,
  UnknownDesignError,
} from "./scenario-error.js";

export { ScenarioError, type ScenarioProblem, UnknownDesignError } from "./scenario-error.js";

/** How far back a point get reads when its window is not given: a day. */
export const DEFAULT_GET_WINDOW_S = 86400;

const positive = (field: string) =>
  v.pipe(v.number(`${field} must be a number`), v.gtValue(0, `${field} must be greater than 0`));
const positiveInt = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be a whole number`),
    v.minValue(1, `${field} must be at least 1`),
  );
const duration = durationField;
const fraction = (field: string) =>
  v.pipe(v.number(), v.minValue(0, `${field} must be ≥ 0`), v.maxValue(1, `${field} must be ≤ 1`));

/** Most values a `{ from, to }` range may expand to: a picked field is a shard or a metric name, not an id. */
const MAX_PICKED_VALUES = 65_536;

/** `{ from: 0, to: 31 }`: the whole numbers from `from` to `to`, both included — short for a listed `oneOf`. */
const IntegerRangeSchema = v.pipe(
  v.strictObject({
    from: v.pipe(v.number("oneOf.from must be a number"), v.integer("oneOf.from must be a whole number")),
    to: v.pipe(v.number("oneOf.to must be a number"), v.integer("oneOf.to must be a whole number")),
  }),
  v.forward(
    v.check(({ from, to }) => to >= from, "oneOf.to must be ≥ oneOf.from"),
    ["to"],
  ),
  v.check(
    ({ from, to }) => to - from < MAX_PICKED_VALUES,
    `oneOf { from, to } may span at most ${MAX_PICKED_VALUES.toLocaleString("en-US")} values`,
  ),
  v.transform(({ from, to }) => Array.from({ length: to - from + 1 }, (_, index) => from + index)),
);

/**
 * How a group's writes for one key field get their value. A string is a template over the entity
 * index `i`: `{i:06}` pads, `{i/50}` and `{i%50}` divide, `{hex8:i}` scrambles the index into 8 hex
 * digits (ids that look random); `oneOf` picks a value per write (not tied to the entity), from a
 * list or a `{ from, to }` range of whole numbers;
 * `sequence` is a counter shared by the whole group that grows with every write.
 */
const FieldGeneratorSchema = v.union(
  [
    v.string(),
    v.strictObject({
      oneOf: v.pipe(
        v.union([
          v.pipe(
            v.array(v.union([v.string(), v.number()])),
            v.minLength(1, "oneOf needs at least one value"),
          ),
          IntegerRangeSchema,
        ]),
        // One type downstream: a range is only a short way to write the list.
        v.transform((values): (string | number)[] => values),
      ),
    }),
    v.strictObject({ sequence: v.strictObject({ start: v.optional(v.number(), 0) }) }),
  ],
  "a field generator must be a template string, { oneOf: [...] }, { oneOf: { from, to } } or { sequence: { start } }",
);

const ArrivalSchema = v.variant(
  "kind",
  [
    v.strictObject({ kind: v.literal("steady") }),
    /** Every entity reports once per `every`, all inside the first `window` of the period. */
    v.strictObject({
      kind: v.literal("burst"),
      every: duration("arrival.every"),
      window: duration("arrival.window"),
    }),
    /** Rate × (1 + amplitude·cos(2π(t − peak)/24 h)): same daily mean, busiest at `peakHour` UTC. */
    v.strictObject({
      kind: v.literal("diurnal"),
      amplitude: fraction("arrival.amplitude"),
      peakHour: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(24)), 14),
    }),
  ],
  'arrival.kind must be "steady", "burst" or "diurnal"',
);

const GroupSchema = v.strictObject({
  name: v.string(),
  entities: positiveInt("entities"),
  fields: v.record(v.string(), FieldGeneratorSchema),
  writesPerS: positive("writesPerS"),
  rowBytes: v.optional(positiveInt("rowBytes")),
  arrival: v.optional(ArrivalSchema, { kind: "steady" }),
});

/** Data Boost is for scans: Google says it is not for point reads, batched or not (Bigtable Data Boost overview). */
const pointReadDataBoost = v.optional(
  v.literal(
    false,
    'reads[].dataBoost is only for kind "scan": Data Boost serves batch scans, not point reads ("latest" or "get")',
  ),
);

const ReadSchema = v.variant(
  "kind",
  [
    /** The newest `limit` points of one entity (with batching, the rows that hold them). */
    v.strictObject({
      kind: v.literal("latest"),
      name: v.string(),
      group: v.string(),
      perS: positive("perS"),
      limit: positiveInt("limit"),
      dataBoost: pointReadDataBoost,
    }),
    /** Every row of one entity in the last `window` (e.g. 30d dashboards). */
    v.strictObject({
      kind: v.literal("scan"),
      name: v.string(),
      group: v.string(),
      perS: positive("perS"),
      window: duration("window"),
      /** Served by Data Boost's serverless compute, not the cluster's nodes (data-boost.ts). */
      dataBoost: v.optional(v.boolean("reads[].dataBoost must be true or false")),
      /** How old the newest data the scan sees may be; unstated, an analytical scan tolerates Data Boost's ~35 minutes. */
      staleness: v.optional(duration("reads[].staleness")),
    }),
    /** One row of one entity, at a uniformly random time in the last `window` (default 1d). */
    v.strictObject({
      kind: v.literal("get"),
      name: v.string(),
      group: v.string(),
      perS: positive("perS"),
      window: v.optional(duration("window"), DEFAULT_GET_WINDOW_S),
      dataBoost: pointReadDataBoost,
    }),
  ],
  'reads[].kind must be "latest", "scan" or "get"',
);

const StorageSchema = v.picklist(["ssd", "hdd"], 'storage must be "ssd" or "hdd"');

const optionalPositive = (field: string) => v.optional(positive(field));

/**
 * Bigtable's us-central1 list prices in USD, used where a scenario sets none: Google, "Bigtable
 * pricing" (https://cloud.google.com/bigtable/pricing). Their source and date read are in the price
 * registry (advise/size/prices.ts); they live here because the simulator prices a node-hour too.
 */
export const BIGTABLE_LIST_PRICES = { nodeHour: 0.65, ssdGiBMonth: 0.17, hddGiBMonth: 0.026 } as const;

/**
 * Prices of the analytical side (issue 40), in USD; unset, the registry's defaults apply, and a
 * price Google publishes no figure for (Data Boost's SPU-hour, a Dataflow job) is reported missing.
 */
const PricesSchema = v.strictObject({
  dataBoostSpuHour: optionalPositive("prices.dataBoostSpuHour"),
  bigQueryStorageGiBMonth: optionalPositive("prices.bigQueryStorageGiBMonth"),
  bigQueryScanTiB: optionalPositive("prices.bigQueryScanTiB"),
  dataflowJobMonth: optionalPositive("prices.dataflowJobMonth"),
});

const ClusterSchema = v.strictObject({
  nodes: positiveInt("cluster.nodes"),
  storage: v.optional(StorageSchema, "ssd"),
  /**
   * List prices in USD (inputs: they differ by region and change), per binary GB (GiB) stored. Unset,
   * the price registry's defaults apply (advise/size/prices.ts, BIGTABLE_LIST_PRICES below).
   */
  pricePerNodeHour: optionalPositive("cluster.pricePerNodeHour"),
  pricePerSsdGbMonth: optionalPositive("cluster.pricePerSsdGbMonth"),
  pricePerHddGbMonth: optionalPositive("cluster.pricePerHddGbMonth"),
  /**
   * The model's constants (model-constants.ts) may be set here and under `tablets` and `latency`;
   * a set constant is the user's input and stays fixed in a sensitivity run.
   */
  capacity: v.optional(
    v.strictObject({
      writesPerS: optionalPositive("cluster.capacity.writesPerS"),
      readsPerS: optionalPositive("cluster.capacity.readsPerS"),
      scanBytesPerS: optionalPositive("cluster.capacity.scanBytesPerS"),
    }),
    {},
  ),
  fixedCostShare: v.optional(fraction("cluster.fixedCostShare")),
  scanFixedCostShare: v.optional(fraction("cluster.scanFixedCostShare")),
  storageLimitBytes: optionalPositive("cluster.storageLimitBytes"),
  storageTarget: v.optional(fraction("cluster.storageTarget")),
  /** The infrequent-access tier's price (tiered storage), USD per GiB-month; unset, the registry's assumption. */
  pricePerInfrequentGbMonth: optionalPositive("cluster.pricePerInfrequentGbMonth"),
  /** 2: two standard nodes act as one compute node (even node counts, SSD only, at creation; cluster-options.ts). */
  nodeScalingFactor: v.optional(NodeScalingFactorSchema, 1),
  /**
   * The autoscaler's targets and node range (cluster-options.ts): the CPU it holds, the storage per
   * node it keeps (which then sizes storage), its minimum and maximum nodes.
   */
  autoscaling: v.optional(AutoscalingSchema),
  /** Cells older than `coldAfter` move to the infrequent-access tier (Preview; cluster-options.ts). */
  tieredStorage: v.optional(TieredStorageSchema),
});

/** Where a new table's initial tablets start, besides the start of the key space. */
export const SALT_BUCKET_SPLITS = "salt-buckets";

/** Split points a new table may be created with in a scenario (65,536 salt buckets is the most a key takes). */
const MAX_SPLITS = 65535;

/**
 * How a new table was created: `N` split points (N + 1 tablets, cut where its load will be equal;
 * 0 = one tablet), or pre-split at its salt's bucket boundaries, as `keyspread table create` does
 * (an unsalted key then starts as one tablet). Its initial tablets are dealt over the nodes.
 */
const splits = (field: string) => {
  const allowed = `${field} must be a whole number of split points from 0 to ${MAX_SPLITS}, or "${SALT_BUCKET_SPLITS}"`;
  return v.union(
    [
      v.literal(SALT_BUCKET_SPLITS),
      v.pipe(v.number(), v.integer(allowed), v.minValue(0, allowed), v.maxValue(MAX_SPLITS, allowed)),
    ],
    allowed,
  );
};

/** Tablet splitting, merging and balancing; defaults, ranges and sources in model-constants.ts. */
const TabletsSchema = v.pipe(
  v.looseObject({}),
  // Forwarded to the key, so the problem's field names the setting that is gone.
  v.forward(
    v.check(
      (tablets) => !("movesPerPeriod" in tablets),
      "tablets.movesPerPeriod is gone: the balancer now moves load, not a count of tablets; set tablets.rebalanceTime (e.g. 10m) instead",
    ),
    ["movesPerPeriod"],
  ),
  v.forward(
    v.check(
      (tablets) => !("initial" in tablets),
      'tablets.initial is gone: a new table is now pre-split as it was created and its tablets are dealt over the nodes; set tablets.splits (split points: initial − 1, 0 for one tablet) or "salt-buckets"',
    ),
    ["initial"],
  ),
  v.strictObject({
    splits: v.optional(splits("tablets.splits"), SALT_BUCKET_SPLITS),
    splitOpsPerS: optionalPositive("tablets.splitOpsPerS"),
    splitCpuShare: v.optional(fraction("tablets.splitCpuShare")),
    splitSustain: v.optional(duration("tablets.splitSustain")),
    splitBytes: optionalPositive("tablets.splitBytes"),
    balancePeriod: v.optional(duration("tablets.balancePeriod")),
    /** Time for the balancer to close 90 % of a load imbalance. */
    rebalanceTime: v.optional(duration("tablets.rebalanceTime")),
    /** The balancer acts when the hottest node is this far above the mean (0.1 = 10 %)… */
    imbalance: v.optional(fraction("tablets.imbalance")),
    /** …and at least this much CPU (0.05 = 5 %) above the coldest. */
    minCpuGap: v.optional(fraction("tablets.minCpuGap")),
    mergeLoadShare: v.optional(fraction("tablets.mergeLoadShare")),
    mergeAge: v.optional(duration("tablets.mergeAge")),
  }),
);

const LatencySchema = v.strictObject({
  /** Network + storage time every request pays, ms. */
  baseMs: optionalPositive("latency.baseMs"),
  /** Mean service time of one operation on an idle node, ms (M/M/1: mean sojourn = service/(1−ρ)). */
  serviceMs: optionalPositive("latency.serviceMs"),
  /** Longest a saturated node queues a request before shedding, ms. */
  queueBoundMs: optionalPositive("latency.queueBoundMs"),
  /** Mean disk seek an HDD range read waits before its first row, ms. */
  hddSeekMs: optionalPositive("latency.hddSeekMs"),
});

const SchemaSpecSchema = v.custom<SchemaSpec>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "schema must be a key schema spec (version, name, layout, segments, optional salt)",
);

const DesignSchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._+-]+$/, "design names use letters, digits, . _ - +")),
  description: v.optional(v.string()),
  schema: SchemaSpecSchema,
  nodes: v.optional(positiveInt("nodes")),
  storage: v.optional(StorageSchema),
  /** This design's cluster created with another node scaling factor than the scenario's. */
  nodeScalingFactor: v.optional(NodeScalingFactorSchema),
  /** Batch each entity's points of this long into one row (fewer, larger writes). */
  batch: v.optional(duration("batch")),
  /**
   * `new` (default): a new table, as a re-key writes — one tablet on one node, or a salted table
   * pre-split at its buckets. `existing`: a table already split by its load and balanced over the
   * nodes, as a long-running table is (its steady state from the first step).
   */
  table: v.optional(v.picklist(["new", "existing"], 'table must be "new" or "existing"')),
  /** How this design's new table was created, instead of the scenario's `tablets.splits`. */
  splits: v.optional(splits("splits")),
});

/** What the running cluster shows under the current key (the first design), for the lab to fit the model to. */
const ObservedSchema = v.pipe(
  v.strictObject({
    nodes: positiveInt("observed.nodes"),
    /** Mean CPU over the nodes, and the hottest node's (0.95 = 95 %); at least one of them. */
    averageCpu: v.optional(positive("observed.averageCpu")),
    hottestCpu: v.optional(positive("observed.hottestCpu")),
    /** Rates the cluster served when it showed that CPU; default the workload's. */
    writesPerS: optionalPositive("observed.writesPerS"),
    // A cluster may serve writes only: 0 reads/s is an observation, not a missing one.
    readsPerS: v.optional(
      v.pipe(
        v.number("observed.readsPerS must be a number"),
        v.minValue(0, "observed.readsPerS must be ≥ 0"),
      ),
    ),
    /** Bytes stored per node, as the cluster's monitoring shows them. */
    storageBytesPerNode: optionalPositive("observed.storageBytesPerNode"),
  }),
  v.check(
    (observed) => observed.averageCpu !== undefined || observed.hottestCpu !== undefined,
    "observed needs averageCpu or hottestCpu (or both)",
  ),
);

export const ScenarioSchema = v.strictObject({
  name: v.string(),
  description: v.optional(v.string()),
  /** Where the numbers come from (e.g. a case study in docs/case-studies.md). */
  source: v.optional(v.string()),
  start: v.optional(
    v.pipe(v.string(), v.isoTimestamp("start must be an ISO timestamp")),
    "2026-01-01T00:00:00Z",
  ),
  duration: v.optional(duration("duration"), 3600),
  step: v.optional(duration("step"), 1),
  /** Interval of the reported time series and heatmap columns. */
  sample: v.optional(duration("sample"), 60),
  cluster: ClusterSchema,
  prices: v.optional(PricesSchema),
  /**
   * The growth to plan for: a multiple of today's workload (writes, reads and so the bytes kept)
   * the sized cluster must still carry within the targets. Default 1: Google's CPU and storage
   * targets already are the headroom for peaks; growth is the user's forecast.
   */
  growth: v.optional(
    v.pipe(v.number("growth must be a number"), v.minValue(1, "growth must be ≥ 1 (1 = today's workload)")),
  ),
  observed: v.optional(ObservedSchema),
  /** More than one cluster: their app profiles, which profile each path uses, and failures (replication/topology.ts). */
  replication: v.optional(ReplicationSchema),
  tablets: v.optional(TabletsSchema, {}),
  latency: v.optional(LatencySchema, {}),
  /** The application's own CPU per ReadRows call (ms) and per row read (µs), where it measured them (sim/client). */
  client: v.optional(
    v.strictObject({
      cpuMsPerCall: optionalPositive("client.cpuMsPerCall"),
      cpuUsPerRow: optionalPositive("client.cpuUsPerRow"),
    }),
  ),
  workload: v.strictObject({
    rowBytes: v.optional(positiveInt("workload.rowBytes"), 1024),
    /** How long rows are kept (the column family's GC max-age): what the cluster stores at steady state. */
    retention: v.optional(duration("workload.retention")),
    /** Logical bytes per stored byte; default and range in model-constants.ts. */
    compression: v.optional(v.pipe(v.number(), v.minValue(1, "workload.compression must be ≥ 1"))),
    groups: v.pipe(v.array(GroupSchema), v.minLength(1, "workload.groups needs at least one group")),
    reads: v.optional(v.array(ReadSchema), []),
  }),
  designs: v.pipe(v.array(DesignSchema), v.minLength(1, "designs needs at least one design")),
});

export type Scenario = v.InferOutput<typeof ScenarioSchema>;
export type ScenarioDesign = Scenario["designs"][number];
export type WorkloadGroup = Scenario["workload"]["groups"][number];
export type ReadPattern = Scenario["workload"]["reads"][number];
export type FieldGenerator = WorkloadGroup["fields"][string];
export type Arrival = WorkloadGroup["arrival"];
export type TabletOverrides = Scenario["tablets"];
export type LatencyOverrides = Scenario["latency"];
export type Storage = Scenario["cluster"]["storage"];
export type TableSplits = Scenario["tablets"]["splits"];
export type Observed = NonNullable<Scenario["observed"]>;

type ScenarioIssue = v.InferIssue<typeof ScenarioSchema>;

/**
 * A union's own message lists the shapes allowed; when the value had one of those shapes and failed
 * a check of it (a range whose end comes before its start), that check says more. The issues
 * inside a union carry paths from it, so each gets the path through every union above it.
 */
function specificIssues(issue: ScenarioIssue): ScenarioIssue[] {
  type PathItem = NonNullable<ScenarioIssue["path"]>[number];
  const within = (each: ScenarioIssue, above: readonly PathItem[]): ScenarioIssue[] => {
    const [first, ...rest] = [...above, ...(each.path ?? [])];
    const path: ScenarioIssue["path"] = first === undefined ? undefined : [first, ...rest];
    return each.type === "union" && each.issues
      ? each.issues.flatMap((inner) => within(inner, path ?? []))
      : [{ ...each, path }];
  };
  const checks = within(issue, []).filter((each) => each.kind === "validation");
  return checks.length === 0 ? [issue] : checks;
}

function problemOf(issue: ScenarioIssue): ScenarioProblem {
  return { field: v.getDotPath(issue) ?? "", kind: issue.type, value: issue.input, message: issue.message };
}

/** Validates a scenario object; errors name the field and what is allowed. */
export function validateScenario(input: unknown): Scenario {
  const result = v.safeParse(ScenarioSchema, withoutExtensions(input));
  if (!result.success) {
    const issues = result.issues
      .flatMap(specificIssues)
      .map((issue) =>
        isUnknownKey(issue)
          ? { ...issue, message: unknownKeyMessage(allowedKeys(ScenarioSchema, issue)) }
          : issue,
      );
    throw new ScenarioError(
      issues.map(problemOf),
      `invalid scenario:\n${v.summarize(issues as typeof result.issues)}`,
    );
  }
  const scenario = result.output;
  const names = new Set<string>();
  for (const [index, design] of scenario.designs.entries()) {
    if (names.has(design.name))
      throw scenarioProblem(
        { field: `designs.${index}.name`, kind: "duplicate", value: design.name },
        `design name "${design.name}" is used twice`,
      );
    names.add(design.name);
  }
  const groups = new Set(scenario.workload.groups.map((group) => group.name));
  for (const [index, read] of scenario.workload.reads.entries()) {
    if (!groups.has(read.group)) {
      const message = `invalid scenario: reads "${read.name}" names group "${read.group}"; groups are ${[...groups].join(", ")}`;
      const problem = {
        field: `workload.reads.${index}.group`,
        kind: "unknown-group",
        value: read.group,
        message,
      };
      throw new ScenarioError([problem], message);
    }
  }
  checkClusterOptions(scenario);
  for (const [index, read] of scenario.workload.reads.entries()) checkDataBoostStaleness(read, index);
  if (scenario.replication) {
    checkReplication(
      scenario.replication,
      scenario.workload.reads.map((read) => read.name),
    );
  }
  return scenario;
}

/** A scan on Data Boost may miss what was written in its last ~35 minutes: a stated staleness must allow that. */
function checkDataBoostStaleness(read: ReadPattern, index: number): void {
  if (read.kind !== "scan" || !read.dataBoost || read.staleness === undefined) return;
  if (read.staleness < DATA_BOOST_STALENESS_S)
    throw scenarioProblem(
      { field: `workload.reads.${index}.staleness`, kind: "data-boost-staleness", value: read.staleness },
      `reads "${read.name}" has dataBoost: true but staleness ${formatDuration(read.staleness)}; Data Boost may not see data written in the last ~35 minutes (Bigtable Data Boost overview), so staleness must be at least 35m, or drop dataBoost`,
    );
}

/** The design called `name`; throws listing the scenario's designs when there is none. */
export function findScenarioDesign(scenario: Scenario, name: string): ScenarioDesign {
  const design = scenario.designs.find((candidate) => candidate.name === name);
  if (!design)
    throw new UnknownDesignError(
      name,
      scenario.name,
      scenario.designs.map((each) => each.name),
    );
  return design;
}

/** Top-level `x-…` keys are for the author (e.g. YAML anchors shared by designs) and are ignored. */
function withoutExtensions(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([key]) => !key.startsWith("x-")));
}

/** YAML 1.2's core schema with `<<` merge keys, which scenarios use to share a schema between designs. */
const SCENARIO_YAML = CORE_SCHEMA.withTags(mergeTag);

/** Parses scenario text (YAML with `<<` merge keys, or JSON) and validates it. */
export function parseScenario(text: string): Scenario {
  return validateScenario(loadScenarioDocument(text));
}

/** Scenario text (YAML or JSON) as the document it holds, not yet validated. */
export function loadScenarioDocument(text: string): unknown {
  try {
    return parseYaml(text, { schema: SCENARIO_YAML });
  } catch (error) {
    throw new Error(`scenario is not valid YAML: ${(error as Error).message}`);
  }
}

/**
 * Typed dotted paths to a scenario's settings (`tablets.splitOpsPerS`), as the model's constants
 * name the field that overrides them: a path that is not a real field does not compile, and the
 * numeric ones are read and set through typed accessors instead of a walk over untyped objects.
 */
import type { Scenario } from "./scenario.js";

/** The sections that hold settings, by their own path. */
interface Sections {
  cluster: Scenario["cluster"];
  "cluster.capacity": Scenario["cluster"]["capacity"];
  tablets: Scenario["tablets"];
  latency: Scenario["latency"];
  workload: Scenario["workload"];
  replication: NonNullable<Scenario["replication"]>;
  client: NonNullable<Scenario["client"]>;
}

type FieldOf<S extends keyof Sections> = `${S}.${keyof Sections[S] & string}`;

/** Any setting of a section, e.g. `cluster.tieredStorage`. */
export type ScenarioField = { [S in keyof Sections]: FieldOf<S> }[keyof Sections];

/** Keys of `T` whose value is any number (not a picklist such as 1 | 2). */
type NumberKey<T> = {
  [K in keyof T]-?: number extends NonNullable<T[K]> ? (NonNullable<T[K]> extends number ? K : never) : never;
}[keyof T] &
  string;

type Capacity = Sections["cluster.capacity"];
type Tablets = Sections["tablets"];
type Latency = Sections["latency"];
type Cluster = Scenario["cluster"];
type Workload = Sections["workload"];

/** A setting that takes any number, which a fit may move: cluster capacity and costs, tablets, latency, compression. */
export type NumericField =
  | `cluster.capacity.${NumberKey<Capacity>}`
  | `cluster.${NumberKey<Cluster>}`
  | `tablets.${NumberKey<Tablets>}`
  | `latency.${NumberKey<Latency>}`
  | `workload.${NumberKey<Workload>}`;

interface Accessor {
  get(scenario: Scenario): number | undefined;
  set(scenario: Scenario, value: number): Scenario;
}

/** How to read and set each section's numbers: the scenario is copied along the path, the rest shared. */
function sectionAccessor<T>(
  section: (scenario: Scenario) => T,
  replace: (scenario: Scenario, next: T) => Scenario,
  key: NumberKey<T>,
): Accessor {
  return {
    get: (scenario) => numberOrUndefined(section(scenario)[key]),
    set: (scenario, value) => replace(scenario, { ...section(scenario), [key]: value }),
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

function accessor(field: NumericField): Accessor {
  const dot = field.lastIndexOf(".");
  const key = field.slice(dot + 1);
  switch (field.slice(0, dot)) {
    case "cluster.capacity":
      return sectionAccessor<Capacity>(
        (scenario) => scenario.cluster.capacity,
        (scenario, capacity) => ({ ...scenario, cluster: { ...scenario.cluster, capacity } }),
        key as NumberKey<Capacity>,
      );
    case "cluster":
      return sectionAccessor<Cluster>(
        (scenario) => scenario.cluster,
        (scenario, cluster) => ({ ...scenario, cluster }),
        key as NumberKey<Cluster>,
      );
    case "tablets":
      return sectionAccessor<Tablets>(
        (scenario) => scenario.tablets,
        (scenario, tablets) => ({ ...scenario, tablets }),
        key as NumberKey<Tablets>,
      );
    case "workload":
      return sectionAccessor<Workload>(
        (scenario) => scenario.workload,
        (scenario, workload) => ({ ...scenario, workload }),
        key as NumberKey<Workload>,
      );
    default:
      return sectionAccessor<Latency>(
        (scenario) => scenario.latency,
        (scenario, latency) => ({ ...scenario, latency }),
        key as NumberKey<Latency>,
      );
  }
}

/** The value the scenario sets at `field`, undefined when it leaves it to the model. */
export function numericSetting(scenario: Scenario, field: NumericField): number | undefined {
  return accessor(field).get(scenario);
}

/** The scenario with `field` set to `value`. */
export function withNumericSetting(scenario: Scenario, field: NumericField, value: number): Scenario {
  return accessor(field).set(scenario, value);
}

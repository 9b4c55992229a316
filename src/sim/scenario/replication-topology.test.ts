import { describe, expect, it } from "vitest";
import { MINIMAL_SCENARIO } from "./minimal.fixture.js";
import { validateScenario } from "./scenario.js";

const base = {
  ...MINIMAL_SCENARIO,
  workload: {
    ...MINIMAL_SCENARIO.workload,
    reads: [{ name: "latest", kind: "latest", group: "g", limit: 10, perS: 1 }],
  },
};
const replication = {
  clusters: [
    { name: "east", region: "us-east1" },
    { name: "central", region: "us-central1", nodes: 3 },
  ],
  appProfiles: [
    { name: "pinned", routing: "single-cluster", cluster: "east" },
    { name: "any", routing: "multi-cluster" },
  ],
  paths: { writes: "pinned", default: "any" },
  failures: [{ cluster: "east", at: "20m", for: "10m" }],
};
const withReplication = (changes: Record<string, unknown>) =>
  validateScenario({ ...base, replication: { ...replication, ...changes } });

describe("a scenario's replication", () => {
  it("parses clusters, app profiles, paths and failures, with durations in seconds", () => {
    const scenario = validateScenario({ ...base, replication });
    expect(scenario.replication).toMatchObject({
      failures: [{ cluster: "east", at: 1200, for: 600 }],
    });
  });

  it.each([
    [
      { paths: { writes: "nope", default: "any" } },
      /paths\.writes: "nope" is not an app profile; profiles are pinned, any/,
    ],
    [{ paths: { writes: "pinned" } }, /no profile for latest; name each, or set paths.default/],
    [
      { paths: { latset: "any", default: "any" } },
      /"latset" is not a path; paths are writes, latest, default/,
    ],
    [
      { appProfiles: [{ name: "p", routing: "single-cluster", cluster: "west" }], paths: { default: "p" } },
      /"west" is not a cluster; clusters are east, central/,
    ],
    [
      { failures: [{ cluster: "west", at: "1m", for: "1m" }] },
      /failures\[\]\.cluster: "west" is not a cluster/,
    ],
    [{ clients: { "us-east1": 0.5 } }, /clients: shares sum to 0.5; they must sum to 1/],
    [{ clusters: [{ name: "east", region: "us-east1" }] }, /at least two clusters/],
    [
      { appProfiles: [{ name: "p", routing: "nearest" }] },
      /routing must be "single-cluster" or "multi-cluster"/,
    ],
    [{ cpuShare: 2 }, /replication.cpuShare must be ≤ 1/],
    [{ clusterz: [] }, /unknown key; allowed: clusters, appProfiles/],
  ])("refuses %j naming the field and what is allowed", (changes, message) => {
    expect(() => withReplication(changes)).toThrow(message);
  });
});

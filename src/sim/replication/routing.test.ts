import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Replication } from "../scenario/replication-topology.js";
import { pathConsistency, routePaths } from "./routing.js";

const twoRegions = (paths: Record<string, string>, extra: Partial<Replication> = {}): Replication => ({
  clusters: [
    { name: "east", region: "us-east1" },
    { name: "central", region: "us-central1" },
  ],
  appProfiles: [
    { name: "pinned", routing: "single-cluster", cluster: "east" },
    { name: "any", routing: "multi-cluster" },
  ],
  paths,
  failures: [],
  ...extra,
});

const sharesOf = (replication: Replication, path: string, down: string[] = []) =>
  routePaths(replication, ["latest", "dashboards"], new Set(down)).find((route) => route.path === path)!;

describe("routePaths", () => {
  it("splits multi-cluster requests over the clusters nearest their clients (evenly from each cluster's region by default)", () => {
    const route = sharesOf(twoRegions({ default: "any" }), "dashboards");
    expect(route.shares).toEqual({ east: 0.5, central: 0.5 });
    expect(route.manualFailover).toBe(false);
  });

  it("sends every request of a multi-cluster path to its clients' own region when it has a cluster", () => {
    const replication = twoRegions({ default: "any" }, { clients: { "us-central1": 1 } });
    expect(sharesOf(replication, "writes").shares).toEqual({ central: 1 });
  });

  it("counts other regions as equidistant: clients without a cluster of their own split evenly", () => {
    const replication = twoRegions({ default: "any" }, { clients: { "europe-west1": 1 } });
    expect(sharesOf(replication, "latest").shares).toEqual({ east: 0.5, central: 0.5 });
  });

  it("sends a single-cluster path to its cluster whatever the clients' region", () => {
    expect(sharesOf(twoRegions({ default: "pinned" }), "latest").shares).toEqual({ east: 1 });
  });

  it("moves a lost cluster's multi-cluster traffic to the survivors by itself", () => {
    const route = sharesOf(twoRegions({ default: "any" }), "dashboards", ["east"]);
    expect(route.shares).toEqual({ central: 1 });
    expect(route.manualFailover).toBe(false);
  });

  it("marks a single-cluster path whose cluster is lost as waiting for a manual failover", () => {
    const route = sharesOf(twoRegions({ default: "pinned" }), "latest", ["east"]);
    expect(route).toMatchObject({ shares: { central: 1 }, manualFailover: true });
  });

  it("keeps the shares of every path summing to 1, whatever the clients and the cluster lost", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom([], ["east"], ["central"]),
        fc.constantFrom("pinned", "any"),
        (eastShare, down, profile) => {
          const clients = { "us-east1": eastShare, "us-central1": 1 - eastShare };
          for (const route of routePaths(
            twoRegions({ default: profile }, { clients }),
            ["latest"],
            new Set(down),
          )) {
            const total = Object.values(route.shares).reduce((sum, share) => sum + share, 0);
            expect(total).toBeCloseTo(1, 9);
            for (const cluster of down) expect(route.shares[cluster] ?? 0).toBe(0);
          }
        },
      ),
    );
  });

  it("refuses when every cluster a profile allows is down", () => {
    const replication = twoRegions({ default: "any" });
    expect(() => routePaths(replication, [], new Set(["east", "central"]))).toThrow(
      expect.objectContaining({ name: "NowhereToFailOverError", profile: undefined }),
    );
    const eastOnly = twoRegions(
      { default: "east-only" },
      {
        appProfiles: [
          { name: "any", routing: "multi-cluster" },
          { name: "east-only", routing: "multi-cluster", clusters: ["east"] },
        ],
      },
    );
    expect(() => routePaths(eastOnly, [], new Set(["east"]))).toThrow(
      expect.objectContaining({ name: "NowhereToFailOverError", profile: "east-only" }),
    );
  });
});

describe("pathConsistency", () => {
  it("gives read-your-writes to a read pinned to the cluster the writes are pinned to, and the lag to the rest", () => {
    const replication = twoRegions({ writes: "pinned", latest: "pinned", dashboards: "any" });
    const consistency = pathConsistency(routePaths(replication, ["latest", "dashboards"]), replication, 2);
    expect(consistency).toEqual([
      { path: "latest", readYourWrites: true, stalenessS: 0 },
      { path: "dashboards", readYourWrites: false, stalenessS: 2 },
    ]);
  });

  it("gives no read-your-writes when the writes route to the nearest cluster", () => {
    const replication = twoRegions({ writes: "any", latest: "pinned", dashboards: "pinned" });
    const consistency = pathConsistency(routePaths(replication, ["latest", "dashboards"]), replication, 1);
    expect(consistency.map((each) => each.readYourWrites)).toEqual([false, false]);
  });

  it("loses read-your-writes while the pinned cluster is failed over by hand", () => {
    const replication = twoRegions({ default: "pinned" });
    const routes = routePaths(replication, ["latest"], new Set(["east"]));
    expect(pathConsistency(routes, replication, 1)).toEqual([
      { path: "latest", readYourWrites: false, stalenessS: 1 },
    ]);
  });
});

/**
 * Two clusters (us-east1, us-central1; 4 nodes each) under a spread key on a warm table, whose CPU
 * is its load, so what replication adds shows plainly: 20,000 writes/s and `readsPerS` point gets.
 * Profiles: `pinned` (single-cluster to east) and `any` (multi-cluster); `paths` picks them.
 */
import { type Scenario, validateScenario } from "../scenario/scenario.js";

export const replicatedScenario = (readsPerS: number, paths: Record<string, string>): Scenario =>
  validateScenario({
    name: "replicated",
    duration: "40m",
    step: "5s",
    cluster: { nodes: 4 },
    workload: {
      rowBytes: 512,
      retention: "7d",
      groups: [{ name: "devices", entities: 100000, fields: { id: "{hex8:i}" }, writesPerS: 20000 }],
      reads: [{ name: "point", kind: "get", group: "devices", perS: readsPerS, window: "1h" }],
    },
    designs: [
      {
        name: "spread",
        table: "existing",
        schema: {
          version: 1,
          name: "k",
          layout: "text",
          segments: [
            { field: "id", codec: { type: "string" } },
            { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
          ],
        },
      },
    ],
    replication: {
      clusters: [
        { name: "east", region: "us-east1", nodes: 4 },
        { name: "central", region: "us-central1", nodes: 4 },
      ],
      appProfiles: [
        { name: "pinned", routing: "single-cluster", cluster: "east" },
        { name: "any", routing: "multi-cluster" },
      ],
      paths,
    },
  });

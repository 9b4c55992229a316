/**
 * What the `keyspread table` end-to-end tests share: they run the built bin (the test script
 * builds before vitest runs) on the embedded store in a temporary directory and on the emulator.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import type { Store } from "../../store/store.js";

export const FLEET = "examples/schemas/fleet.yaml";

export const lines = (...objects: unknown[]) => objects.map((o) => `${JSON.stringify(o)}\n`).join("");
export const jsonLines = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

export const points = Array.from({ length: 12 }, (_, i) => ({
  key: { deviceId: `dev-${i % 3}`, metric: "cpu", ts: 1_700_000_000_000 + i * 1000 },
  cells: { value: i },
}));

/** A fresh table: its `--store …` arguments, and how to open it from the test (the schema's name, fleet). */
export interface CliTable {
  args: string[];
  open: () => Promise<Store>;
}

export const STORES: [string, () => CliTable][] = [
  [
    "embedded",
    () => {
      const directory = mkdtempSync(join(tmpdir(), "keyspread-cli-"));
      return {
        args: ["--store", "embedded", "--dir", directory],
        open: () => EmbeddedStore.open({ directory, table: "fleet", mustExist: true }),
      };
    },
  ],
  [
    "bigtable",
    () => {
      const tableId = `cli${process.pid}${Date.now().toString(36)}${Math.random()}`.replace(".", "");
      return {
        args: ["--store", "bigtable", "--table", tableId],
        open: () => BigtableStore.open({ tableId, projectId: "keyspread", instanceId: "keyspread" }),
      };
    },
  ],
];

/** Runs `keyspread table COMMAND --schema SCHEMA …storeArgs …extra` with `input` on stdin. */
export const tableCommand =
  (schema: string, storeArgs: string[], env: NodeJS.ProcessEnv = process.env) =>
  (command: string, extra: string[] = [], input = "") => {
    const result = spawnSync(
      "node",
      ["dist/cli/main.js", "table", command, "--schema", schema, ...storeArgs, ...extra],
      {
        input,
        encoding: "utf8",
        env,
      },
    );
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

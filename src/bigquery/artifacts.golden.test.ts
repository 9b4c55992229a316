/**
 * The BigQuery texts for the fleet's and the seed's recipes (game-studio, farm-sensors), checked
 * against golden files a reviewer reads next to BigQuery's reference (functions: docs/migrate.md).
 * Regenerate after an intended change: UPDATE_GOLDEN=1 npx vitest run src/bigquery/artifacts.golden.test.ts
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bigQueryArtifacts, refusalMessages } from "./artifacts.js";
import { exampleSchemas } from "./sql-schemas.fixture.js";

const GOLDEN = join(import.meta.dirname, "fixtures");
const update = process.env.UPDATE_GOLDEN === "1";

const CELLS = {
  fleet: [{ name: "value", type: "DOUBLE" as const }],
  "game-studio-md5": [
    { name: "amount", type: "DOUBLE" as const },
    { name: "item", type: "VARCHAR" as const },
  ],
  "farm-sensors": [{ name: "reading", type: "DOUBLE" as const }],
};

describe("BigQuery golden files", () => {
  it.each(exampleSchemas().map((schema) => [schema.spec.name, schema] as const))("%s", (name, schema) => {
    const artifacts = bigQueryArtifacts(schema, {
      table: { project: "acme-prod", instance: "metrics", table: name.replaceAll("-", "_"), family: "m" },
      dataset: "analytics",
      region: "europe-west1",
      cells: CELLS[name as keyof typeof CELLS],
    });
    const files: Record<string, string> = {
      ...artifacts.files,
      "summary.json": `${JSON.stringify({ refused: refusalMessages(artifacts.refused), notes: artifacts.notes, commands: artifacts.commands }, null, 2)}\n`,
    };
    const dir = join(GOLDEN, name);
    if (update) {
      mkdirSync(dir, { recursive: true });
      for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    }
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
    for (const [file, content] of Object.entries(files)) {
      expect(content, `${name}/${file}`).toBe(readFileSync(join(dir, file), "utf8"));
    }
  });
});

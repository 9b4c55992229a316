import { readFileSync } from "node:fs";
import { load as parseYaml } from "js-yaml";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import { formatBytes } from "../../format/bytes.js";
import { compileSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { postKeys } from "../infer/fixtures.testsuite.js";
import { splitKeySample } from "../infer/key-sample.js";
import { inferKeyStructure } from "../infer/key-structure.js";
import { adviseScenario } from "../judge/advise.js";
import { adviceToJson } from "./advice-json.js";
import { adviceHtml } from "./report-html.js";
import { adviceMarkdown } from "./report-markdown.js";
import { recommendedSchemaFile } from "./schema-file.js";

// The textbook keys' post_<ts>_<author>: field promotion (author first) fixes the tail hotspot.
const posts = parseScenario(
  readFileSync(new URL("../../../examples/timestamp-first.yaml", import.meta.url), "utf8"),
);
// Planned for twice today's workload, so the reports show the growth run and where designs break.
const advice = adviseScenario(posts, { durationS: 1800, buckets: [12], batching: false, growth: 2 });

describe("the advisor's reports", () => {
  it("recommends promoting the author ahead of the time", () => {
    expect(advice.recommended?.candidate.name).toBe("promote-author");
  });

  it("writes Markdown: headline, candidate table, the salting guide's decision table, losers, schema", () => {
    const structure = inferKeyStructure(splitKeySample(postKeys(300)));
    const markdown = adviceMarkdown(advice, {
      structure,
      schemaFileName: "recommended-schema.yaml",
      heatmapImages: [{ name: "as-is", path: "heatmap-as-is.png" }],
      heatmapPage: "heatmaps.html",
    });
    expectGolden(import.meta.url, "timestamp-first-2x.md", markdown);
    expect(markdown).toContain(
      "**Recommended: promote-author — author promoted to the front of the key on 6 nodes.",
    );
    // The headline's growth sentence and the sizing line say what the recommendation's checks found.
    expect(advice.recommended?.headroom).toMatchObject({
      growth: 2,
      writesPerS: 40_000,
      failures: [],
      breaksAt: { writesPerS: expect.any(Number) },
    });
    expect(advice.recommended?.sizing.today).toMatchObject({ cpu: expect.any(Number), storage: 1 });
    expect(markdown).toContain("| candidate | complexity | nodes | hottest node |");
    expect(markdown).toMatch(
      /\| promote-author \| 2 \| 6 \| .* \| meets: hottest \d+%, average \d+% \| ≈ [\d,]+ \| recommended \|/,
    );
    expect(markdown).toContain("## At the stated growth (2× today)");
    for (const factor of ["Write pattern", "Read pattern", "Data volume", "Cluster size", "Query complexity"])
      expect(markdown).toContain(`| ${factor} |`);
    expect(advice.losers.find((loser) => loser.name === "as-is")).toMatchObject({
      code: "more-nodes-do-not-help",
      missed: expect.arrayContaining(["hottestCpu"]),
    });
    expect(markdown).toContain("| 1 | ts | timestamp | epoch ms |");
    expect(markdown).toContain("![as-is](heatmap-as-is.png)");
    expect(markdown).toContain("keyspread table create --schema recommended-schema.yaml");
  });

  it("writes a self-contained HTML page with the heatmaps side by side", () => {
    const html = adviceHtml(advice);
    expectGolden(import.meta.url, "timestamp-first-2x.html", html);
    expect(html).toContain('<tr class="chosen"><td>promote-author</td>');
    expect(html).toContain("<iframe");
    expect(html).not.toMatch(/<(?:script|link|img)[^>]+(?:src|href)="https?:/);
    expect(html).toContain("<h2>The decision, in the salting guide's terms</h2>");
  });

  it("prints one JSON object whose recommended member has the schema and scores", () => {
    const json = JSON.parse(adviceToJson(advice));
    expect(json.recommended).toMatchObject({
      name: "promote-author",
      changes: [{ kind: "promote", field: "author" }],
      meetsTargets: true,
      scores: { nodes: 6, buckets: 1 },
    });
    expect(compileSchema(json.recommended.schema).fields.map((field) => field.name)).toEqual([
      "author",
      "ts",
    ]);
    expect(json.candidates[0]).toMatchObject({ name: "as-is", meetsTargets: false });
    expect(json.candidates[0].failures).toHaveLength(
      advice.losers.find((loser) => loser.name === "as-is")?.missed.length ?? 0,
    );
    expectGolden(import.meta.url, "timestamp-first-2x.json", `${adviceToJson(advice)}\n`);
  });

  it("gives a schema file that compiles, with a comment saying where it comes from", () => {
    const file = recommendedSchemaFile(advice)!;
    expectGolden(import.meta.url, "timestamp-first-2x-schema.yaml", file);
    expect(compileSchema(parseYaml(file) as SchemaSpec).spec.segments[1]).toMatchObject({
      field: "author",
      codec: { type: "string" },
    });
  });

  it("formats byte counts", () => {
    expect([formatBytes(0), formatBytes(5_200_000_000), formatBytes(-30_400_000)]).toEqual([
      "0 B",
      "5.2 GB",
      "-30 MB",
    ]);
  });
});

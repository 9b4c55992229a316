/**
 * The advisor's reports on disk, for `advise --out` and `lab`: advice.json, the recommended schema
 * file, report.md (linking the heatmaps written beside it) and report.html.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { KeyStructure } from "../../advise/infer/key-structure.js";
import type { Advice } from "../../advise/judge/advise.js";
import { adviceToJson } from "../../advise/report/advice-json.js";
import { adviceHtml } from "../../advise/report/report-html.js";
import { adviceMarkdown } from "../../advise/report/report-markdown.js";
import { recommendedSchemaFile } from "../../advise/report/schema-file.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import type { WrittenHeatmaps } from "../../viz/render/write-heatmaps.js";

const SCHEMA_FILE = "recommended-schema.yaml";

/** Writes the reports into `out` (created if missing); returns the paths written. */
export async function writeAdviceFiles(
  advice: Advice,
  out: string,
  options: { structure?: KeyStructure; heatmaps?: WrittenHeatmaps } = {},
): Promise<string[]> {
  const { structure, heatmaps } = options;
  await mkdir(out, { recursive: true });
  const schema = recommendedSchemaFile(advice);
  const markdown = adviceMarkdown(advice, {
    ...(structure ? { structure } : {}),
    ...(schema ? { schemaFileName: SCHEMA_FILE } : {}),
    ...(heatmaps
      ? {
          heatmapPage: "heatmaps.html",
          heatmapImages: heatmaps.designs.map((design) => ({
            name: design.name,
            path: design.images[0]!.slice(out.length + 1),
          })),
        }
      : {}),
  });
  const files: [string, string][] = [
    ["advice.json", `${adviceToJson(advice)}\n`],
    ...(schema ? ([[SCHEMA_FILE, schema]] as [string, string][]) : []),
    ["report.md", markdown],
    ["report.html", adviceHtml(advice, structure ? { structure } : {})],
  ];
  for (const [name, content] of files) await writeFileAtomically(join(out, name), content);
  return files.map(([name]) => join(out, name));
}

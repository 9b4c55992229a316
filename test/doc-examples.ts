/**
 * The TypeScript blocks of README.md and docs/*.md, each a file of its own as a user would paste
 * it. A block runs with node unless an HTML comment on the line before it says otherwise:
 * `<!-- example: vitest -->` (a test file, run by vitest) or `<!-- example: typecheck — why -->`
 * (compiled only: it needs a Google Cloud project).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type ExampleMode = "run" | "vitest" | "typecheck";

export interface DocExample {
  /** `readme-197`, `keys-8`: the document and the line of the opening fence. */
  id: string;
  /** The example's file in the project: `<id>.ts`, or `<id>.test.ts` for vitest. */
  file: string;
  mode: ExampleMode;
  code: string;
}

const FENCE = /^```(\w*)\s*$/;
const MARKER = /^<!-- example: (run|vitest|typecheck)\b.*-->$/;

/** The examples of README.md and every docs/*.md under `root`, in document order. */
export function docExamples(root: string): DocExample[] {
  const docs = ["README.md", ...readdirSync(join(root, "docs")).map((name) => `docs/${name}`)].filter(
    (path) => path.endsWith(".md"),
  );
  return docs.flatMap((path) => examplesOf(readFileSync(join(root, path), "utf8"), docName(path)));
}

function docName(path: string): string {
  return path === "README.md" ? "readme" : path.slice("docs/".length, -".md".length);
}

/** The `ts` blocks of one document; other fences are skipped whole, so a ``` inside them cannot open one. */
export function examplesOf(markdown: string, doc: string): DocExample[] {
  const lines = markdown.split("\n");
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === "```");
    if (end < 0) throw new Error(`${doc}: the fence on line ${i + 1} is never closed`);
    if (fence[1] === "ts" || fence[1] === "typescript") {
      const mode = (MARKER.exec(lines[i - 1] ?? "")?.[1] ?? "run") as ExampleMode;
      const id = `${doc}-${i + 1}`;
      examples.push({
        id,
        file: mode === "vitest" ? `${id}.test.ts` : `${id}.ts`,
        mode,
        code: `${lines.slice(i + 1, end).join("\n")}\n`,
      });
    }
    i = end;
  }
  return examples;
}

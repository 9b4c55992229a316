/**
 * `keyspread examples [NAME] [--to DIR]`: the scenarios, schemas and access log the package ships,
 * listed, or copied into a project so the docs' commands run there as they do in a checkout. The
 * replay log ships brotli-compressed (a tenth of its size) and is copied as the CSV it is.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import type { Command } from "commander";
import { load as parseYaml } from "js-yaml";
import { fail, guarded, write } from "../shared/io.js";

/** The package's examples folder, next to dist/ both in a checkout and in node_modules/keyspread. */
const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));
const COMPRESSED = ".br";

interface Example {
  /** The path under examples/ without its extension: `fleet-hotspot`, `schemas/fleet`. */
  name: string;
  kind: "scenario" | "schema" | "access-log" | "job" | "deployment";
  /** The file's name once copied (a compressed log loses its `.br`). */
  copiedAs: string;
  description: string;
  source: string;
}

export function registerExamplesCommands(program: Command): void {
  program
    .command("examples [name]")
    .description(
      "list the bundled scenarios, schemas and access log; copy one, or a folder of them (schemas, replay, fidelity), or with --to alone all of them, keeping their layout (`--to examples` puts them where the docs' commands expect them)",
    )
    .option("--to <dir>", "where to copy (default: the current directory)")
    .option("--json", "list as JSON: [{name, kind, file, description}]")
    .action(guarded(examplesCommand));
}

async function examplesCommand(name: string | undefined, options: { to?: string; json?: boolean }) {
  const examples = await bundledExamples();
  if (name === undefined && options.to === undefined) {
    await write(options.json ? `${JSON.stringify(examples.map(listed))}\n` : listing(examples));
    return;
  }
  const folder = `${name?.replace(/\/+$/, "")}/`;
  const chosen =
    name === undefined
      ? examples
      : examples.filter((example) => example.name === name || example.name.startsWith(folder));
  if (chosen.length === 0) {
    fail(`examples: no example "${name}"; examples: ${examples.map((example) => example.name).join(", ")}`);
  }
  const written: string[] = [];
  for (const example of chosen) {
    // One example lands in DIR itself; a folder, or everything, keeps its layout under DIR.
    const within = example.name === name ? "" : dirname(example.name);
    const target = join(options.to ?? ".", within, example.copiedAs);
    await mkdir(dirname(target), { recursive: true });
    const bytes = await readFile(example.source);
    await writeFile(target, example.source.endsWith(COMPRESSED) ? brotliDecompressSync(bytes) : bytes, {
      flag: "wx",
    }).catch((error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EEXIST"
          ? `examples: ${target} exists; remove it or copy --to another directory`
          : `examples: ${target}: ${error.message}`,
      ),
    );
    written.push(target);
  }
  await write(written.map((path) => `${path}\n`).join(""));
}

function listed({ name, kind, copiedAs, description }: Example) {
  return { name, kind, file: copiedAs, description };
}

function listing(examples: Example[]): string {
  const width = Math.max(...examples.map((example) => example.name.length));
  const rows = examples.map(
    (example) => `${example.name.padEnd(width)}  ${example.kind.padEnd(10)}  ${example.description}`,
  );
  return `${rows.join("\n")}\n\nCopy one (or a folder): keyspread examples NAME [--to DIR]; all of them: keyspread examples --to examples\n`;
}

async function bundledExamples(): Promise<Example[]> {
  const files = (await readdir(EXAMPLES, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(EXAMPLES, join(entry.parentPath, entry.name)).replaceAll("\\", "/"))
    .sort();
  return Promise.all(files.map(async (file) => describeExample(file, join(EXAMPLES, file))));
}

async function describeExample(file: string, source: string): Promise<Example> {
  const copiedAs = basename(file).replace(/\.br$/, "");
  const name = file.replace(/\.br$/, "").replace(/\.(ya?ml|json|csv|jsonl)$/, "");
  if (/\.job\.(ya?ml|json)$/.test(copiedAs))
    return { name, kind: "job", copiedAs, description: "a job definition (keyspread migrate job)", source };
  if (file.startsWith("k8s/")) {
    const description = /\.ya?ml$/.test(copiedAs)
      ? "Kubernetes manifests for ingest replicas (keyspread serve --print-k8s)"
      : "the image those manifests run";
    return { name, kind: "deployment", copiedAs, description, source };
  }
  if (!/\.ya?ml$/.test(copiedAs)) {
    return {
      name,
      kind: "access-log",
      copiedAs,
      description: "a recorded access log (keyspread replay --log)",
      source,
    };
  }
  const text = await readFile(source, "utf8");
  const document = parseYaml(text) as { description?: unknown; designs?: unknown };
  const firstComment = /^#\s*(.*)$/m.exec(text)?.[1] ?? "";
  return {
    name,
    kind: document.designs === undefined ? "schema" : "scenario",
    copiedAs,
    description: typeof document.description === "string" ? document.description : firstComment,
    source,
  };
}

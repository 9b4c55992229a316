/**
 * keyspread as a user meets it: one `npm pack` of the built package (the test script builds
 * first), its contents checked, then the tarball installed into a fresh ESM TypeScript project
 * where every TypeScript block of README.md and docs/*.md is compiled under strict nodenext and
 * run (test/doc-examples.ts says how a block is marked), and the CLI is run from the project.
 * Installing needs the npm registry (or npm's cache).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docExamples } from "./doc-examples.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
const examples = docExamples(ROOT);
const work = mkdtempSync(join(tmpdir(), "keyspread-packed-"));
const project = join(work, "project");

interface Packed {
  filename: string;
  files: { path: string }[];
}

/** Runs a command, failing with its output when it exits non-zero. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: timeoutMs });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

let packed: Packed;
beforeAll(() => {
  [packed] = JSON.parse(
    run("npm", ["pack", "--json", "--pack-destination", work, "--loglevel=error"], ROOT, 120_000),
  ) as [Packed];
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the tarball", () => {
  const paths = () => packed.files.map((file) => file.path);

  it("holds the package, its license, docs and bundled examples", () => {
    expect(paths()).toEqual(
      expect.arrayContaining(["package.json", "README.md", "LICENSE", "dist/index.js", "dist/cli/main.js"]),
    );
    const docs = readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`);
    expect(
      paths()
        .filter((path) => path.startsWith("docs/"))
        .sort(),
    ).toEqual(docs.sort());
    const bundled = ["examples/fleet-hotspot.yaml", "examples/schemas/fleet.yaml"];
    expect(paths()).toEqual(expect.arrayContaining(bundled));
  });

  it("holds no tests, fixtures, sources, dev scripts or emulator", () => {
    const unwanted = paths().filter((path) =>
      /\.(test|testsuite|fixture)\.|(^|\/)fixtures?\/|^(src|test|bench|scripts|emulator)\//.test(path),
    );
    expect(unwanted).toEqual([]);
  });

  it("links only files it holds from README.md and docs/", () => {
    const linked = [join(ROOT, "README.md"), ...paths().filter((path) => path.startsWith("docs/"))]
      .flatMap((file) => {
        const from = file.startsWith("docs/") ? "docs/" : "";
        const text = readFileSync(file.startsWith("docs/") ? join(ROOT, file) : file, "utf8");
        return [...text.matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g)].map(([, target]) =>
          join(from, target!).replaceAll("\\", "/"),
        );
      })
      .filter((target) => !target.endsWith("/"));
    expect([...new Set(linked)].filter((target) => !paths().includes(target))).toEqual([]);
  });

  it("ships no source maps, so a stack trace names the dist file it holds", () => {
    const scripts = paths().filter((path) => path.endsWith(".js"));
    const mapped = scripts.filter((path) =>
      readFileSync(join(ROOT, path), "utf8").includes("sourceMappingURL"),
    );
    expect({ maps: paths().filter((path) => path.endsWith(".map")), mapped }).toEqual({
      maps: [],
      mapped: [],
    });
  });
});

describe("the docs' TypeScript examples in a fresh project", () => {
  const versions = ["typescript", "@types/node", "vitest"].map(
    (name) => `${name}@${manifest.devDependencies[name]}`,
  );

  beforeAll(() => {
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "doc-examples", private: true, type: "module" }),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          // As `tsc --init` writes it: the packages' own .d.ts are not re-checked (keyspread's are tsc's output).
          skipLibCheck: true,
          types: ["node"],
          rootDir: "src",
          outDir: "build",
        },
        include: ["src"],
      }),
    );
    for (const example of examples) writeFileSync(join(project, "src", example.file), example.code);
    // No install scripts: the examples need none (the embedded store loads its prebuilt binary).
    run(
      "npm",
      [
        "install",
        join(work, packed.filename),
        ...versions,
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--prefer-offline",
        "--loglevel=error",
      ],
      project,
      240_000,
    );
  }, 300_000);

  it("compile under strict nodenext", () => {
    const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "."], {
      cwd: project,
      encoding: "utf8",
      timeout: 120_000,
    });
    const errors = tsc.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
  }, 120_000);

  const runnable = examples.filter((example) => example.mode === "run");
  it.each(runnable.map((example) => [example.id, example] as const))(
    "%s runs",
    (_id, example) => {
      const result = spawnSync(process.execPath, [`build/${example.id}.js`], {
        cwd: project,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect({ exit: result.status, stderr: result.stderr }).toMatchObject({ exit: 0 });
    },
    90_000,
  );

  it("test examples pass in vitest", () => {
    const files = examples.filter((example) => example.mode === "vitest").map((e) => `src/${e.file}`);
    const vitest = spawnSync(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", ...files, "--reporter=json"],
      { cwd: project, encoding: "utf8", timeout: 120_000 },
    );
    const report = JSON.parse(vitest.stdout) as { testResults: { name: string; status: string }[] };
    expect(
      report.testResults.map((result) => [result.name.slice(project.length + 1), result.status]).sort(),
    ).toEqual(files.map((file) => [file, "passed"]).sort());
  }, 120_000);

  it("run the CLI from the project: the bundled examples copied where the docs' paths point", () => {
    const bin = join(project, "node_modules/.bin/keyspread");
    const listed = JSON.parse(run(bin, ["examples", "--json"], project, 30_000)) as { name: string }[];
    expect(listed.map((example) => example.name)).toEqual(
      expect.arrayContaining(["fleet-hotspot", "schemas/fleet"]),
    );
    run(bin, ["examples", "--to", "examples"], project, 30_000);
    const encode = spawnSync(bin, ["keys", "encode", "--schema", "examples/schemas/fleet.yaml"], {
      cwd: project,
      encoding: "utf8",
      input: `${JSON.stringify({ deviceId: "dev-1", metric: "cpu", ts: 1_700_000_000_000 })}\n`,
    });
    expect({ exit: encode.status, stdout: encode.stdout, stderr: encode.stderr }).toEqual({
      exit: 0,
      stdout: "08#dev-1#cpu#8299999999999\n",
      stderr: "",
    });
  }, 60_000);
});

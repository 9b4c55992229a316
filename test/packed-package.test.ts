/**
 * keyspread as a user meets it: one `npm pack` of the built package (the test script builds
 * first), its contents checked, then the tarball installed into a fresh ESM TypeScript project
 * where every TypeScript block of README.md and docs/*.md is compiled under strict nodenext and
 * run (test/doc-examples.ts says how a block is marked), and the CLI is run from the project;
 * and installed alone, without the optional peers, as a user of keys and the memory store has it.
 * Installing needs the npm registry (or npm's cache).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
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
    const linked = [
      join(ROOT, "README.md"),
      ...paths().filter((path) => path.startsWith("docs/") && path.endsWith(".md")),
    ]
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

describe("the package installed alone, as a user of keys and the memory store installs it", () => {
  const lean = join(work, "lean");

  beforeAll(() => {
    mkdirSync(lean, { recursive: true });
    writeFileSync(
      join(lean, "package.json"),
      JSON.stringify({ name: "keys-only", private: true, type: "module" }),
    );
    run(
      "npm",
      [
        "install",
        join(work, packed.filename),
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
      ],
      lean,
      240_000,
    );
  }, 300_000);

  /** Every installed package's name, with the install-time scripts it declares. */
  function installed(): { name: string; installScripts: string[] }[] {
    const paths = run("npm", ["ls", "--all", "--parseable"], lean, 60_000)
      .split("\n")
      .filter(Boolean)
      .slice(1);
    return paths.map((path) => {
      const manifest = JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as {
        name: string;
        scripts?: Record<string, string>;
      };
      const scripts = Object.keys(manifest.scripts ?? {});
      return {
        name: manifest.name,
        installScripts: scripts.filter((script) => ["preinstall", "install", "postinstall"].includes(script)),
      };
    });
  }

  it("leaves out the optional peers; only the embedded store's LevelDB has an install script", () => {
    const packages = installed();
    const heavy = /^(@google-cloud\/|@grpc\/|google-gax$|googleapis|protobufjs$|sse4_crc32$|@duckdb\/)/;
    expect(packages.filter((p) => heavy.test(p.name)).map((p) => p.name)).toEqual([]);
    expect(packages.filter((p) => p.installScripts.length > 0).map((p) => p.name)).toEqual(["classic-level"]);
  });

  it("types its root entry without the optional peers, under strict nodenext with the libraries' types checked", () => {
    writeFileSync(
      join(lean, "typed.ts"),
      `import { compileSchema, MemoryStore, SaltedTable, instrumentBigtableTable } from "keyspread";
      const schema = compileSchema({ version: 1, name: "t", layout: "text", segments: [{ field: "id", codec: { type: "string" } }] });
      const table = await SaltedTable.open(new MemoryStore(), schema, { create: true });
      export const ids: string[] = (await table.scan({}).toArray()).map((row) => row.values.id);
      export { instrumentBigtableTable };\n`,
    );
    const options = {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      typeRoots: [join(ROOT, "node_modules/@types")],
      types: ["node"],
    };
    writeFileSync(
      join(lean, "tsconfig.json"),
      JSON.stringify({ compilerOptions: options, files: ["typed.ts"] }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], {
      cwd: lean,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(tsc.stdout.split("\n").filter((line) => /error TS\d+/.test(line))).toEqual([]);
    expect(tsc.status).toBe(0);
  }, 120_000);

  it("encodes a key and reads it back from the memory store; the Bigtable store and the DuckDB export name the package to install", () => {
    const script = `
      import { compileSchema, MemoryStore, SaltedTable } from "keyspread";
      import { openStore } from "keyspread/store";
      import { exportTable } from "keyspread/migrate";
      const schema = compileSchema({
        version: 1, name: "fleet", layout: "text", separator: "#",
        segments: [
          { field: "deviceId", codec: { type: "string" } },
          { field: "metric", codec: { type: "string" } },
          { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
        ],
        salt: { buckets: 16, fields: ["deviceId"] },
      });
      const values = { deviceId: "dev-1", metric: "cpu", ts: 1_700_000_000_000 };
      const store = new MemoryStore();
      const table = await SaltedTable.open(store, schema, { create: true });
      await table.put(values, { value: "0.93" });
      const rows = await table.latest({ eq: { deviceId: "dev-1", metric: "cpu" } }, 10);
      const failure = (error) => ({ name: error.name, packageName: error.packageName, installCommand: error.installCommand });
      const bigtable = await openStore("bigtable", { table: "fleet", bigtable: { projectId: "p", instanceId: "i" } })
        .then(() => "opened", failure);
      const duckdb = await exportTable({ store, schema, parquetDir: "out/parquet" }).then(() => "exported", failure);
      console.log(JSON.stringify({ key: schema.encode(values).toString(), read: rows.map((row) => row.values.ts), bigtable, duckdb }));
    `;
    writeFileSync(join(lean, "keys-only.mjs"), script);
    // Node looks for packages in every folder above the project too: a node_modules there (say
    // /tmp/node_modules) holding the optional peers would hand them to this "lean" install.
    const resolveFromLean = createRequire(join(lean, "keys-only.mjs")).resolve;
    const resolvable = ["@google-cloud/bigtable", "@duckdb/node-api"].filter((name) => {
      try {
        resolveFromLean(name);
        return true;
      } catch {
        return false;
      }
    });
    expect(resolvable, "optional peers found above the lean project").toEqual([]);
    expect(JSON.parse(run(process.execPath, ["keys-only.mjs"], lean, 60_000))).toEqual({
      key: "08#dev-1#cpu#8299999999999",
      read: [1_700_000_000_000],
      bigtable: {
        name: "MissingPackageError",
        packageName: "@google-cloud/bigtable",
        installCommand: "npm install @google-cloud/bigtable",
      },
      duckdb: {
        name: "MissingPackageError",
        packageName: "@duckdb/node-api",
        installCommand: "npm install @duckdb/node-api",
      },
    });
  }, 60_000);
});

describe("the docs' TypeScript examples in a fresh project", () => {
  // The examples use every entry, so the project installs the optional peers too (docs/dependencies.md's table).
  const versions = ["typescript", "@types/node", "vitest", "@google-cloud/bigtable", "@duckdb/node-api"].map(
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

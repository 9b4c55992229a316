/**
 * The package's entry points (package.json `exports`): each one's export list is pinned in
 * `src/entry/exports/<entry>.txt`, so an addition, removal or rename of a public name is a
 * deliberate edit of that file; each built entry loads by its package name; and the root loads
 * none of the heavy dependencies the other entries exist to keep away from it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, { types: string; import: string }>;
};

/** `.` → `keyspread`, `./lab` → `keyspread/lab`. */
const specifierOf = (subpath: string) => packageJson.name + subpath.slice(1);
/** `./dist/entry/lab.js` → `src/entry/lab.ts`. */
const sourceOf = (built: string) => join(ROOT, built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
/** The pinned list's file: `exports/root.txt`, `exports/store-testing.txt`. */
const pinnedListOf = (subpath: string) =>
  join(ROOT, "src/entry/exports", `${subpath === "." ? "root" : subpath.slice(2).replaceAll("/", "-")}.txt`);

const entries = Object.entries(packageJson.exports).map(([subpath, conditions]) => ({
  subpath,
  specifier: specifierOf(subpath),
  source: sourceOf(conditions.import),
  conditions,
}));

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** By name (code-unit order), `type X` beside `X`. */
const byName = (a: string, b: string) =>
  compare(a.replace(/^type /, ""), b.replace(/^type /, "")) || compare(a, b);

/** Every name an entry exports, sorted, types marked `type ` (from the TypeScript sources). */
function exportLists(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  })!;
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    config.options,
  );
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry.source)!)!;
      const names = checker.getExportsOfModule(module).map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`;
      });
      return [entry.subpath, names.sort(byName)];
    }),
  );
}

/** Runs `script` as an ES module in a child node whose working directory is the package (so `keyspread/…` resolves to dist/). */
function runModule(script: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`node exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const built = () => {
  if (!existsSync(join(ROOT, "dist/index.js")))
    throw new Error("dist/ is missing: run `npm run build` first");
};

describe("entry points", () => {
  const lists = exportLists();

  for (const { subpath, specifier } of entries) {
    it(`${specifier} exports exactly the names pinned in src/entry/exports`, () => {
      const file = pinnedListOf(subpath);
      // A deliberate API change: UPDATE_EXPORTS=1 rewrites the lists, and the diff is the change.
      if (process.env.UPDATE_EXPORTS) writeFileSync(file, `${lists.get(subpath)!.join("\n")}\n`);
      const pinned = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
      expect(lists.get(subpath), `${file} (one name per line, types as "type Name")`).toEqual(pinned);
    });
  }

  it("each entry is typed, and its build loads by the package name with the pinned values", () => {
    built();
    for (const { subpath, specifier, conditions } of entries) {
      expect(existsSync(join(ROOT, conditions.types)), conditions.types).toBe(true);
      const values = JSON.parse(
        runModule(`console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(specifier)}))))`),
      ) as string[];
      const pinnedValues = lists.get(subpath)!.filter((name) => !name.startsWith("type "));
      expect(values.sort(), specifier).toEqual([...pinnedValues].sort());
    }
  });

  it("the root loads no store driver, server, simulator, renderer or DuckDB", () => {
    built();
    const { resolved, everything } = modulesLoadedBy("keyspread");
    expect(resolved.some((url) => url.endsWith("/dist/index.js"))).toBe(true);

    const forbidden = [
      /node_modules\/(@google-cloud\/bigtable|classic-level|prom-client|pngjs|@duckdb\/)/,
      /^node:(http|https|http2)$|^NativeModule (http|https|http2|_http_server)$/,
      /\/dist\/(entry|store\/(bigtable|embedded|open)|serve|monitor|migrate|export|sim|advise|lab|viz\/(render|matrix|patterns)|cli)\b/,
    ];
    expect(everything.filter((loaded) => forbidden.some((pattern) => pattern.test(loaded)))).toEqual([]);
  });

  it("keyspread/store and keyspread/migrate load neither optional peer (the Bigtable client, DuckDB) until one is used", () => {
    built();
    for (const specifier of ["keyspread/store", "keyspread/migrate"]) {
      const { everything } = modulesLoadedBy(specifier);
      const forbidden = /node_modules\/(@google-cloud\/bigtable|@grpc\/|google-gax|@duckdb\/)/;
      expect(
        everything.filter((loaded) => forbidden.test(loaded)),
        specifier,
      ).toEqual([]);
    }
  });

  it("keyspread/diagnose loads neither the Bigtable client nor LevelDB until a table is diagnosed", () => {
    built();
    const { resolved, everything } = modulesLoadedBy("keyspread/diagnose");
    expect(resolved.some((url) => url.endsWith("/dist/entry/diagnose.js"))).toBe(true);
    const forbidden =
      /node_modules\/(@google-cloud\/bigtable|@grpc\/|google-gax|classic-level)|\/dist\/(store\/(bigtable|embedded)|diagnose\/gather-)/;
    expect(everything.filter((loaded) => forbidden.test(loaded))).toEqual([]);
  });
});

/** Every module importing `specifier` reaches: resolved URLs, CommonJS files and node builtins. */
function modulesLoadedBy(specifier: string): { resolved: string[]; everything: string[] } {
  const directory = mkdtempSync(join(tmpdir(), "keyspread-entry-"));
  try {
    const resolvedFile = join(directory, "resolved.txt");
    // A resolve hook sees every module the import graph reaches (ES modules, a CommonJS package's
    // entry, node: builtins), and writes each URL before the import can go on.
    const hook = `import { appendFileSync } from "node:fs";
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        appendFileSync(process.env.RESOLVED_FILE, resolved.url + "\\n");
        return resolved;
      }`;
    const loaded = JSON.parse(
      runModule(
        `import { createRequire, register } from "node:module";
        register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
        await import(${JSON.stringify(specifier)});
        console.log(JSON.stringify({
          builtins: process.moduleLoadList,
          commonjs: Object.keys(createRequire(import.meta.url).cache),
        }));`,
        { RESOLVED_FILE: resolvedFile },
      ),
    ) as { builtins: string[]; commonjs: string[] };
    const resolved = readFileSync(resolvedFile, "utf8").split("\n").filter(Boolean);
    return { resolved, everything: [...resolved, ...loaded.commonjs, ...loaded.builtins] };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

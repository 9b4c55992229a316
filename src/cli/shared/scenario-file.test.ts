import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  readScenarioFile,
  ScenarioArgumentError,
  ScenarioFileError,
  scenarioFileOf,
} from "./scenario-file.js";

const dir = mkdtempSync(join(tmpdir(), "keyspread-scenario-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a scenario file", () => {
  it("that cannot be read or parsed throws a ScenarioFileError naming the file", async () => {
    const missing = join(dir, "missing.yaml");
    await expect(readScenarioFile(missing)).rejects.toMatchObject({
      name: "ScenarioFileError",
      file: missing,
    });
    const invalid = join(dir, "orders.yaml");
    writeFileSync(invalid, "name: orders\nduration: soon\n");
    const error = await readScenarioFile(invalid).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect(error).toMatchObject({ file: invalid, reason: expect.stringMatching(/invalid scenario/) });
    expect((error as Error).message).toContain("orders.yaml");
  });

  it("is the first argument; --scenario still works, and two different files are refused", () => {
    expect(scenarioFileOf("lab", "a.yaml", undefined)).toBe("a.yaml");
    expect(scenarioFileOf("lab", undefined, undefined, "fleet.yaml")).toBe("fleet.yaml");
    expect(scenarioFileOf("lab", "a.yaml", "a.yaml")).toBe("a.yaml");
    expect(() => scenarioFileOf("advise", "a.yaml", "b.yaml")).toThrow(ScenarioArgumentError);
  });

  it("a misspelt flag gets the suggestion and one line pointing to --help, not the whole help", () => {
    const run = spawnSync("node", ["dist/cli/main.js", "lab", "--duratoin", "5m"], { encoding: "utf8" });
    expect(run.status).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/unknown option '--duratoin'/);
    expect(run.stderr).toMatch(/--duration/);
    expect(lines.at(-1)).toMatch(/--help/);
    expect(lines.length).toBeLessThanOrEqual(3);
  });
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";

// End-to-end: the built bin (the test script builds before vitest runs).
const FLEET = "examples/schemas/fleet.yaml";
const GAME_STUDIO = "examples/schemas/game-studio-md5.yaml";

function keyspread(args: string[], input = "", env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync("node", ["dist/cli/main.js", "keys", ...args], {
    input,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The error the command reported, as the JSON object KEYSPREAD_ERRORS=json prints. */
function reportedError(args: string[], input = "") {
  const result = keyspread(args, input, { KEYSPREAD_ERRORS: "json" });
  expect(result.code).toBe(1);
  return { ...result, error: JSON.parse(result.stderr) as Record<string, unknown> };
}

const lines = (...objects: unknown[]) => objects.map((o) => `${JSON.stringify(o)}\n`).join("");

describe("keyspread keys encode/decode", () => {
  it("reproduces the game-studio recipe's key and decodes it with its bucket", () => {
    const encoded = keyspread(
      ["encode", "--schema", GAME_STUDIO],
      lines({ player: "456789", action: "purchase", timestamp: "20240315143022" }),
    );
    expect(encoded).toMatchObject({ code: 0, stderr: "" });
    expect(encoded.stdout).toBe("061_player_456789_purchase_20240315143022\n");
    const decoded = keyspread(["decode", "--schema", GAME_STUDIO], encoded.stdout);
    expect(JSON.parse(decoded.stdout)).toEqual({
      bucket: 61,
      player: "456789",
      action: "purchase",
      timestamp: "20240315143022",
    });
  });

  it.each(["text", "hex"])("round-trips values through --format %s", (format) => {
    const values = [
      { deviceId: "dev-1", metric: "cpu", ts: 1_700_000_000_000 },
      { deviceId: "a b#c", metric: "mem", ts: 0 },
      { deviceId: "é😀", metric: "disk io", ts: 9_999_999_999_999 },
    ];
    const encoded = keyspread(["encode", "--schema", FLEET, "--format", format], lines(...values));
    expect(encoded.code).toBe(0);
    expect(encoded.stdout.split("\n")).toHaveLength(4);
    const decoded = keyspread(["decode", "--schema", FLEET, "--format", format], encoded.stdout);
    expect(decoded.code).toBe(0);
    const objects = decoded.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(objects.map(({ bucket: _, ...rest }) => rest)).toEqual(values);
    for (const o of objects) expect(o.bucket).toBeGreaterThanOrEqual(0);
    if (format === "text")
      expect(encoded.stdout.split("\n")[1]).toMatch(/^\d\d#a\$20b\$23c#mem#9999999999999$/);
  });

  it.each([
    [
      '{"deviceId":"d","metric":"cpu","tss":1}',
      {
        name: "FieldValueError",
        field: "tss",
        problem: "unknown-field",
        allowed: ["deviceId", "metric", "ts"],
      },
    ],
    ['{"deviceId":"d","metric":"cpu","ts":"soon"}', { field: "ts", problem: "wrong-type", value: "soon" }],
    ['{"deviceId":7,"metric":"cpu","ts":1}', { field: "deviceId", problem: "wrong-type", value: 7 }],
    ['{"deviceId":"d","metric":"cpu"}', { field: "ts", problem: "missing" }],
    [
      `{"deviceId":"${"x".repeat(5000)}","metric":"cpu","ts":1}`,
      { name: "KeyTooLongError", schemaName: "fleet", length: 5021 },
    ],
    // Not JSON at all: a plain error, named by its line.
    ["{not json", { message: expect.stringMatching(/^keys encode: line 3: not valid JSON/) }],
  ])("stops at a bad line %#, after printing the good ones", (bad, fields) => {
    const good = lines({ deviceId: "d1", metric: "cpu", ts: 1 });
    const result = reportedError(["encode", "--schema", FLEET], `${good}\n${bad}\n${good}`);
    expect(result.error).toMatchObject({ line: 3, ...fields });
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(result.stdout).toMatch(/^\d\d#d1#cpu#9999999999998\n$/);
  });

  it("rejects the separator inside a raw value, naming line and field", () => {
    const result = reportedError(
      ["encode", "--schema", GAME_STUDIO],
      lines({ player: "4_5", action: "a", timestamp: "1" }),
    );
    expect(result.stdout).toBe("");
    expect(result.error).toMatchObject({
      line: 1,
      name: "FieldValueError",
      field: "player",
      problem: "forbidden-character",
      value: "4_5",
    });
  });

  it("decode names the line of a key of another schema", () => {
    const result = reportedError(
      ["decode", "--schema", GAME_STUDIO],
      "061_player_456789_purchase_20240315143022\n062_player_1_a_b\n",
    );
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(result.error).toMatchObject({
      line: 2,
      name: "KeyDecodeError",
      problem: "salt-mismatch",
      bucket: 62,
    });
  });

  it("reports a bad schema file with the path of the problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-"));
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: "b",
        layout: "text",
        segments: [{ field: "t", codec: { type: "timestamp", unit: "h" } }],
      }),
    );
    const result = keyspread(["encode", "--schema", file], "");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/segments\[0\]\.codec\.unit: .*"s" \| "ms" \| "us"/);
  });
});

describe("keyspread keys plan", () => {
  it("prints one range when the salt field is bound", () => {
    const query = {
      eq: { deviceId: "dev-1", metric: "cpu" },
      range: { field: "ts", gte: 1_700_000_000_000 },
      limit: 100,
    };
    const result = keyspread(["plan", "--schema", FLEET, "--query", JSON.stringify(query)]);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(Object.keys(plan)).toEqual(["fanout", "ranges"]);
    expect(plan.fanout).toBe(1);
    expect(plan.ranges).toEqual([
      {
        start: expect.stringMatching(/^\d\d#dev-1#cpu#$/),
        end: expect.stringMatching(new RegExp(`^\\d\\d#dev-1#cpu#8299999999999${"\u0000"}$`)),
      },
    ]);
  });

  it("fans out to every bucket otherwise, in hex on request", () => {
    const result = keyspread([
      "plan",
      "--schema",
      FLEET,
      "--format",
      "hex",
      "--query",
      '{"prefix":{"field":"deviceId","value":"dev"}}',
    ]);
    const plan = JSON.parse(result.stdout);
    expect(plan.fanout).toBe(16);
    expect(plan.ranges[0]).toEqual({
      start: Buffer.from("00#dev").toString("hex"),
      end: Buffer.from("00#dew").toString("hex"),
    });
  });

  it("rejects a query that skips a field", () => {
    const result = reportedError(["plan", "--schema", FLEET, "--query", '{"eq":{"metric":"cpu"}}']);
    expect(result.error).toMatchObject({
      name: "QueryError",
      problem: "unbound-prefix",
      field: "metric",
      expected: "deviceId",
    });
  });
});

describe("keyspread keys inspect", () => {
  const devices = Array.from({ length: 2000 }, (_, i) => ({
    deviceId: `device-${i}`,
    metric: "cpu",
    ts: 1_700_000_000_000 + i,
  }));

  it("reports the histogram, skew, chi-square p, key lengths and salt overhead", () => {
    const result = keyspread(["inspect", "--schema", FLEET], lines(...devices));
    expect(result.code).toBe(0);
    expectGolden(import.meta.url, "keys-inspect-fleet.txt", result.stdout);
  });

  it("prints the same as JSON", () => {
    const report = JSON.parse(keyspread(["inspect", "--schema", FLEET, "--json"], lines(...devices)).stdout);
    expect(report.counts).toHaveLength(16);
    expect(report.samples).toBe(2000);
    expect(report.saltBytesPerRow).toBe(3);
    expect(report.pValue).toBeGreaterThan(0);
  });

  it("ends quietly when the reader closes the pipe early", () => {
    const input = lines(
      ...Array.from({ length: 50_000 }, (_, i) => ({ deviceId: `d${i}`, metric: "cpu", ts: i })),
    );
    const result = spawnSync(
      "bash",
      ["-c", `node dist/cli/main.js keys encode --schema ${FLEET} | head -1`],
      {
        input,
        encoding: "utf8",
      },
    );
    expect(result.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toBe("");
  });
});

describe("keyspread keys with write shards", () => {
  const dir = mkdtempSync(join(tmpdir(), "keyspread-keys-shards-"));
  const schema = join(dir, "counter.json");
  writeFileSync(
    schema,
    JSON.stringify({
      version: 1,
      name: "counter",
      layout: "text",
      segments: [{ field: "counterId", codec: { type: "string" } }],
      writeShards: { count: 4, entities: [{ counterId: "global" }] },
    }),
  );

  it("encodes a sharded row's key for --shard and decodes it back with its shard", () => {
    const encoded = keyspread(["encode", "--schema", schema, "--shard", "2"], lines({ counterId: "global" }));
    expect(encoded).toMatchObject({ code: 0, stderr: "" });
    const decoded = keyspread(["decode", "--schema", schema], encoded.stdout);
    expect(JSON.parse(decoded.stdout)).toEqual({ bucket: 0, shard: 2, counterId: "global" });
  });

  it("encodes a row the schema does not shard as its one key, whatever --shard says", () => {
    const plain = keyspread(["encode", "--schema", schema], lines({ counterId: "other" }));
    const withShard = keyspread(
      ["encode", "--schema", schema, "--shard", "2"],
      lines({ counterId: "other" }),
    );
    expect(withShard).toMatchObject({ code: 0, stdout: plain.stdout });
  });

  it("refuses a sharded row without --shard, and a shard beyond 255, naming them", () => {
    const missing = keyspread(["encode", "--schema", schema], lines({ counterId: "global" }));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/shard/);
    const beyond = keyspread(["encode", "--schema", schema, "--shard", "256"], "");
    expect(beyond.code).not.toBe(0);
    expect(beyond.stderr).toMatch(/--shard.*"256" is not a whole number from 0 to 255/);
  });
});

/**
 * bench:cli — the CLI's cold start: `keyspread keys encode` of one line (a YAML schema, as users
 * keep them) against `node -e 0`, each started afresh, alternating, median of several runs in the
 * same process. Needs the built CLI (`npm run build`; the npm script does it).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median } from "../src/stats/median.js";

const RUNS = 15;
const root = fileURLToPath(new URL("../..", import.meta.url));
const line = `${JSON.stringify({ deviceId: "dev-1", metric: "cpu", ts: 1_767_225_600_000 })}\n`;

function startMs(args: string[], input?: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: root, input, encoding: "utf8" });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${run.stderr}`);
  return ms;
}

const node: number[] = [];
const encode: number[] = [];
for (let run = 0; run < RUNS; run++) {
  node.push(startMs(["-e", "0"]));
  encode.push(
    startMs(["dist/cli/main.js", "keys", "encode", "--schema", "examples/schemas/fleet.yaml"], line),
  );
}
const nodeMs = median(node);
const encodeMs = median(encode);
console.log(
  `node -e 0: median ${nodeMs.toFixed(0)} ms; keyspread keys encode (one line): median ${encodeMs.toFixed(0)} ms`,
);
console.log(
  `bench cli: keys_encode_ms=${encodeMs.toFixed(0)} node_ms=${nodeMs.toFixed(0)} ratio=${(encodeMs / nodeMs).toFixed(2)}`,
);

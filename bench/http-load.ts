/** What the HTTP benches share: the service in a child process, a request's status, a percentile. */
import { type ChildProcess, fork } from "node:child_process";
import { type Agent, request } from "node:http";
import { join } from "node:path";
import type { IngestPipeline } from "../src/serve/ingest/ingest-pipeline.js";
import { type IngestServiceOptions, startIngestService } from "../src/serve/ingest-service.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";

/** The first message from `child` that has `field`. */
function message<T>(child: ChildProcess, field: keyof T): Promise<T> {
  return new Promise((resolve) => {
    const listener = (value: unknown) => {
      if ((value as T)[field] === undefined) return;
      child.off("message", listener);
      resolve(value as T);
    };
    child.on("message", listener);
  });
}

/** One request on `agent`; resolves to the status once the answer is read. */
export function send(
  agent: Agent,
  url: URL,
  body?: Buffer,
  contentType = "application/x-ndjson",
): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = body && { "content-type": contentType, "content-length": body.length };
    const req = request(url, { method: body ? "POST" : "GET", agent, headers }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
    req.end(body);
  });
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/**
 * Benches run the service in a child process of their own (its own core): the bench forks its own
 * script with `--serve DIR` (`forkService`), where `serveIfChild` starts the service on the
 * embedded store in DIR with `options`, reports its URL, and its pipeline totals after a clean
 * close. Returns false in the bench's own process.
 */
export async function serveIfChild(options: Partial<IngestServiceOptions> = {}): Promise<boolean> {
  if (process.argv[2] !== "--serve") return false;
  const directory = process.argv[3]!;
  const service = await startIngestService({
    store: await EmbeddedStore.open({ table: "metrics", directory }),
    walDirectory: join(directory, "wal"),
    log: () => {},
    ...options,
  });
  process.send!({ url: service.url });
  process.once("message", async () => {
    await service.close();
    process.send!({ totals: service.pipeline.totals }, () => process.exit(0));
  });
  return true;
}

export type PipelineTotals = IngestPipeline["totals"];

/** The service child of `script` on `directory`: its URL, and `close` for its totals. */
export async function forkService(
  script: string,
  directory: string,
): Promise<{ url: string; close: () => Promise<PipelineTotals> }> {
  const child = fork(script, ["--serve", directory]);
  const { url } = await message<{ url: string }>(child, "url");
  return {
    url,
    close: async () => {
      child.send("close");
      return (await message<{ totals: PipelineTotals }>(child, "totals")).totals;
    },
  };
}

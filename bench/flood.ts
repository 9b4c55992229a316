/**
 * bench:flood — a flood of large bodies beside the fleet incident's hot read. The service runs in
 * a child process (on the embedded store); this process sends CLIENTS bodies of BODY_BYTES at once,
 * each on a connection of its own (WAVES times over), first as NDJSON and then (a fresh service) as JSON arrays of
 * the same points, while a probe reads latest-100 of one device every 10 ms on a connection of its
 * own. The in-flight cap refuses most bodies (503); the ones taken are parsed a slice at a time.
 * All clients come from one address, so the per-tenant share is set to the whole in-flight cap
 * here: the bench measures how parsing the accepted bodies delays reads, not the share.
 *
 * Summary per format: bodies accepted/refused, and the probe's p50/p99 (ms) during the flood.
 * Timings depend on the machine; nothing here is asserted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { forkService, percentile, send, serveIfChild } from "./http-load.js";

const CLIENTS = 100;
/** Floods one after another, the probe reading throughout. */
const WAVES = 5;
const BODY_BYTES = 16 * 1024 * 1024;
const PROBE_EVERY_MS = 10;
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const INFLIGHT_BYTES = 4 * MAX_BODY_BYTES;

// All clients come from one address: the per-tenant share is the whole cap here.
const budgets = {
  maxBodyBytes: MAX_BODY_BYTES,
  maxInflightBodyBytes: INFLIGHT_BYTES,
  maxInflightBodyBytesPerTenant: INFLIGHT_BYTES,
};
if (!(await serveIfChild(budgets))) await main();

/** The same points as NDJSON and as a JSON array, each just under BODY_BYTES. */
function floodBodies(start: number): { ndjson: Buffer; json: Buffer } {
  const lines: string[] = [];
  let size = 2;
  for (let n = 0; ; n++) {
    const line = JSON.stringify({
      tenant: "flood",
      deviceId: `dev-${n % 10_000}`,
      ts: start + Math.floor(n / 200),
      metrics: { cpu: (n % 100) / 100, mem: n % 4096, temp: 20 + (n % 15) },
    });
    if (size + line.length + 1 > BODY_BYTES) break;
    lines.push(line);
    size += line.length + 1;
  }
  return { ndjson: Buffer.from(lines.join("\n")), json: Buffer.from(`[${lines.join(",")}]`) };
}

async function flood(format: "ndjson" | "json", body: Buffer) {
  const directory = await mkdtemp(join(tmpdir(), "bench-flood-"));
  const { url, close } = await forkService(fileURLToPath(import.meta.url), directory);
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probeUrl = new URL("/v1/devices/probe/latest?tenant=t&n=100", url);
  const point = { tenant: "t", deviceId: "probe", ts: Date.now(), metrics: { v: 1 } };
  await send(probeAgent, new URL("/v1/ingest", url), Buffer.from(JSON.stringify(point)));

  const floodAgent = new Agent({ keepAlive: false, maxSockets: CLIENTS });
  const contentType = format === "json" ? "application/json" : "application/x-ndjson";
  const statuses: number[] = [];
  let flooding = true;
  const waves = (async () => {
    for (let wave = 0; wave < WAVES; wave++) {
      const clients = Array.from({ length: CLIENTS }, () =>
        send(floodAgent, new URL("/v1/ingest", url), body, contentType)
          // A refused body's connection is closed while it is still being sent.
          .catch(() => 503)
          .then((status) => statuses.push(status)),
      );
      await Promise.all(clients);
    }
  })();
  const probe = (async () => {
    const latencies: number[] = [];
    while (flooding) {
      const sent = performance.now();
      const status = await send(probeAgent, probeUrl);
      if (status !== 200) throw new Error(`latest read under the flood answered ${status}`);
      const took = performance.now() - sent;
      latencies.push(took);
      await sleep(Math.max(0, PROBE_EVERY_MS - took));
    }
    return latencies.sort((a, b) => a - b);
  })();
  await waves;
  flooding = false;
  const latencies = await probe;
  probeAgent.destroy();
  floodAgent.destroy();
  await close();
  await rm(directory, { recursive: true, force: true });
  return {
    accepted: statuses.filter((status) => status === 200).length,
    refused: statuses.filter((status) => status !== 200).length,
    probes: latencies.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

async function main(): Promise<void> {
  const bodies = floodBodies(Date.now());
  for (const format of ["ndjson", "json"] as const) {
    const result = await flood(format, bodies[format]);
    console.log(
      `bench:flood format=${format} clients=${CLIENTS} waves=${WAVES} body_bytes=${bodies[format].length} ` +
        `accepted=${result.accepted} refused=${result.refused} probes=${result.probes} ` +
        `latest100_p50_ms=${result.p50.toFixed(1)} latest100_p99_ms=${result.p99.toFixed(1)}`,
    );
  }
}

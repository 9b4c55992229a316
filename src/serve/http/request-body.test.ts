import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { BodyBudget, BodyRefused, readBody } from "./request-body.js";

/** A request body stream with headers; `complete` as node:http sets it once the body ended. */
function request(headers: Record<string, string>): PassThrough & IncomingMessage {
  const stream = new PassThrough() as PassThrough & IncomingMessage & { complete: boolean };
  stream.headers = headers;
  stream.complete = false;
  stream.once("end", () => {
    stream.complete = true;
  });
  return stream;
}

const limits = (maxBytes: number, owner = "acme") => ({ maxBytes, deadlineMs: 60_000, owner });

describe("readBody within a budget", () => {
  it("reserves a body's bytes as they arrive and gives them back on release", async () => {
    const budget = new BodyBudget(100, 100);
    const req = request({ "content-length": "60" });
    const reading = readBody(req, limits(80), budget);
    req.write(Buffer.alloc(30));
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.inUse).toBe(30);
    req.end(Buffer.alloc(30));
    const { body, release } = await reading;
    expect([body.length, budget.inUse, budget.heldBy("acme")]).toEqual([60, 60, 60]);
    release();
    release();
    expect([budget.inUse, budget.heldBy("acme")]).toEqual([0, 0]);
  });

  it("refuses a declared body that cannot fit now (503) or ever (413) before reading it", async () => {
    const budget = new BodyBudget(100, 100);
    budget.reserve("other", 50);
    await expect(readBody(request({ "content-length": "60" }), limits(80), budget)).rejects.toMatchObject({
      status: 503,
    });
    await expect(readBody(request({ "content-length": "90" }), limits(80), budget)).rejects.toMatchObject({
      status: 413,
    });
    expect(budget.inUse).toBe(50);
  });

  it("refuses a chunked body once the budget runs out, keeping nothing reserved for it", async () => {
    const budget = new BodyBudget(100, 100);
    budget.reserve("other", 70);
    const req = request({});
    const reading = readBody(req, limits(1000), budget);
    req.write(Buffer.alloc(20));
    req.write(Buffer.alloc(20));
    await expect(reading).rejects.toBeInstanceOf(BodyRefused);
    await expect(reading).rejects.toMatchObject({ status: 503 });
    expect(budget.inUse).toBe(70);
    expect(budget.peak).toBe(90);
  });

  it("lets one owner's stalled bodies spend only its own share: another owner's body still fits", async () => {
    const budget = new BodyBudget(100, 40);
    const stalled = Array.from({ length: 5 }, () => request({}));
    const readings = stalled.map((req) =>
      readBody(req, limits(1000, "noisy"), budget).catch((error) => error),
    );
    for (const req of stalled) req.write(Buffer.alloc(10));
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.heldBy("noisy")).toBe(40);
    const refused = await readings[4];
    expect(refused).toMatchObject({ status: 503, message: expect.stringMatching(/limit per tenant is 40/) });
    const honest = request({ "content-length": "40" });
    const reading = readBody(honest, limits(1000, "honest"), budget);
    honest.end(Buffer.alloc(40));
    expect((await reading).body.length).toBe(40);
  });

  it("refuses a body that has not arrived by its deadline (408), keeping nothing reserved and reading no further", async () => {
    vi.useFakeTimers();
    try {
      const budget = new BodyBudget(100, 100);
      const req = request({ "content-length": "60" });
      const reading = readBody(req, { ...limits(80), deadlineMs: 5_000 }, budget).catch((error) => error);
      req.write(Buffer.alloc(10));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(await reading).toMatchObject({ status: 408 });
      expect(budget.inUse).toBe(0);
      expect(req.isPaused()).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

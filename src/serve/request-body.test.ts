import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
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

describe("readBody within a budget", () => {
  it("reserves a body's bytes as they arrive and gives the size back to release", async () => {
    const budget = new BodyBudget(100);
    const req = request({ "content-length": "60" });
    const reading = readBody(req, 80, budget);
    req.write(Buffer.alloc(30));
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.inUse).toBe(30);
    req.end(Buffer.alloc(30));
    const { body, reserved } = await reading;
    expect([body.length, reserved, budget.inUse]).toEqual([60, 60, 60]);
    budget.release(reserved);
    expect(budget.inUse).toBe(0);
  });

  it("refuses a declared body that cannot fit now (503) or ever (413) before reading it", async () => {
    const budget = new BodyBudget(100);
    budget.tryReserve(50);
    await expect(readBody(request({ "content-length": "60" }), 80, budget)).rejects.toMatchObject({
      status: 503,
    });
    await expect(readBody(request({ "content-length": "90" }), 80, budget)).rejects.toMatchObject({
      status: 413,
    });
    expect(budget.inUse).toBe(50);
  });

  it("refuses a chunked body once the budget runs out, keeping nothing reserved for it", async () => {
    const budget = new BodyBudget(100);
    budget.tryReserve(70);
    const req = request({});
    const reading = readBody(req, 1000, budget);
    req.write(Buffer.alloc(20));
    req.write(Buffer.alloc(20));
    await expect(reading).rejects.toBeInstanceOf(BodyRefused);
    await expect(reading).rejects.toMatchObject({ status: 503 });
    expect(budget.inUse).toBe(70);
    expect(budget.peak).toBe(90);
  });
});

/**
 * Reading request bodies within two limits: one body at most `maxBodyBytes` (413), and all bodies
 * held in memory at once at most the service's budget (503 + Retry-After): a hundred clients
 * sending 16 MB each get refused instead of growing the heap until reads time out. A body whose
 * Content-Length cannot fit right now is refused before a byte is read; every body reserves its
 * bytes as they arrive (so a slow client holds only what it has sent), and is refused once the
 * budget runs out. The reservation lasts until the request is answered (parsing and the log sync
 * included), and `release` gives it back.
 */
import type { IncomingMessage } from "node:http";

export class BodyBudget {
  inUse = 0;
  /** The most ever held at once. */
  peak = 0;

  constructor(
    readonly capBytes: number,
    private readonly onChange: (inUse: number) => void = () => {},
  ) {
    if (!(Number.isSafeInteger(capBytes) && capBytes > 0)) {
      throw new RangeError(`in-flight body budget ${capBytes}: expected a whole number of bytes > 0`);
    }
  }

  tryReserve(bytes: number): boolean {
    if (this.inUse + bytes > this.capBytes) return false;
    this.inUse += bytes;
    this.peak = Math.max(this.peak, this.inUse);
    this.onChange(this.inUse);
    return true;
  }

  release(bytes: number): void {
    this.inUse -= bytes;
    this.onChange(this.inUse);
  }
}

export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 413 | 503,
    message: string,
  ) {
    super(message);
  }
}

export interface ReadBody {
  body: Buffer;
  /** Bytes reserved from the budget: give them back with `budget.release` once answered. */
  reserved: number;
}

export function readBody(req: IncomingMessage, maxBytes: number, budget: BodyBudget): Promise<ReadBody> {
  const declared = Number(req.headers["content-length"]);
  const hasLength = req.headers["content-length"] !== undefined && Number.isSafeInteger(declared);
  if (hasLength && declared > maxBytes) {
    return Promise.reject(new BodyRefused(413, `body of ${declared} bytes exceeds the limit of ${maxBytes}`));
  }
  // Refused at once when it cannot fit now; reserved as it arrives, so a slow client holds only what it sent.
  if (hasLength && budget.inUse + declared > budget.capBytes) return Promise.reject(overBudget(budget));
  let reserved = 0;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: BodyRefused) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      budget.release(reserved);
      reserved = 0;
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(new BodyRefused(413, `body exceeds the limit of ${maxBytes} bytes`));
      if (size > reserved) {
        if (!budget.tryReserve(size - reserved)) return fail(overBudget(budget));
        reserved = size;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => {
      if (settled) return;
      settled = true;
      resolve({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), reserved });
    });
    req.once("error", () => fail(new BodyRefused(400, "the request ended before its body was complete")));
    req.once("close", () => {
      if (!req.complete) fail(new BodyRefused(400, "the request ended before its body was complete"));
    });
  });
}

function overBudget(budget: BodyBudget): BodyRefused {
  return new BodyRefused(
    503,
    `the service holds ${budget.inUse} bytes of request bodies, its limit is ${budget.capBytes}: retry shortly`,
  );
}

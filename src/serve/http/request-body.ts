/**
 * Reading request bodies within limits: one body at most `maxBytes` (413) and within a deadline
 * (408); all bodies held in memory at once at most the service's budget, and one owner's (a
 * tenant, or without credentials a client address) at most its share of it (503 + Retry-After).
 * So a hundred clients sending 16 MB each are refused instead of growing the heap until reads
 * time out, and one tenant's stalled bodies spend its own share, never another tenant's.
 *
 * A body whose Content-Length cannot fit right now is refused before a byte is read; every body
 * reserves its bytes as they arrive (so a slow client holds only what it has sent), and is
 * refused once the budget runs out. The reservation lasts until the request is answered (parsing
 * and the log sync included), and `release` gives it back.
 */
import type { IncomingMessage } from "node:http";

export class BodyBudget {
  inUse = 0;
  /** The most ever held at once. */
  peak = 0;
  private readonly owned = new Map<string, number>();

  constructor(
    readonly capBytes: number,
    /** What one owner may hold at once. */
    readonly ownerCapBytes: number,
    private readonly onChange: (inUse: number) => void = () => {},
  ) {
    for (const [name, bytes] of [
      ["in-flight body budget", capBytes],
      ["per-tenant in-flight body budget", ownerCapBytes],
    ] as const) {
      if (!(Number.isSafeInteger(bytes) && bytes > 0)) {
        throw new RangeError(`${name} ${bytes}: expected a whole number of bytes > 0`);
      }
    }
  }

  /** Bytes `owner` holds now. */
  heldBy(owner: string): number {
    return this.owned.get(owner) ?? 0;
  }

  /** Why `bytes` more for `owner` cannot be held now, or undefined when they can. */
  refusal(owner: string, bytes: number): BodyRefused | undefined {
    if (this.heldBy(owner) + bytes > this.ownerCapBytes) {
      return new BodyRefused(
        503,
        `your requests would hold ${this.heldBy(owner) + bytes} bytes of request bodies, the limit per tenant is ${this.ownerCapBytes}: retry shortly`,
      );
    }
    if (this.inUse + bytes > this.capBytes) {
      return new BodyRefused(
        503,
        `the service holds ${this.inUse} bytes of request bodies, its limit is ${this.capBytes}: retry shortly`,
      );
    }
    return undefined;
  }

  /** Reserves `bytes` for `owner`, or returns why not (reserving nothing). */
  reserve(owner: string, bytes: number): BodyRefused | undefined {
    const refusal = this.refusal(owner, bytes);
    if (refusal !== undefined) return refusal;
    this.owned.set(owner, this.heldBy(owner) + bytes);
    this.inUse += bytes;
    this.peak = Math.max(this.peak, this.inUse);
    this.onChange(this.inUse);
    return undefined;
  }

  release(owner: string, bytes: number): void {
    const left = this.heldBy(owner) - bytes;
    if (left > 0) this.owned.set(owner, left);
    else this.owned.delete(owner);
    this.inUse -= bytes;
    this.onChange(this.inUse);
  }
}

export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 503,
    message: string,
  ) {
    super(message);
  }
}

export interface BodyLimits {
  maxBytes: number;
  /** The whole body must arrive within this many ms of the call. */
  deadlineMs: number;
  /** Whose share of the budget the body spends. */
  owner: string;
}

export interface ReadBody {
  body: Buffer;
  /** Gives the body's bytes back to the budget: call once the request is answered. */
  release: () => void;
}

export function readBody(req: IncomingMessage, limits: BodyLimits, budget: BodyBudget): Promise<ReadBody> {
  const { maxBytes, deadlineMs, owner } = limits;
  const declared = Number(req.headers["content-length"]);
  const hasLength = req.headers["content-length"] !== undefined && Number.isSafeInteger(declared);
  if (hasLength && declared > maxBytes) {
    return Promise.reject(new BodyRefused(413, `body of ${declared} bytes exceeds the limit of ${maxBytes}`));
  }
  // Refused at once when it cannot fit now; reserved as it arrives, so a slow client holds only what it sent.
  const refusal = hasLength ? budget.refusal(owner, declared) : undefined;
  if (refusal !== undefined) return Promise.reject(refusal);
  let reserved = 0;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(deadline);
      req.off("data", onData);
    };
    const fail = (error: BodyRefused) => {
      if (settled) return;
      settle();
      // Read no further: the answer closes the connection.
      req.pause();
      budget.release(owner, reserved);
      reserved = 0;
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(new BodyRefused(413, `body exceeds the limit of ${maxBytes} bytes`));
      if (size > reserved) {
        const more = size - reserved;
        const refusal = budget.reserve(owner, more);
        if (refusal !== undefined) return fail(refusal);
        reserved = size;
      }
      chunks.push(chunk);
    };
    const deadline = setTimeout(
      () =>
        fail(
          new BodyRefused(
            408,
            `the body did not arrive within ${deadlineMs / 1000} s (${size} bytes came): send it faster or in smaller requests`,
          ),
        ),
      deadlineMs,
    );
    req.on("data", onData);
    req.once("end", () => {
      if (settled) return;
      settle();
      let released = false;
      resolve({
        body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size),
        release: () => {
          if (!released) budget.release(owner, reserved);
          released = true;
        },
      });
    });
    req.once("error", () => fail(new BodyRefused(400, "the request ended before its body was complete")));
    req.once("close", () => {
      if (!req.complete) fail(new BodyRefused(400, "the request ended before its body was complete"));
    });
  });
}

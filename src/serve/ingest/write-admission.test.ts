import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IdempotencyJournal } from "../wal/idempotency-journal.js";
import { PendingPointsFull, WriteAdmission } from "./write-admission.js";

const noJournal = { get: () => undefined } as unknown as IdempotencyJournal;

describe("WriteAdmission", () => {
  it("never counts more pending points than the cap, and refuses exactly the requests that would pass it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.oneof(fc.record({ reserve: fc.nat(400) }), fc.record({ release: fc.nat(400) }))),
        (cap, steps) => {
          const admission = new WriteAdmission(noJournal, cap);
          let pending = 0;
          for (const step of steps) {
            if ("reserve" in step) {
              const fits = pending + step.reserve <= cap;
              if (fits) {
                admission.reserve(step.reserve);
                pending += step.reserve;
              } else expect(() => admission.reserve(step.reserve)).toThrow(PendingPointsFull);
            } else {
              const count = Math.min(step.release, pending);
              admission.release(count);
              pending -= count;
            }
            expect(admission.pendingPoints).toBe(pending);
          }
        },
      ),
    );
  });

  it("tells a retry that its key is in flight while the first request runs, and new once it ended unacknowledged", async () => {
    const admission = new WriteAdmission(noJournal);
    let during: string | undefined;
    await admission.whileProcessing("k", async () => {
      during = admission.checkKey("k", "f").state;
    });
    expect(during).toBe("in-flight");
    expect(admission.checkKey("k", "f").state).toBe("new");
    admission.remember({ key: "k", fingerprint: "f", accepted: 1, atMs: Date.now() });
    expect(admission.checkKey("k", "f").state).toBe("done");
    expect(admission.checkKey("k", "other").state).toBe("other-request");
  });
});

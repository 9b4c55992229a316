/**
 * Where a running service is in its life, as its load balancer must see it:
 * - `serving`: ready (GET /readyz 200) unless something else says not (its replica lease was taken over);
 * - `draining` (SIGTERM, `close`): /readyz answers 503 so the load balancer sends no new requests,
 *   while the service still answers every request for the drain delay (its endpoints propagate);
 * - `stopping`: the server accepts no connection; a request still arriving on an open keep-alive
 *   connection is answered 503 with Retry-After and `Connection: close` — before it reaches the
 *   pipeline or the store, which are about to close — and the requests already read are finished.
 * The service is not listening at all while it replays its log at start: readiness fails then too.
 */
import type { ServerResponse } from "node:http";

export type LifecyclePhase = "serving" | "draining" | "stopping";

export class ServiceLifecycle {
  private current: LifecyclePhase = "serving";
  /** Responses to requests read and not answered yet. */
  private readonly inFlight = new Set<ServerResponse>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly healthy: () => boolean = () => true) {}

  get phase(): LifecyclePhase {
    return this.current;
  }

  /** Whether this replica may take writes (false once its replica lease was taken over). */
  get writable(): boolean {
    return this.healthy();
  }

  /** What GET /readyz answers. */
  get ready(): boolean {
    return this.current === "serving" && this.healthy();
  }

  /** Requests read and not answered yet. */
  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Readiness false; every answer from now on closes its connection, so clients reconnect (elsewhere). */
  drain(): void {
    if (this.current !== "serving") return;
    this.current = "draining";
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader("connection", "close");
  }

  stop(): void {
    this.current = "stopping";
  }

  /** A request was read: it counts until its response closes. */
  started(res: ServerResponse): void {
    this.inFlight.add(res);
    if (this.current !== "serving") res.setHeader("connection", "close");
    res.once("close", () => this.finished(res));
  }

  private finished(res: ServerResponse): void {
    this.inFlight.delete(res);
    if (this.inFlight.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves once no request is in flight, or at `deadlineMs` (epoch ms), whichever comes first. */
  async idle(deadlineMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadlineMs - Date.now()));
      }),
    ]);
    clearTimeout(timer);
  }
}

/**
 * Takes turns for the service's CPU-heavy steps — parsing a request body, encoding a chunk of a
 * flush — one per event-loop iteration. Without it, eight bodies that arrive together are parsed
 * back to back in one poll phase, and a read waiting for its store callback waits behind all of
 * them; with it, the loop goes back to I/O (reads) between every two heavy steps.
 */
export class CpuTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves when it is the caller's turn: run the heavy step right after, without awaiting in between. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    const turn = this.waiting.shift();
    if (turn === undefined) return;
    this.scheduled = true;
    // An immediate queued from an immediate runs in the next loop iteration, after its I/O.
    setImmediate(() => {
      this.scheduled = false;
      turn();
      this.schedule();
    });
  }
}

/**
 * What a running service holds open (tables, watchers, files, timers, its server), in the order it
 * opened them. They are closed in the reverse order on every path: a stop, and a start that failed
 * half-way (then only what was opened so far). A close that fails does not keep the others open.
 */
export class ServiceResources {
  private readonly held: { name: string; close: () => unknown }[] = [];

  /** Holds `resource`, closed by `close` (after everything held later). */
  hold<T>(name: string, resource: T, close: (resource: T) => unknown): T {
    this.held.push({ name, close: () => close(resource) });
    return resource;
  }

  /** What is held now, oldest first. */
  names(): string[] {
    return this.held.map((entry) => entry.name);
  }

  /** Closes everything held, newest first; throws the first failure once all were tried. */
  async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (let entry = this.held.pop(); entry !== undefined; entry = this.held.pop()) {
      try {
        await entry.close();
      } catch (error) {
        failures.push(new Error(`closing ${entry.name}: ${String(error)}`, { cause: error }));
      }
    }
    if (failures.length > 0) throw failures[0];
  }

  /** Runs `start`; if it throws, closes what was held so far and rethrows its error. */
  async opening<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.closeAll().catch(() => {});
      throw error;
    }
  }
}

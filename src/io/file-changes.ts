/**
 * Calls back when a file is replaced or changed: a directory watch (renames show there) with a
 * stat poll behind it for filesystems that do not report them. Calls never overlap; a change is
 * noticed by the file's inode, size and mtime.
 */
import { type FSWatcher, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";

export class FileChanges {
  private readonly watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  /** `version` is the file's version already seen (`fileVersion`), so the first call comes with the first change. */
  constructor(
    readonly path: string,
    private version: string,
    private readonly onChange: () => Promise<void> | void,
    pollMs = 250,
  ) {
    try {
      this.watcher = watch(dirname(path), (_event, name) => {
        if (name === null || name === basename(path)) this.check();
      });
      this.watcher.unref();
    } catch {
      this.watcher = undefined;
    }
    this.timer = setInterval(() => this.check(), pollMs);
    this.timer.unref();
  }

  /** Stops watching; resolves once a callback under way has returned. */
  async close(): Promise<void> {
    this.watcher?.close();
    clearInterval(this.timer);
    await this.running;
  }

  private check(): void {
    this.running = this.running.then(async () => {
      const version = await fileVersion(this.path);
      if (version === this.version) return;
      this.version = version;
      await this.onChange();
    });
  }
}

/** Inode, size and mtime: changes whenever the file is rewritten or replaced; "missing" when there is none. */
export async function fileVersion(path: string): Promise<string> {
  try {
    const info = await stat(path);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return "missing";
  }
}

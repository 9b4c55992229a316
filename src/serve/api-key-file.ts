/**
 * The API key file on disk: changed only by an atomic rewrite (temporary file, fsync, rename) under
 * an exclusive lock file, so two `keys add` at once both land and a running service never reads
 * half a file; and read live by the service, which picks a change up within a second (a directory
 * watch, with a stat poll behind it for filesystems that do not report renames).
 */
import { type FSWatcher, watch } from "node:fs";
import { chmod, open, readFile, stat, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomically } from "../io/write-file-atomically.js";
import { type ApiKeyFile, ApiKeyVerifier, emptyKeyFile, parseKeyFile } from "./api-keys.js";

const LOCK_WAIT_MS = 5_000;
const POLL_MS = 250;

export async function readKeyFile(path: string, options: { mustExist: boolean }): Promise<ApiKeyFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !options.mustExist) return emptyKeyFile();
    throw new Error(`API key file ${path}: ${(error as Error).message}`);
  }
  return parseKeyFile(text, path);
}

/** Reads the file (empty when missing), applies `change`, and writes the result atomically, under the file's lock. */
export async function updateKeyFile<T>(path: string, change: (file: ApiKeyFile) => T): Promise<T> {
  const lock = `${path}.lock`;
  await takeLock(lock);
  try {
    const file = await readKeyFile(path, { mustExist: false });
    const result = change(file);
    await writeFileAtomically(path, `${JSON.stringify(file, null, 2)}\n`, { durable: true });
    await chmod(path, 0o600);
    return result;
  } finally {
    await unlink(lock).catch(() => {});
  }
}

async function takeLock(lock: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number((await readFile(lock, "utf8").catch(() => "")).trim());
    // A lock left by a process that died mid-update is stale.
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) await unlink(lock).catch(() => {});
    else if (Date.now() > deadline) {
      throw new Error(`API key file lock ${lock} is held by process ${holder || "unknown"}; try again`);
    } else await sleep(20);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The keys a running service checks against, reloaded when the file changes. A file that cannot
 * be read or parsed keeps the last good keys (and says so in the log): a half-edited file must not
 * lock every client out, and revocation goes through `keys revoke`, which always writes whole files.
 */
export class LiveApiKeys {
  private verifier: ApiKeyVerifier;
  private version = "";
  private readonly watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private reloading: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    file: ApiKeyFile,
    version: string,
    private readonly onChange: (verifier: ApiKeyVerifier) => void,
    private readonly log: (line: string) => void,
  ) {
    this.verifier = new ApiKeyVerifier(file);
    this.version = version;
    try {
      this.watcher = watch(dirname(path), (_event, name) => {
        if (name === null || name === basename(path)) this.reload();
      });
      this.watcher.unref();
    } catch {
      this.watcher = undefined;
    }
    this.timer = setInterval(() => this.reload(), POLL_MS);
    this.timer.unref();
  }

  static async open(
    path: string,
    options: { onChange?: (verifier: ApiKeyVerifier) => void; log: (line: string) => void },
  ): Promise<LiveApiKeys> {
    const file = await readKeyFile(path, { mustExist: true });
    const version = await versionOf(path);
    const keys = new LiveApiKeys(path, file, version, options.onChange ?? (() => {}), options.log);
    keys.onChange(keys.verifier);
    return keys;
  }

  get current(): ApiKeyVerifier {
    return this.verifier;
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.timer);
  }

  private reload(): void {
    this.reloading = this.reloading.then(async () => {
      const version = await versionOf(this.path).catch(() => "missing");
      if (version === this.version) return;
      this.version = version;
      try {
        this.verifier = new ApiKeyVerifier(await readKeyFile(this.path, { mustExist: true }));
        this.onChange(this.verifier);
        this.log(JSON.stringify({ event: "auth-reload", keys: this.verifier.file.keys.length }));
      } catch (error) {
        this.log(JSON.stringify({ event: "auth-reload-error", error: (error as Error).message }));
      }
    });
  }
}

async function versionOf(path: string): Promise<string> {
  const info = await stat(path);
  return `${info.ino}:${info.size}:${info.mtimeMs}`;
}

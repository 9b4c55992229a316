/**
 * The API key file on disk: changed only by an atomic rewrite (temporary file, fsync, rename) under
 * an exclusive lock file, so two `keys add` at once both land and a running service never reads
 * half a file; and read live by the service, which picks a change up within a second (a directory
 * watch, with a stat poll behind it for filesystems that do not report renames).
 */
import { chmod, readFile } from "node:fs/promises";
import { FileChanges, fileVersion } from "../../io/file-changes.js";
import { withFileLock } from "../../io/file-lock.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { logEvent } from "../observe/service-events.js";
import { type ApiKeyFile, ApiKeyVerifier, emptyApiKeyFile, parseApiKeyFile } from "./api-keys.js";

export async function readApiKeyFile(path: string, options: { mustExist: boolean }): Promise<ApiKeyFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !options.mustExist) return emptyApiKeyFile();
    throw new Error(`API key file ${path}: ${(error as Error).message}`);
  }
  return parseApiKeyFile(text, path);
}

/** Reads the file (empty when missing), applies `change`, and writes the result atomically, under the file's lock. */
export function updateApiKeyFile<T>(path: string, change: (file: ApiKeyFile) => T): Promise<T> {
  return withFileLock(path, "API key file", async () => {
    const file = await readApiKeyFile(path, { mustExist: false });
    const result = change(file);
    await writeFileAtomically(path, `${JSON.stringify(file, null, 2)}\n`, { durable: true });
    await chmod(path, 0o600);
    return result;
  });
}

/**
 * The keys a running service checks against, reloaded when the file changes. A file that cannot
 * be read or parsed keeps the last good keys (and says so in the log): a half-edited file must not
 * lock every client out, and revocation goes through `keys revoke`, which always writes whole files.
 */
export class LiveApiKeys {
  private verifier: ApiKeyVerifier;
  private readonly changes: FileChanges;

  private constructor(
    readonly path: string,
    file: ApiKeyFile,
    version: string,
    private readonly onChange: (verifier: ApiKeyVerifier) => void,
    private readonly log: (line: string) => void,
  ) {
    this.verifier = new ApiKeyVerifier(file);
    this.changes = new FileChanges(path, version, () => this.reload());
  }

  static async open(
    path: string,
    options: { onChange?: (verifier: ApiKeyVerifier) => void; log: (line: string) => void },
  ): Promise<LiveApiKeys> {
    const file = await readApiKeyFile(path, { mustExist: true });
    const version = await fileVersion(path);
    const keys = new LiveApiKeys(path, file, version, options.onChange ?? (() => {}), options.log);
    keys.onChange(keys.verifier);
    return keys;
  }

  get current(): ApiKeyVerifier {
    return this.verifier;
  }

  close(): void {
    void this.changes.close();
  }

  private async reload(): Promise<void> {
    try {
      this.verifier = new ApiKeyVerifier(await readApiKeyFile(this.path, { mustExist: true }));
      this.onChange(this.verifier);
      logEvent(this.log, "auth-reload", { keys: this.verifier.file.keys.length });
    } catch (error) {
      logEvent(this.log, "auth-reload-error", { error: (error as Error).message });
    }
  }
}

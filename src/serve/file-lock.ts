/**
 * An exclusive lock beside a file that several processes rewrite (the API key file, a migration's
 * state record): a lock file created with O_EXCL naming its holder's pid. A lock left by a process
 * that died mid-update (kill -9) is stale and taken over; a live holder is waited for.
 */
import { open, readFile, unlink } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

const LOCK_WAIT_MS = 5_000;

/** Runs `action` while holding `<path>.lock`; `what` names the file in the error when the lock stays taken. */
export async function withFileLock<T>(path: string, what: string, action: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  await takeLock(lock, what);
  try {
    return await action();
  } finally {
    await unlink(lock).catch(() => {});
  }
}

async function takeLock(lock: string, what: string): Promise<void> {
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
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) await unlink(lock).catch(() => {});
    else if (Date.now() > deadline) {
      throw new Error(`${what} lock ${lock} is held by process ${holder || "unknown"}; try again`);
    } else await sleep(20);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * An exclusive lock beside a file that several processes rewrite (the API key file, a migration's
 * state record): `<path>.lock`, naming its holder's pid. A live holder is waited for; a lock left
 * by a process that died mid-update (kill -9) is stale and taken over.
 *
 * The lock appears whole or not at all: it is written to a file of its own and hard-linked into
 * place, which fails when a lock exists, so no holder ever leaves an empty lock. Besides the pid
 * it holds a random token, so a lock is told apart from every later one. An empty or
 * unreadable lock (an older writer, a foreign tool) counts as stale once it is a second old.
 *
 * Taking a stale lock over is itself exclusive: only the holder of `<path>.lock.takeover` may
 * delete the lock, and only while it is still the very lock judged stale. Two processes
 * that saw the same dead holder therefore cannot both delete it and then each create a lock.
 * A holder removes its lock on release only if it is still its own.
 */
import { randomUUID } from "node:crypto";
import { link, open, unlink, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

const LOCK_WAIT_MS = 5_000;
/** An empty or unreadable lock older than this is stale: a writer fills its lock before linking it. */
const UNREADABLE_LOCK_STALE_MS = 1_000;

/** Runs `action` while holding `<path>.lock`; `what` names the file in the error when the lock stays taken. */
export async function withFileLock<T>(path: string, what: string, action: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const mine = await takeLock(lock, what);
  try {
    return await action();
  } finally {
    if ((await lockHolder(lock))?.text === mine) await unlink(lock).catch(() => {});
  }
}

/** Takes the lock (waiting for a live holder, taking over a stale one); returns the lock's text. */
async function takeLock(lock: string, what: string): Promise<string> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const text = await createExclusively(lock);
    if (text !== undefined) return text;
    const holder = await lockHolder(lock);
    if (holder === undefined) continue;
    if (isStale(holder)) await removeStale(lock, holder);
    else if (Date.now() > deadline) {
      throw new Error(`${what} lock ${lock} is held by process ${holder.pid ?? "unknown"}; try again`);
    } else await sleep(20);
  }
}

/**
 * Creates `target` naming this process and a token no other lock has, unless it exists; returns
 * its text (the holder's proof of ownership: an inode number is reused as soon as it is freed),
 * or undefined when it existed.
 */
async function createExclusively(target: string): Promise<string | undefined> {
  const token = randomUUID();
  const draft = `${target}.${token}`;
  const text = `${process.pid}\n${token}\n`;
  await writeFile(draft, text, { flag: "wx" });
  try {
    await link(draft, target);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  } finally {
    await unlink(draft).catch(() => {});
  }
}

/**
 * Deletes the stale lock while holding the takeover lock, if it is still the very lock judged
 * stale (same inode, same text); whoever saw the same stale lock and comes second finds another
 * lock (or none) and deletes nothing. A takeover lock whose holder died (its section is a read
 * and an unlink) is stale in turn, and simply removed.
 */
async function removeStale(lock: string, stale: LockHolder): Promise<void> {
  const takeover = `${lock}.takeover`;
  const mine = await createExclusively(takeover);
  if (mine === undefined) {
    const holder = await lockHolder(takeover);
    if (holder !== undefined && isStale(holder)) await unlink(takeover).catch(() => {});
    else await sleep(5);
    return;
  }
  try {
    const current = await lockHolder(lock);
    if (current?.inode === stale.inode && current.text === stale.text) await unlink(lock).catch(() => {});
  } finally {
    await unlink(takeover).catch(() => {});
  }
}

interface LockHolder {
  inode: number;
  text: string;
  /** Undefined when the lock does not name a process. */
  pid: number | undefined;
  ageMs: number;
}

/** Who holds the lock file, or undefined when there is none. */
async function lockHolder(lock: string): Promise<LockHolder | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lock, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    const text = await handle.readFile("utf8");
    const pid = Number(text.split("\n")[0]);
    return {
      inode: stats.ino,
      text,
      pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
      ageMs: Date.now() - stats.mtimeMs,
    };
  } finally {
    await handle.close();
  }
}

function isStale(holder: LockHolder): boolean {
  return holder.pid === undefined ? holder.ageMs > UNREADABLE_LOCK_STALE_MS : !isAlive(holder.pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

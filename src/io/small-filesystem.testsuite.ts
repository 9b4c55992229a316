/**
 * A really small filesystem for tests that need a disk to fill up: a tmpfs mounted by the test
 * (needs root). `fill` leaves only a few bytes free, so the next large write is cut short by
 * ENOSPC exactly as on a full disk; `free` gives the space back.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, statfs, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallFilesystem {
  path: string;
  /** Takes all but `leaveBytes` of the free space. */
  fill(leaveBytes: number): Promise<void>;
  /** Gives back what `fill` took. */
  free(): Promise<void>;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `sizeBytes`; returns why not when mounting is impossible here (not root, no tmpfs). */
export async function mountSmallFilesystem(sizeBytes: number): Promise<SmallFilesystem | string> {
  const path = await mkdtemp(join(tmpdir(), "keyspread-small-fs-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes}`, "tmpfs", path], {
    encoding: "utf8",
  });
  if (mounted.status !== 0) {
    await rm(path, { recursive: true, force: true });
    return `cannot mount a tmpfs (needs root): ${mounted.stderr.trim() || mounted.error?.message}`;
  }
  const filler = join(path, "filler");
  return {
    path,
    async fill(leaveBytes) {
      const { bavail, bsize } = await statfs(path);
      await writeFile(filler, Buffer.alloc(Math.max(0, bavail * bsize - leaveBytes)));
    },
    free: () => unlink(filler),
    async unmount() {
      // Lazy: a process of a failed test may still hold a file there; the space goes when it exits.
      spawnSync("umount", ["--lazy", path]);
      await rm(path, { recursive: true, force: true });
    },
  };
}

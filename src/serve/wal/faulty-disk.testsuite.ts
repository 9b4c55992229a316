/**
 * A disk that fails when a test says so, for the write-ahead log (through its one file-system
 * seam, `WalFileSystem`): full in the middle of a write (a torn record on the file), an fsync that
 * fails, a crash at a file's deletion. Everything else is the file system it wraps.
 *
 * The faults are read at each operation: a test sets or clears them while the log runs.
 */
import type { WalFile, WalFileSystem } from "./wal-file-system.js";

export interface DiskFaults {
  /**
   * Asked before each write with its size in bytes: an error fails the write after `written` of
   * its bytes reached the file (a disk that filled up mid-write).
   */
  write?: (bytes: number) => { error: NodeJS.ErrnoException; written?: number } | undefined;
  /** Asked before each fdatasync of a file: an error fails it (the data may not be on the disk). */
  datasync?: () => NodeJS.ErrnoException | undefined;
  /** Asked before a file is deleted: an error leaves it there (as a crash at that moment). */
  remove?: (path: string) => NodeJS.ErrnoException | undefined;
  /** Told of each directory fsync, before it happens. */
  syncingDirectory?: (path: string) => void;
}

/** `inner` with the faults `faults` holds at each call. */
export function faultyDisk(inner: WalFileSystem, faults: DiskFaults): WalFileSystem {
  return {
    ...inner,
    syncDirectory: (path) => {
      faults.syncingDirectory?.(path);
      inner.syncDirectory(path);
    },
    createFile: async (path) => faultyFile(await inner.createFile(path), faults),
    removeFile: async (path) => {
      const fault = faults.remove?.(path);
      if (fault) throw fault;
      await inner.removeFile(path);
    },
  };
}

function faultyFile(inner: WalFile, faults: DiskFaults): WalFile {
  /** Writes the part of `bytes` the fault lets through, then fails; or all of them without a fault. */
  const write = async (bytes: Buffer, position: number, whole: () => Promise<number>) => {
    const fault = faults.write?.(bytes.length);
    if (fault === undefined) return whole();
    const written = Math.min(bytes.length, fault.written ?? 0);
    if (written > 0) await inner.write(bytes.subarray(0, written), position);
    throw fault.error;
  };
  return {
    ...inner,
    writev: (buffers, position) =>
      write(Buffer.concat(buffers), position, () => inner.writev(buffers, position)),
    write: (bytes, position) => write(bytes, position, () => inner.write(bytes, position)),
    datasync: async () => {
      const fault = faults.datasync?.();
      if (fault) throw fault;
      await inner.datasync();
    },
  };
}

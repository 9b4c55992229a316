/**
 * The few file-system operations the write-ahead log makes, as one interface (LevelDB's `Env`):
 * the log runs on Node's file system by default, and a test gives it one that fails where a real
 * disk would — full mid-write, an fsync that fails, a crash at an unlink.
 */
import { mkdir, open, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { syncDirectory } from "../../io/sync-directory.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";

/** A file opened for appending records at positions the log chooses. */
export interface WalFile {
  /** Writes the buffers one after the other at `position`; may write fewer bytes than given (a filling disk). */
  writev(buffers: readonly Buffer[], position: number): Promise<number>;
  /** Writes `bytes` at `position`; returns how many were written. */
  write(bytes: Buffer, position: number): Promise<number>;
  /** Makes the file's data durable (fdatasync). */
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface WalFileSystem {
  /** Creates the directory and its parents, if missing. */
  makeDirectory(path: string): Promise<void>;
  listDirectory(path: string): Promise<string[]>;
  /** Makes the directory's entries (files just created or removed) survive a power loss. */
  syncDirectory(path: string): void;
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, text: string): Promise<void>;
  /** Replaces the file's content all at once and durably (no reader sees half of it, a power loss neither). */
  replaceFileDurably(path: string, text: string): Promise<void>;
  /** Creates a new file (failing with EEXIST if it exists) and opens it for writing. */
  createFile(path: string): Promise<WalFile>;
  /** Deletes a file; a missing one fails with ENOENT. */
  removeFile(path: string): Promise<void>;
}

/** Node's file system. */
export const nodeWalFileSystem: WalFileSystem = {
  makeDirectory: async (path) => {
    await mkdir(path, { recursive: true });
  },
  listDirectory: (path) => readdir(path),
  syncDirectory,
  readFile: (path) => readFile(path),
  writeFile: (path, text) => writeFile(path, text),
  replaceFileDurably: (path, text) => writeFileAtomically(path, text, { durable: true }),
  createFile: async (path) => {
    const handle = await open(path, "wx");
    return {
      writev: async (buffers, position) => (await handle.writev([...buffers], position)).bytesWritten,
      write: async (bytes, position) => (await handle.write(bytes, 0, bytes.length, position)).bytesWritten,
      datasync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
  },
  removeFile: (path) => unlink(path),
};

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { EmbeddedStore } from "../store/embedded/embedded.js";
import { MemoryStore } from "../store/memory/memory.js";
import { shardedTableBehaviour } from "./write-shards.testsuite.js";

describe("a write-sharded table (memory store)", () => {
  shardedTableBehaviour(async () => new MemoryStore());
});

describe("a write-sharded table (embedded store)", async () => {
  const directory = await mkdtemp(join(tmpdir(), "keyspread-shards-"));
  afterAll(() => rm(directory, { recursive: true, force: true }));
  let tables = 0;
  shardedTableBehaviour(() => EmbeddedStore.open({ table: `t${tables++}`, directory }));
});

describe("a write-sharded table (Bigtable emulator)", () => {
  let tables = 0;
  shardedTableBehaviour(() =>
    BigtableStore.createTable({ tableId: `ws${process.pid}_${Date.now().toString(36)}_${tables++}` }),
  );
});

/**
 * How a running `keyspread serve` follows a live migration (`migration-record.ts`): which tables a
 * flush writes and which one device reads come from, per phase (`migration-phases.ts`), switched
 * while the service runs whenever `keyspread migrate advance` changes the record.
 *
 * Applying a phase: the new table is opened first (a failure is reported in the record and tried
 * again, the service staying in its phase); then the routing switches — segments flushed from now
 * on write the new phase's tables — and the service waits until every segment flushed before the
 * switch is written (`IngestPipeline.drain`): only then does it report the phase applied. So once
 * `advance` to dual-write returns, every row the old table will ever get from a single-table flush
 * is in it, and a backfill started then misses nothing.
 *
 * A restarted service reads the record first and starts in its phase (before replaying its log).
 * It also runs the backfill and validation jobs the record asks for, and publishes its cut
 * (`completeBelow`) about once a second while the tables are both written.
 *
 * A record held in the table (`inTable`, `table-migration-record.ts`) is followed by every replica
 * of the table: each polls it, applies its phase the same way, and publishes its status in its own
 * report row (under its replica id) instead of the record's `service` section. Replicas run no
 * backfill or validation then: `keyspread migrate backfill|validate` runs them itself, with a cut
 * per writer (each replica's `completeBelow`).
 */
import { hostname } from "node:os";
import { FileChanges, fileVersion } from "../../io/file-changes.js";
import type { KeySchema } from "../../keys/types.js";
import {
  type MigrationPhase,
  phaseReadSide,
  phaseWriteSides,
  usesOld,
  writesBoth,
} from "../../migrate/live/migration-phases.js";
import {
  type MigrationRecord,
  readMigrationRecord,
  type ServiceStatus,
  updateMigrationRecord,
} from "../../migrate/live/migration-record.js";
import { readTableRecord, writeReplicaReport } from "../../migrate/live/table-migration-record.js";
import { isStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import type { AppProfiles, SaltedTable } from "../../table/salted-table.js";
import type { IngestPipeline } from "../ingest/ingest-pipeline.js";
import { logEvent } from "../observe/service-events.js";
import { checkFollowedRecord, checkSoleFollower } from "./followed-record.js";
import { JobRunner } from "./job-runner.js";
import { MigrationTables } from "./migration-tables.js";

export interface MigrationFollowerOptions {
  /** The record's file (or, `inTable`, the address of the table holding it); it may not exist yet (`migrate begin` creates it while the service runs). */
  file: string;
  /** The record is held in the service's own table (`file` is its address), followed by every replica of it. */
  inTable?: boolean;
  /** The service's own table: the migration's old table. */
  homeStore: Store;
  homeSchema: KeySchema;
  /** Opens the service's table (its schema row checked); not called once the migration is done. */
  openHome: () => Promise<SaltedTable>;
  /** Opens a table of the record by its address (default: `openStoreAt`, never creating an embedded table). */
  openStore?: (address: string) => Promise<Store>;
  appProfiles?: Pick<AppProfiles, "latest" | "scan">;
  walDirectory: string;
  log: (line: string) => void;
  /** How often the cut is published while both tables are written (default 1000 ms). */
  publishEveryMs?: number;
  /** How soon a phase that could not be applied is tried again (default 2000 ms). */
  retryEveryMs?: number;
  /** How often a table-held record is read for changes (default 1000 ms). */
  pollEveryMs?: number;
}

/** The parts of the service a phase change waits for. */
export interface FollowedService {
  pipeline: Pick<
    IngestPipeline,
    "completeBelow" | "drain" | "firstSegmentId" | "openSegmentId" | "replicaId"
  >;
  /** Resolves once a retention sweep under way is over (the old table is closed after it). */
  sweeperIdle?: () => Promise<void>;
}

/** The record `file` (a file, or the address of the table holding it) could not be read at the start: its error is the cause. */
export class UnreadableMigrationRecord extends Error {
  override readonly name = "UnreadableMigrationRecord";
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

export class MigrationFollower {
  private record: MigrationRecord | undefined;
  private phase: MigrationPhase = "single";
  private revision = 0;
  private applied = true;
  private error: string | undefined;
  private readonly tables: MigrationTables;
  private readonly jobs: JobRunner;
  private dualWriteFrom: number | undefined;
  private oldMissesFrom: number | undefined;
  private service: FollowedService | undefined;
  private changes: FileChanges | undefined;
  /** The record file's version when it was read at open: a change before `start` is noticed then. */
  private openedVersion = "missing";
  private publishTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private publishedCut = -1;
  /** Phase changes, one at a time. */
  private applying: Promise<void> = Promise.resolve();
  /** Writes of the record's service section, one at a time. */
  private publishing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly options: MigrationFollowerOptions) {
    this.tables = new MigrationTables(options);
    this.jobs = new JobRunner({
      ...options,
      tables: () => ({ old: this.tableOf("old"), new: this.tableOf("new") }),
      completeBelow: () => this.started.pipeline.completeBelow(),
      closing: () => this.closed,
    });
  }

  /**
   * Reads the record and opens the tables its phase uses (before the log is replayed, so the replay
   * writes where the phase says). A record that names another table, cannot be read, or is
   * followed by another live service on this host stops the start with an error.
   */
  static async open(options: MigrationFollowerOptions): Promise<MigrationFollower> {
    const follower = new MigrationFollower(options);
    const { tables } = follower;
    if (options.inTable && !isStoreAt(options.homeStore.name, parseStoreAddress(options.file))) {
      throw new Error(
        `--migration ${options.file}: a record held in a table lives in the table the replicas write (${options.homeStore.name})`,
      );
    }
    if (!options.inTable) follower.openedVersion = await fileVersion(options.file);
    const record = await follower.readRecord().catch((error: unknown) => {
      throw new UnreadableMigrationRecord(options.file, error);
    });
    if (record === undefined) tables.old = await options.openHome();
    else {
      checkFollowedRecord(record, undefined, options);
      if (!options.inTable) checkSoleFollower(record, options);
      try {
        if (usesOld(record.phase)) tables.old = await options.openHome();
        if (record.phase !== "single") tables.new = await tables.open(record, "new");
      } catch (error) {
        await follower.close();
        throw error;
      }
      follower.record = record;
      follower.phase = record.phase;
      follower.revision = record.revision;
      // A restart keeps the dual-write start of a run that wrote both tables until it stopped: no
      // row was written in between.
      const before = record.service;
      if (before?.dualWriteFrom !== undefined && writesBoth(before.phase) && writesBoth(record.phase))
        follower.dualWriteFrom = before.dualWriteFrom;
      follower.oldMissesFrom = before?.oldMissesFrom;
    }
    return follower;
  }

  /** The tables a flush writes now. */
  writeTables(): SaltedTable[] {
    return phaseWriteSides(this.phase).map((side) => this.tableOf(side));
  }

  /** The table device reads come from now. */
  readTable(): SaltedTable {
    return this.tableOf(phaseReadSide(this.phase));
  }

  /** Starts following: reports the phase applied, then watches the record and runs its jobs. */
  async start(service: FollowedService): Promise<void> {
    this.service = service;
    if (this.record !== undefined) {
      if (writesBoth(this.phase)) this.dualWriteFrom ??= service.pipeline.firstSegmentId;
      await this.publish();
      this.runJobs();
    }
    if (this.options.inTable) {
      this.pollTimer = setInterval(() => void this.reload(), this.options.pollEveryMs ?? 1000);
      this.pollTimer.unref();
    } else this.changes = new FileChanges(this.options.file, this.openedVersion, () => this.reload());
    // The cut matters while both tables are written (validate reads it); then it is kept fresh.
    this.publishTimer = setInterval(() => {
      if (
        this.record !== undefined &&
        writesBoth(this.phase) &&
        service.pipeline.completeBelow() !== this.publishedCut
      )
        void this.publish();
    }, this.options.publishEveryMs ?? 1000);
    this.publishTimer.unref();
  }

  /**
   * Stops following; a backfill under way stays requested and resumes at the next start. Closes
   * the tables it opened, but not the service's own (`closeHome`).
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.publishTimer);
    clearTimeout(this.retryTimer);
    clearInterval(this.pollTimer);
    await this.changes?.close();
    await this.applying;
    await this.jobs.stop("the service is stopping");
    // The last cut: everything flushed at close.
    if (this.record !== undefined && this.service) await this.publish();
    await this.publishing;
    await this.tables.closeAllBut(this.options.homeStore);
  }

  /** Closes the service's own table, unless the migration closed it already (once it was done). */
  closeHome(): Promise<void> {
    return this.tables.closeStore(this.options.homeStore);
  }

  /** The service, once `start` gave it: phases are applied and jobs run only then. */
  private get started(): FollowedService {
    if (this.service === undefined) throw new Error("the migration follower is not started");
    return this.service;
  }

  private tableOf(side: "old" | "new"): SaltedTable {
    return this.tables.of(side, this.phase);
  }

  /** Reads the record again; applies its phase when it changed (or, `retry`, when the last try failed). */
  private reload(retry = false): Promise<void> {
    this.applying = this.applying.then(async () => {
      try {
        await this.reloadNow(retry);
      } catch (error) {
        logEvent(this.options.log, "migration-error", { error: String(error) });
      }
    });
    return this.applying;
  }

  private async reloadNow(retry: boolean): Promise<void> {
    if (this.closed) return;
    let record: MigrationRecord | undefined;
    try {
      record = await this.readRecord();
    } catch (error) {
      logEvent(this.options.log, "migration-unreadable", { error: (error as Error).message });
      return;
    }
    if (record === undefined) {
      if (this.record !== undefined) {
        logEvent(this.options.log, "migration-missing", {
          file: this.options.file,
          message: `the migration record went away; staying in phase ${this.phase}`,
        });
      }
      return;
    }
    if (this.record === undefined || record.revision !== this.revision || (retry && this.error !== undefined))
      await this.apply(record);
    else this.record = record;
    this.runJobs();
  }

  /** Moves to the record's phase; on failure reports why and stays in its phase, trying again every few seconds. */
  private async apply(record: MigrationRecord): Promise<void> {
    const { log } = this.options;
    const { tables } = this;
    const from = this.phase;
    clearTimeout(this.retryTimer);
    try {
      checkFollowedRecord(record, this.record, this.options);
      if (!this.options.inTable) checkSoleFollower(record, this.options);
      if (record.phase !== "single" && tables.new === undefined)
        tables.new = await tables.open(record, "new");
      if (usesOld(record.phase) && tables.old === undefined) tables.old = await tables.open(record, "old");
    } catch (error) {
      const message = (error as Error).message;
      this.revision = record.revision;
      this.applied = false;
      if (message !== this.error) {
        this.error = message;
        logEvent(log, "migration-error", { phase: record.phase, error: message });
        await this.publish();
      }
      this.retryTimer = setTimeout(() => void this.reload(true), this.options.retryEveryMs ?? 2000);
      this.retryTimer.unref();
      return;
    }
    const pipeline = this.started.pipeline;
    const to = record.phase;
    this.record = record;
    this.revision = record.revision;
    this.applied = false;
    this.error = undefined;
    if (writesBoth(to) && !writesBoth(from)) this.dualWriteFrom = pipeline.openSegmentId;
    if (!writesBoth(to)) this.dualWriteFrom = undefined;
    if (phaseWriteSides(from).includes("old") && !phaseWriteSides(to).includes("old"))
      this.oldMissesFrom ??= pipeline.completeBelow();
    this.phase = to;
    if (to !== from) {
      logEvent(log, "migration-phase", { from, to, revision: record.revision });
      await this.publish();
    }
    if (!writesBoth(to)) await this.jobs.stop(`the migration moved to ${to}`);
    // Every segment flushed under the previous phase is written where that phase said.
    await pipeline.drain();
    // A table-held record (and the replicas' registry) lives in the old table: it stays open.
    if (to === "done" && tables.old !== undefined && !this.options.inTable) {
      await this.started.sweeperIdle?.();
      await tables.closeStore(tables.old.store);
      tables.old = undefined;
    }
    this.applied = true;
    await this.publish();
  }

  private publish(): Promise<void> {
    this.publishing = this.publishing
      .then(async () => {
        const pipeline = this.service?.pipeline;
        if (!pipeline) return;
        const completeBelow = pipeline.completeBelow();
        const status: ServiceStatus = {
          pid: process.pid,
          host: hostname(),
          wal: this.options.walDirectory,
          revision: this.revision,
          phase: this.phase,
          applied: this.applied,
          ...(this.error === undefined ? {} : { error: this.error }),
          ...(this.dualWriteFrom === undefined ? {} : { dualWriteFrom: this.dualWriteFrom }),
          ...(this.oldMissesFrom === undefined ? {} : { oldMissesFrom: this.oldMissesFrom }),
          completeBelow,
          updatedAt: new Date().toISOString(),
        };
        if (this.options.inTable)
          await writeReplicaReport(this.options.homeStore, { replica: pipeline.replicaId, ...status });
        else
          await updateMigrationRecord(
            this.options.file,
            (record) => record && { ...record, service: status },
          );
        this.publishedCut = completeBelow;
      })
      .catch((error: unknown) => {
        logEvent(this.options.log, "migration-publish-error", { error: String(error) });
      });
    return this.publishing;
  }

  private readRecord(): Promise<MigrationRecord | undefined> {
    return this.options.inTable
      ? readTableRecord(this.options.homeStore)
      : readMigrationRecord(this.options.file);
  }

  /** Starts the backfill and validation the record asks for, while both tables are written (`migrate backfill|validate` run them for a table-held record). */
  private runJobs(): void {
    const record = this.record;
    if (
      record === undefined ||
      this.options.inTable ||
      this.closed ||
      !this.applied ||
      !writesBoth(this.phase)
    )
      return;
    this.jobs.run(record, this.dualWriteFrom);
  }
}

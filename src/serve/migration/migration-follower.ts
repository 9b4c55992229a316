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
 */
import { hostname } from "node:os";
import { FileChanges, fileVersion } from "../../io/file-changes.js";
import { isAlive } from "../../io/file-lock.js";
import type { KeySchema } from "../../keys/types.js";
import type { MigrationSide } from "../../migrate/dual-write.js";
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
  schemaOf,
  updateMigrationRecord,
} from "../../migrate/live/migration-record.js";
import { checkServiceRekeying } from "../../migrate/live/service-rekeying.js";
import type { Store } from "../../store/store.js";
import { isStoreAt, openStoreAt, parseStoreAddress } from "../../store/store-address.js";
import { type AppProfiles, SaltedTable } from "../../table/salted-table.js";
import type { IngestPipeline } from "../ingest/ingest-pipeline.js";
import { runBackfill, runValidation } from "./migration-jobs.js";

export interface MigrationFollowerOptions {
  /** The record's file; it may not exist yet (`migrate begin` creates it while the service runs). */
  file: string;
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
}

/** The parts of the service a phase change waits for. */
export interface FollowedService {
  pipeline: IngestPipeline;
  /** Resolves once a retention sweep under way is over (the old table is closed after it). */
  sweeperIdle?: () => Promise<void>;
}

interface RunningJob {
  key: string;
  controller: AbortController;
  done: Promise<void>;
}

export class MigrationFollower {
  private record: MigrationRecord | undefined;
  private phase: MigrationPhase = "single";
  private revision = 0;
  private applied = true;
  private error: string | undefined;
  private oldTable: SaltedTable | undefined;
  private newTable: SaltedTable | undefined;
  private dualWriteFrom: number | undefined;
  private oldMissesFrom: number | undefined;
  private service: FollowedService | undefined;
  private changes: FileChanges | undefined;
  /** The record file's version when it was read at open: a change before `start` is noticed then. */
  private openedVersion = "missing";
  private publishTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly closedStores = new Set<Store>();
  private publishedCut = -1;
  /** Phase changes, one at a time. */
  private applying: Promise<void> = Promise.resolve();
  /** Writes of the record's service section, one at a time. */
  private publishing: Promise<void> = Promise.resolve();
  private readonly jobs = new Map<"backfill" | "validation", RunningJob>();
  private closed = false;

  private constructor(private readonly options: MigrationFollowerOptions) {}

  /**
   * Reads the record and opens the tables its phase uses (before the log is replayed, so the replay
   * writes where the phase says). A record that names another table, cannot be read, or is
   * followed by another live service on this host stops the start with an error.
   */
  static async open(options: MigrationFollowerOptions): Promise<MigrationFollower> {
    const follower = new MigrationFollower(options);
    follower.openedVersion = await fileVersion(options.file);
    const record = await readMigrationRecord(options.file);
    if (record === undefined) follower.oldTable = await options.openHome();
    else {
      follower.checkRecord(record);
      follower.checkSoleFollower(record);
      try {
        if (usesOld(record.phase)) follower.oldTable = await options.openHome();
        if (record.phase !== "single") follower.newTable = await follower.openTable(record, "new");
      } catch (error) {
        await follower.abandon();
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
    this.changes = new FileChanges(this.options.file, this.openedVersion, () => this.reload());
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

  /** Stops following; a backfill under way stays requested and resumes at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.publishTimer);
    clearTimeout(this.retryTimer);
    await this.changes?.close();
    await this.applying;
    await this.stopJobs("the service is stopping");
    // The last cut: everything flushed at close.
    if (this.record !== undefined && this.service) await this.publish();
    await this.publishing;
    await this.closeTables();
  }

  private async closeTables(): Promise<void> {
    for (const store of [this.newTable?.store, this.oldTable?.store, this.options.homeStore])
      if (store) await this.closeStore(store);
    this.oldTable = undefined;
    this.newTable = undefined;
  }

  private async closeStore(store: Store): Promise<void> {
    if (this.closedStores.has(store)) return;
    this.closedStores.add(store);
    await store.close();
  }

  /** Stops and closes the stores it opened, but not the service's own (the service failed to start; its caller closes that). */
  async abandon(): Promise<void> {
    this.closedStores.add(this.options.homeStore);
    await this.close();
  }

  private tableOf(side: MigrationSide): SaltedTable {
    const table = side === "old" ? this.oldTable : this.newTable;
    if (table === undefined) throw new Error(`the ${side} table is not open in phase ${this.phase}`);
    return table;
  }

  /** Reads the record again; applies its phase when it changed (or, `retry`, when the last try failed). */
  private reload(retry = false): Promise<void> {
    this.applying = this.applying.then(async () => {
      try {
        await this.reloadNow(retry);
      } catch (error) {
        this.options.log(JSON.stringify({ event: "migration-error", error: String(error) }));
      }
    });
    return this.applying;
  }

  private async reloadNow(retry: boolean): Promise<void> {
    if (this.closed) return;
    let record: MigrationRecord | undefined;
    try {
      record = await readMigrationRecord(this.options.file);
    } catch (error) {
      this.options.log(JSON.stringify({ event: "migration-unreadable", error: (error as Error).message }));
      return;
    }
    if (record === undefined) {
      if (this.record !== undefined) {
        this.options.log(
          JSON.stringify({
            event: "migration-missing",
            file: this.options.file,
            message: `the migration record went away; staying in phase ${this.phase}`,
          }),
        );
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
    const from = this.phase;
    clearTimeout(this.retryTimer);
    try {
      this.checkRecord(record);
      this.checkSoleFollower(record);
      if (record.phase !== "single" && this.newTable === undefined)
        this.newTable = await this.openTable(record, "new");
      if (usesOld(record.phase) && this.oldTable === undefined)
        this.oldTable = await this.openTable(record, "old");
    } catch (error) {
      const message = (error as Error).message;
      this.revision = record.revision;
      this.applied = false;
      if (message !== this.error) {
        this.error = message;
        log(JSON.stringify({ event: "migration-error", phase: record.phase, error: message }));
        await this.publish();
      }
      this.retryTimer = setTimeout(() => void this.reload(true), this.options.retryEveryMs ?? 2000);
      this.retryTimer.unref();
      return;
    }
    const pipeline = this.service!.pipeline;
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
      log(JSON.stringify({ event: "migration-phase", from, to, revision: record.revision }));
      await this.publish();
    }
    if (!writesBoth(to)) await this.stopJobs(`the migration moved to ${to}`);
    // Every segment flushed under the previous phase is written where that phase said.
    await pipeline.drain();
    if (to === "done" && this.oldTable !== undefined) {
      await this.service!.sweeperIdle?.();
      await this.closeStore(this.oldTable.store);
      this.oldTable = undefined;
    }
    this.applied = true;
    await this.publish();
  }

  private async openTable(record: MigrationRecord, side: MigrationSide): Promise<SaltedTable> {
    const ref = record[side];
    // An embedded table is never created here: a missing one was not created yet, or was dropped.
    const open =
      this.options.openStore ??
      ((address: string) => openStoreAt(parseStoreAddress(address), { mustExist: true }));
    return this.tableOn(await open(ref.address), schemaOf(ref, this.options.file));
  }

  private async tableOn(store: Store, schema: KeySchema): Promise<SaltedTable> {
    try {
      return await SaltedTable.open(store, schema, {
        ...(this.options.appProfiles ? { appProfiles: this.options.appProfiles } : {}),
      });
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** The record must name this service's table, with its schema, as the old table, and keep naming the same two tables. */
  private checkRecord(record: MigrationRecord): void {
    const { file, homeStore, homeSchema } = this.options;
    const known = this.record;
    if (known !== undefined) {
      for (const side of ["old", "new"] as const) {
        if (
          known[side].address !== record[side].address ||
          known[side].fingerprint !== record[side].fingerprint
        )
          throw new Error(
            `migration ${file} now names ${record[side].address} (${record[side].fingerprint}) as the ${side} table, not ${known[side].address} (${known[side].fingerprint}); restart the service to follow another migration`,
          );
      }
    }
    if (!isStoreAt(homeStore.name, parseStoreAddress(record.old.address))) {
      throw new Error(
        `migration ${file} moves ${record.old.address} → ${record.new.address}, but this service serves ${homeStore.name}; ` +
          "give this service its own --migration file",
      );
    }
    if (record.old.fingerprint !== homeSchema.fingerprint) {
      throw new Error(
        `migration ${file} records the old table's schema as ${record.old.fingerprint}, but this service writes ${homeSchema.fingerprint} (check --buckets and --interval)`,
      );
    }
    checkServiceRekeying(homeSchema, schemaOf(record.new, file));
  }

  /** Two services following one record would overwrite each other's reports. */
  private checkSoleFollower(record: MigrationRecord): void {
    const other = record.service;
    if (
      other !== undefined &&
      other.pid !== process.pid &&
      other.host === hostname() &&
      other.wal !== this.options.walDirectory &&
      isAlive(other.pid)
    ) {
      throw new Error(
        `migration ${this.options.file} is followed by another service (process ${other.pid}, log ${other.wal}); give each service its own --migration file`,
      );
    }
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
        await updateMigrationRecord(this.options.file, (record) => record && { ...record, service: status });
        this.publishedCut = completeBelow;
      })
      .catch((error: unknown) => {
        this.options.log(JSON.stringify({ event: "migration-publish-error", error: String(error) }));
      });
    return this.publishing;
  }

  /** Starts the backfill and validation the record asks for, while both tables are written. */
  private runJobs(): void {
    const record = this.record;
    if (record === undefined || this.closed || !this.applied || !writesBoth(this.phase)) return;
    const { backfill, validation } = record;
    if (
      backfill &&
      (backfill.state === "requested" || backfill.state === "running") &&
      backfill.dualWriteFrom === this.dualWriteFrom &&
      !this.jobs.has("backfill")
    ) {
      this.startJob("backfill", backfill.checkpoint, (signal) => this.backfill(signal));
    }
    if (
      validation &&
      (validation.state === "requested" || validation.state === "running") &&
      this.jobs.get("validation")?.key !== validation.id
    ) {
      this.jobs.get("validation")?.controller.abort(new Error("a newer validation was requested"));
      this.startJob("validation", validation.id, (signal) => this.validate(validation.id, signal));
    }
  }

  private startJob(
    kind: "backfill" | "validation",
    key: string,
    work: (signal: AbortSignal) => Promise<void>,
  ): void {
    const controller = new AbortController();
    const done = work(controller.signal)
      .catch((error: unknown) => {
        this.options.log(JSON.stringify({ event: `migration-${kind}-error`, error: String(error) }));
      })
      .finally(() => {
        if (this.jobs.get(kind)?.controller === controller) this.jobs.delete(kind);
      });
    this.jobs.set(kind, { key, controller, done });
  }

  private async stopJobs(reason: string): Promise<void> {
    for (const job of this.jobs.values()) job.controller.abort(new Error(reason));
    await Promise.all([...this.jobs.values()].map((job) => job.done));
  }

  private async backfill(signal: AbortSignal): Promise<void> {
    const file = this.options.file;
    const period = this.dualWriteFrom;
    const reverse = this.record?.backfill?.reverse ?? false;
    const current = (record: MigrationRecord | undefined) => {
      const job = record?.backfill;
      return job !== undefined && job.dualWriteFrom === period && (job.reverse ?? false) === reverse
        ? job
        : undefined;
    };
    const started = await updateMigrationRecord(file, (record) => {
      const job = current(record);
      if (job === undefined || record === undefined) return record;
      job.state = "running";
      job.runs += 1;
      job.updatedAt = new Date().toISOString();
      return record;
    });
    const job = current(started);
    if (job === undefined) return;
    this.options.log(
      JSON.stringify({ event: "migration-backfill", state: "running", run: job.runs, reverse }),
    );
    const tables = { old: this.tableOf("old"), new: this.tableOf("new") };
    let lastReport = 0;
    const report = (changes: Partial<typeof job>) =>
      updateMigrationRecord(file, (record) => {
        const latest = current(record);
        if (latest === undefined || record === undefined) return record;
        Object.assign(latest, changes, { updatedAt: new Date().toISOString() });
        return record;
      });
    try {
      const result = await runBackfill(tables, job, signal, (progress) => {
        if (Date.now() - lastReport < 1000) return;
        lastReport = Date.now();
        void report({ rowsRead: progress.rowsRead, rowsWritten: progress.rowsWritten }).catch(() => {});
      });
      await report({ state: "complete", rowsRead: result.rowsRead, rowsWritten: result.rowsWritten });
      this.options.log(
        JSON.stringify({ event: "migration-backfill", state: "complete", rowsRead: result.rowsRead }),
      );
    } catch (error) {
      // Stopping the service leaves it running: the next start resumes it from its checkpoint.
      if (signal.aborted && this.closed) return;
      await report({ state: "failed", error: signal.aborted ? String(signal.reason) : String(error) });
      throw error;
    }
  }

  private async validate(id: string, signal: AbortSignal): Promise<void> {
    const file = this.options.file;
    const pipeline = this.service!.pipeline;
    const cut = pipeline.completeBelow();
    const dualWriteFrom = this.dualWriteFrom;
    const reportFile = `${file}.validation-${id}.jsonl`;
    const update = (change: (job: NonNullable<MigrationRecord["validation"]>) => void) =>
      updateMigrationRecord(file, (record) => {
        if (record?.validation?.id !== id) return record;
        change(record.validation);
        record.validation.updatedAt = new Date().toISOString();
        return record;
      });
    const started = await update((job) => {
      job.state = "running";
      job.cut = cut;
      if (dualWriteFrom !== undefined) job.dualWriteFrom = dualWriteFrom;
      job.report = reportFile;
    });
    const job = started?.validation;
    if (job?.id !== id) return;
    try {
      const tables = { old: this.tableOf("old"), new: this.tableOf("new") };
      const result = await runValidation(tables, { ...job, report: reportFile }, cut, signal);
      await update((latest) => {
        latest.state = "complete";
        latest.differences = result.differences;
        latest.summary = result.summary;
      });
      this.options.log(
        JSON.stringify({ event: "migration-validation", id, differences: result.differences, cut }),
      );
    } catch (error) {
      if (signal.aborted && this.closed) return;
      await update((latest) => {
        latest.state = "failed";
        latest.error = signal.aborted ? String(signal.reason) : String(error);
      });
      throw error;
    }
  }
}

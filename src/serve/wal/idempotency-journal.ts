/**
 * The Idempotency-Keys of requests whose log segments have been flushed and deleted: a small
 * LevelDB beside the segments (`<wal>/idempotency`), written with a synced batch before a segment
 * is deleted, so a key outlives its segment and a restart. Entries expire after the window; a
 * time index (`t\0<atMs>\0<key>`) finds the expired ones without reading the live ones.
 *
 * A write that failed (a full disk) may leave part of its record in LevelDB's log, misframing every
 * later one: the journal reopens LevelDB before its next write. It is therefore not the claim on
 * the log directory (that is `<wal>/lock`, see write-ahead-log.ts).
 */
import { ClassicLevel } from "classic-level";

export interface IdempotencyRecord {
  /** The key, scoped by tenant (see `scopedIdempotencyKey`). */
  key: string;
  /** SHA-256 of the request (format and body): the same key with another body is refused. */
  fingerprint: string;
  /** Points the request was acknowledged for: a retry is answered the same. */
  accepted: number;
  /** When the request was acknowledged (epoch ms): the key is remembered for a window from here. */
  atMs: number;
}

const KEY = "k\0";
const TIME = "t\0";
const timeKey = (record: IdempotencyRecord) =>
  `${TIME}${String(record.atMs).padStart(13, "0")}\0${record.key}`;

export class IdempotencyJournal {
  /** Set by a failed write: LevelDB's log may end in part of it, misframing every later record; reopened before the next. */
  private untrusted = false;
  /** Writes run one at a time, so a reopen never closes the handle under another write. */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: ClassicLevel<string, string>) {}

  /** Opens (creating) the journal; fails with LevelDB's LEVEL_LOCKED cause when another service holds it. */
  static async open(location: string): Promise<IdempotencyJournal> {
    const db = new ClassicLevel<string, string>(location);
    await db.open();
    return new IdempotencyJournal(db);
  }

  get(key: string): IdempotencyRecord | undefined {
    const value = this.db.getSync(KEY + key);
    return value === undefined ? undefined : (JSON.parse(value) as IdempotencyRecord);
  }

  /** Records the keys durably (one synced write). */
  async put(records: readonly IdempotencyRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.write(async () => {
      const batch = this.db.batch();
      for (const record of records) {
        batch.put(KEY + record.key, JSON.stringify(record));
        batch.put(timeKey(record), "");
      }
      await batch.write({ sync: true });
    });
  }

  /** Forgets every key acknowledged before `beforeMs`; returns how many. */
  async expire(beforeMs: number): Promise<number> {
    const stale: string[] = [];
    for await (const key of this.db.keys({ gte: TIME, lt: `${TIME}${String(beforeMs).padStart(13, "0")}` })) {
      stale.push(key);
    }
    if (stale.length === 0) return 0;
    await this.write(async () => {
      const batch = this.db.batch();
      for (const key of stale) {
        batch.del(key);
        const scoped = key.slice(TIME.length + 14);
        // A key reused after it expired has a newer entry: keep that one.
        const current = this.get(scoped);
        if (current !== undefined && timeKey(current) === key) batch.del(KEY + scoped);
      }
      await batch.write();
    });
    return stale.length;
  }

  /** One batch, on a handle reopened first when an earlier write failed (see `untrusted`). */
  private write(batch: () => Promise<void>): Promise<void> {
    const run = this.writing.then(async () => {
      try {
        if (this.untrusted) {
          await this.db.close();
          await this.db.open();
          this.untrusted = false;
        }
        await batch();
      } catch (error) {
        this.untrusted = true;
        throw error;
      }
    });
    this.writing = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.db.close();
  }
}

/**
 * Cloud Bigtable through the official client. Keys, ranges and values stay Buffers end to end
 * (the client's string handling corrupts binary keys); reads are ReadRows calls on its generated
 * data client with our own chunk decoder (`bigtable-read-rows.ts`). A row's cells are
 * qualifiers of one column family (the store's); other families belong to other code and are
 * never read or written, except by a whole-row delete. A put sets its cells as new versions
 * (SetCell, stamped with the time of the write unless the put names its versions; `replace`
 * clears the family first, atomic per row) and reads keep only the newest version (with its
 * timestamp when asked). Each request may name its app profile. Honours BIGTABLE_EMULATOR_HOST.
 */
import type { Bigtable, BigtableOptions, Table } from "@google-cloud/bigtable";
import { importOptionalPackage } from "../../io/optional-package.js";
import {
  AbstractStore,
  type CheckedReadOptions,
  type CheckedRoutingOptions,
  type CheckedWriteOptions,
} from "../abstract-store.js";
import { evenlySpaced } from "../sample.js";
import {
  type CellCondition,
  type FlowControlSignal,
  type KeyRange,
  RetryableStoreError,
  StoreArgumentError,
  type StoreMutation,
  type StoreRow,
  type StoreWriteResult,
} from "../store.js";
import { BIGTABLE_MAX_KEY_BYTES, checkKey, MAX_INITIAL_SPLITS } from "../validate.js";
import {
  latestCellsOf,
  type ReadRowsRequest,
  readRows,
  readRowsOn,
  rowRange,
  type StartReadRows,
} from "./bigtable-read-rows.js";
import {
  checkMutateRowsLimits,
  codeName,
  DEFAULT_MUTATE_ROWS_LIMITS,
  type DecodedRateLimitInfo,
  FLOW_CONTROL_FEATURES,
  flowControlSignalOf,
  type MutateEntry,
  type MutateRowsLimits,
  mutateRows,
  RETRYABLE_CODES,
  type SendMutateRows,
} from "./mutate-rows.js";
import { rowSetChunks } from "./row-set-chunks.js";

export interface BigtableStoreOptions {
  /** Default: KEYSPREAD_BIGTABLE_PROJECT; on the emulator `keyspread`. */
  projectId?: string;
  /** Default: KEYSPREAD_BIGTABLE_INSTANCE; on the emulator `keyspread`. */
  instanceId?: string;
  /** Default: KEYSPREAD_BIGTABLE_TABLE. */
  tableId?: string;
  /**
   * Default: KEYSPREAD_BIGTABLE_APP_PROFILE, else the instance's default profile. A read or write
   * that names its own profile (`appProfile`) overrides it.
   */
  appProfileId?: string;
  /** Column family holding the cells. Default: KEYSPREAD_BIGTABLE_FAMILY, else `m`. */
  family?: string;
  /** Resumptions of a read call broken by a retryable status before the read fails (default 10, the official client's). */
  readRetries?: number;
  /** Request sizing, in-flight cap and retry policy for writes. */
  limits?: Partial<MutateRowsLimits>;
  /** Passed to `new Bigtable()` (credentials, endpoints…). */
  clientOptions?: BigtableOptions;
  /** Environment to read the defaults from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

export interface CreateBigtableTableOptions extends BigtableStoreOptions {
  /** Versions of each cell to keep (garbage-collection rule; default 1: reads use the newest). */
  maxVersions?: number;
  /** Garbage-collect cells older than this (the fleet incident's retention), besides the version rule. */
  maxAgeSeconds?: number;
  /**
   * Initial split keys: the table starts as one tablet per range between them (a salted table's
   * bucket boundaries, as Phoenix pre-splits), instead of one tablet that splits under load.
   */
  splits?: readonly Buffer[];
  /**
   * Bigtable's row key schema (`Table.row_key_schema`, proto JSON: fields and encoding), so
   * GoogleSQL for Bigtable reads the key's parts as columns (keyspread's `rowKeySchemaFor`).
   */
  rowKeySchema?: RowKeySchemaProto;
}

/** google.bigtable.admin.v2.Type.Struct as the client's protobuf objects take it. */
export interface RowKeySchemaProto {
  fields: { fieldName: string; type: Record<string, unknown> }[];
  encoding: Record<string, unknown>;
}

export const DEFAULT_BIGTABLE_FAMILY = "m";

export interface ResolvedConfig {
  projectId: string;
  instanceId: string;
  tableId: string;
  appProfileId: string | undefined;
  family: string;
  onEmulator: boolean;
}

const DEFAULT_READ_RETRIES = 10;

export class BigtableStore extends AbstractStore {
  readonly name: string;

  /** Every read's cell filter (built once: the client encodes it per call). */
  private readonly cellFilter: object;
  /** The last write timestamp (see nextTimestampMicros). */
  private lastTimestampMicros = 0;

  private constructor(
    private readonly client: Bigtable,
    private readonly table: Table,
    private readonly config: ResolvedConfig,
    private readonly limits: MutateRowsLimits,
    private readonly readRetries: number,
    private readonly startReadRows: StartReadRows,
  ) {
    super();
    this.name = `bigtable:${config.projectId}/${config.instanceId}/${config.tableId}`;
    this.cellFilter = latestCellsOf(config.family);
  }

  /** The column family this store reads and writes. */
  get family(): string {
    return this.config.family;
  }

  /** Opens an existing table (no admin call: data-only credentials suffice). */
  static async open(options: BigtableStoreOptions = {}): Promise<BigtableStore> {
    const config = resolveConfig(options);
    const limits = { ...DEFAULT_MUTATE_ROWS_LIMITS, ...options.limits };
    checkMutateRowsLimits(limits);
    const { readRetries = DEFAULT_READ_RETRIES } = options;
    if (!(Number.isSafeInteger(readRetries) && readRetries >= 0)) {
      throw new StoreArgumentError(
        "readRetries",
        readRetries,
        "an integer ≥ 0",
        `readRetries is ${readRetries}; allowed: an integer ≥ 0`,
      );
    }
    // The emulator needs no credentials; without this, Google's auth library probes for a GCE
    // metadata server and prints a MetadataLookupWarning on every command.
    if (config.onEmulator) process.env.METADATA_SERVER_DETECTION ??= "none";
    // An optional peer dependency: loaded here, so `keyspread/store` imports without it.
    const { Bigtable, v2 } = await importOptionalPackage(
      "@google-cloud/bigtable",
      () => import("@google-cloud/bigtable"),
    );
    const client = new Bigtable({
      projectId: config.projectId,
      // Client-side metrics go to Cloud Monitoring: nothing to report to on the emulator.
      ...(config.onEmulator ? { metricsEnabled: false } : {}),
      ...(config.appProfileId === undefined ? {} : { appProfileId: config.appProfileId }),
      ...options.clientOptions,
    });
    const table = client.instance(config.instanceId).table(config.tableId);
    return new BigtableStore(
      client,
      table,
      config,
      limits,
      readRetries,
      readRowsOn(client, v2.BigtableClient),
    );
  }

  /** Creates the table with its column family, GC rule and initial splits, then opens it. */
  static async createTable(options: CreateBigtableTableOptions = {}): Promise<BigtableStore> {
    const { maxAgeSeconds, maxVersions = 1, splits = [] } = options;
    if (maxAgeSeconds !== undefined && !(Number.isSafeInteger(maxAgeSeconds) && maxAgeSeconds > 0)) {
      throw new StoreArgumentError(
        "maxAgeSeconds",
        maxAgeSeconds,
        "a positive integer",
        `maxAgeSeconds is ${maxAgeSeconds}; allowed: a positive integer`,
      );
    }
    if (!(Number.isSafeInteger(maxVersions) && maxVersions > 0)) {
      throw new StoreArgumentError(
        "maxVersions",
        maxVersions,
        "a positive integer",
        `maxVersions is ${maxVersions}; allowed: a positive integer`,
      );
    }
    checkSplits(splits);
    const store = await BigtableStore.open(options);
    const rule =
      maxAgeSeconds === undefined
        ? { versions: maxVersions }
        : { age: { seconds: maxAgeSeconds }, versions: maxVersions, union: true };
    try {
      if (options.rowKeySchema) {
        await createWithRowKeySchema(store.client, store.config, rule, splits, options.rowKeySchema);
      } else {
        await store.client.instance(store.config.instanceId).createTable(store.config.tableId, {
          families: [{ name: store.config.family, rule }],
          ...(splits.length > 0 ? { splits: splits as unknown as string[] } : {}),
        });
      }
    } catch (error) {
      await store.close();
      throw new CreateTableError(store.name, error);
    }
    return store;
  }

  protected async _write(
    mutations: readonly StoreMutation[],
    options: CheckedWriteOptions,
  ): Promise<StoreWriteResult> {
    const appProfileId = options.appProfile ?? this.config.appProfileId;
    // One timestamp per batch makes retries idempotent (a re-sent cell overwrites itself).
    const timestampMicros = this.nextTimestampMicros();
    return mutateRows(
      mutations,
      (mutation) => ({ rowKey: mutation.key, mutations: this.mutationsOf(mutation, timestampMicros) }),
      (entries) => this.sendMutateRows(entries, appProfileId, options.batchWriteFlowControl),
      this.limits,
    );
  }

  /**
   * One CheckAndMutateRow: the predicate keeps the condition's cell, newest version only, and (when
   * a value is expected) only if its value is exactly that (a value range closed at both ends: bytes
   * compared, no regular expression to escape). The mutation goes in the branch that means "holds".
   */
  protected async _checkAndMutate(
    mutation: StoreMutation,
    condition: CellCondition,
    options: CheckedRoutingOptions,
  ): Promise<boolean> {
    const appProfileId = options.appProfile ?? this.config.appProfileId;
    const familyName = this.config.family;
    const qualifier = Buffer.from(condition.qualifier);
    const cell = [
      {
        columnRangeFilter: { familyName, startQualifierClosed: qualifier, endQualifierClosed: qualifier },
      },
      { cellsPerColumnLimitFilter: 1 },
    ];
    const { equals } = condition;
    const predicateFilter = {
      chain: {
        filters:
          equals === null
            ? cell
            : [...cell, { valueRangeFilter: { startValueClosed: equals, endValueClosed: equals } }],
      },
    };
    const mutations = this.mutationsOf(mutation, this.nextTimestampMicros());
    const response = await new Promise<{ predicateMatched?: boolean }>((resolve, reject) =>
      this.client.request<{ predicateMatched?: boolean }>(
        {
          client: "BigtableClient",
          method: "checkAndMutateRow",
          reqOpts: {
            tableName: this.table.name,
            ...(appProfileId === undefined ? {} : { appProfileId }),
            rowKey: mutation.key,
            predicateFilter,
            ...(equals === null ? { falseMutations: mutations } : { trueMutations: mutations }),
          },
          gaxOpts: {},
          // Not idempotent: a lost answer is the caller's to resolve by reading the row.
          retryOpts: { currentRetryAttempt: 0, noResponseRetries: 0, shouldRetryFn: () => false },
        },
        (error, answer) => (error ? reject(this.storeError("checkAndMutate", error)) : resolve(answer ?? {})),
      ),
    );
    return response.predicateMatched === true ? equals !== null : equals === null;
  }

  protected async _get(key: Buffer, options: CheckedRoutingOptions): Promise<StoreRow | undefined> {
    // Read to the end rather than return at the row: an early return cancels the call.
    let found: StoreRow | undefined;
    for await (const row of this.stream({ rowKeys: [key] }, options.appProfile, {})) found = row;
    return found;
  }

  protected _read(ranges: readonly KeyRange[], options: CheckedReadOptions): AsyncIterable<StoreRow> {
    const { limit, appProfile } = options;
    // The API reads the whole table for an empty row set and treats limit 0 as "none".
    if (ranges.length === 0 || limit === 0) return (async function* () {})();
    const chunks = rowSetChunks(ranges);
    const streamOf = (chunk: readonly KeyRange[], rowsLimit: number) =>
      this.stream({ rowRanges: chunk.map(rowRange) }, appProfile, {
        ...(Number.isFinite(rowsLimit) ? { rowsLimit } : {}),
        signal: options.signal,
        cellTimestamps: options.cellTimestamps,
      });
    if (chunks.length === 1) return streamOf(ranges, limit);
    // More ranges than one request should carry: consecutive requests, the limit spanning them all.
    return (async function* () {
      let remaining = limit;
      for (const chunk of chunks) {
        for await (const row of streamOf(chunk, remaining)) {
          yield row;
          remaining--;
        }
        if (remaining <= 0) return;
      }
    })();
  }

  protected async _sampleKeys(count: number): Promise<Buffer[]> {
    const [samples] = await this.table.sampleRowKeys().catch((error: unknown) => {
      throw this.storeError("sampleRowKeys", error);
    });
    const keys = samples.map((sample) => Buffer.from(sample.key as Buffer)).filter((key) => key.length > 0);
    return evenlySpaced(keys.length, count).map((i) => keys[i]!);
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** Drops the whole table (an admin call): only for a table its caller created, such as a load test's. */
  async deleteTable(): Promise<void> {
    await this.table.delete();
  }

  /** Versions never go back in time, even if the clock does. */
  private nextTimestampMicros(): number {
    this.lastTimestampMicros = Math.max(Date.now() * 1000, this.lastTimestampMicros);
    return this.lastTimestampMicros;
  }

  /** A store mutation as Bigtable mutations of one row, its cells stamped `timestampMicros` unless it names their versions. */
  private mutationsOf(mutation: StoreMutation, timestampMicros: number): MutateEntry["mutations"] {
    const familyName = this.config.family;
    if (mutation.type === "delete") {
      return mutation.qualifiers === undefined
        ? [{ deleteFromRow: {} }]
        : mutation.qualifiers.map((qualifier) => ({
            deleteFromColumn: { familyName, columnQualifier: Buffer.from(qualifier) },
          }));
    }
    const versions = mutation.timestamps;
    const cells = [...mutation.cells].map(([qualifier, value]) => ({
      setCell: {
        familyName,
        columnQualifier: Buffer.from(qualifier),
        timestampMicros: versions?.get(qualifier) ?? timestampMicros,
        value,
      },
    }));
    return mutation.replace ? [{ deleteFromFamily: { familyName } }, ...cells] : cells;
  }

  private stream(
    rows: ReadRowsRequest["rows"],
    appProfile: string | undefined,
    options: { rowsLimit?: number; signal?: AbortSignal | undefined; cellTimestamps?: boolean | undefined },
  ): AsyncIterableIterator<StoreRow> {
    const { rowsLimit, signal, cellTimestamps } = options;
    const appProfileId = appProfile ?? this.config.appProfileId;
    const request: ReadRowsRequest = {
      tableName: this.table.name,
      ...(appProfileId === undefined ? {} : { appProfileId }),
      rows,
      ...(rowsLimit === undefined ? {} : { rowsLimit }),
      filter: this.cellFilter,
    };
    return readRows(this.startReadRows, request, {
      family: this.config.family,
      retries: this.readRetries,
      signal,
      cellTimestamps,
      failure: (error) => this.storeError("read", error),
    });
  }

  /** With `flowControl`, announces batch write flow control and reports each response's RateLimitInfo. */
  private sendMutateRows(
    entries: Parameters<SendMutateRows>[0],
    appProfileId: string | undefined,
    flowControl: boolean,
  ): ReturnType<SendMutateRows> {
    return new Promise((resolve) => {
      const statuses: ({ code: number; message: string } | undefined)[] = new Array(entries.length);
      const signals: FlowControlSignal[] | undefined = flowControl ? [] : undefined;
      const request = this.client.request({
        client: "BigtableClient",
        method: "mutateRows",
        reqOpts: {
          tableName: this.table.name,
          appProfileId,
          entries,
        },
        gaxOpts: flowControl
          ? { otherArgs: { headers: { "bigtable-features": FLOW_CONTROL_FEATURES } } }
          : {},
        // Retries are ours (per entry); the transport must not replay the whole request.
        retryOpts: { currentRetryAttempt: 0, noResponseRetries: 0, shouldRetryFn: () => false },
      });
      request.on(
        "data",
        (response: {
          entries: { index: number | string; status: { code: number; message: string } }[];
          rateLimitInfo?: DecodedRateLimitInfo | null;
        }) => {
          for (const entry of response.entries) {
            statuses[Number(entry.index)] = { code: entry.status.code, message: entry.status.message };
          }
          signals?.push(flowControlSignalOf(response.rateLimitInfo));
        },
      );
      const answer = (error?: { code?: number; message: string }) => ({
        statuses,
        ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
        ...(signals === undefined ? {} : { flowControl: signals }),
      });
      request.on("error", (error: { code?: number; message: string }) => resolve(answer(error)));
      request.on("end", () => resolve(answer()));
    });
  }

  private storeError(operation: string, error: unknown): Error {
    const code = (error as { code?: unknown }).code;
    return typeof code === "number" && RETRYABLE_CODES.has(code)
      ? new RetryableStoreError(`${this.name}: ${operation} failed: ${describeError(error)}`, {
          cause: error,
        })
      : new BigtableCallError(this.name, operation, error);
  }
}

/**
 * A Bigtable call failed for good (not a status worth retrying): which store, which operation, and
 * the gRPC status name (`NOT_FOUND`…) when the call got one.
 */
export class BigtableCallError extends Error {
  override readonly name = "BigtableCallError";
  readonly status: string | undefined;
  constructor(
    readonly store: string,
    readonly operation: string,
    cause: unknown,
  ) {
    super(`${store}: ${operation} failed: ${describeError(cause)}`, { cause });
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.status = typeof code === "number" ? codeName(code) : undefined;
  }
}

/** A connection setting given neither as an option (`field`) nor in the environment (`variable`). */
export class MissingBigtableSettingError extends Error {
  override readonly name = "MissingBigtableSettingError";
  constructor(
    readonly field: string,
    readonly variable: string,
  ) {
    super(`Bigtable ${field} is missing: pass ${field} or set ${variable}`);
  }
}

/** CreateTable failed; `exists` when the table is already there (open it, or adopt it from the CLI). */
export class CreateTableError extends Error {
  override readonly name = "CreateTableError";
  /** The gRPC status code, when the call got one. */
  readonly code: number | undefined;
  readonly exists: boolean;
  constructor(
    readonly store: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: unknown }).code;
    const exists = code === 6;
    super(
      `cannot create ${store}: ${describeError(cause)}${exists ? " (to use the existing table, open it; the CLI: table create --adopt)" : ""}`,
      { cause },
    );
    this.code = typeof code === "number" ? code : undefined;
    this.exists = exists;
  }
}

/** The project, instance, table, profile and family: options, else the environment, else the emulator's defaults. */
export function resolveConfig(options: BigtableStoreOptions): ResolvedConfig {
  const env = options.env ?? process.env;
  const onEmulator = Boolean(env.BIGTABLE_EMULATOR_HOST);
  const pick = (
    value: string | undefined,
    variable: string,
    emulatorDefault: string | undefined,
    field: string,
  ) => {
    const chosen = value ?? env[variable] ?? (onEmulator ? emulatorDefault : undefined);
    if (chosen === undefined || chosen === "") {
      throw new MissingBigtableSettingError(field, variable);
    }
    return chosen;
  };
  const family = options.family ?? (env.KEYSPREAD_BIGTABLE_FAMILY || DEFAULT_BIGTABLE_FAMILY);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(family)) {
    throw new TypeError(`family ${JSON.stringify(family)} is not valid; allowed: 1-64 of A-Z a-z 0-9 _ -`);
  }
  return {
    projectId: pick(options.projectId, "KEYSPREAD_BIGTABLE_PROJECT", "keyspread", "projectId"),
    instanceId: pick(options.instanceId, "KEYSPREAD_BIGTABLE_INSTANCE", "keyspread", "instanceId"),
    tableId: pick(options.tableId, "KEYSPREAD_BIGTABLE_TABLE", undefined, "tableId"),
    appProfileId: options.appProfileId ?? (env.KEYSPREAD_BIGTABLE_APP_PROFILE || undefined),
    family,
    onEmulator,
  };
}

/** Split keys must be row keys in ascending order, no more than MAX_INITIAL_SPLITS. */
function checkSplits(splits: readonly Buffer[]): void {
  if (splits.length > MAX_INITIAL_SPLITS) {
    const allowed = `at most ${MAX_INITIAL_SPLITS} keys`;
    throw new StoreArgumentError(
      "splits",
      splits.length,
      allowed,
      `splits has ${splits.length} keys; allowed: ${allowed}`,
    );
  }
  splits.forEach((split, i) => {
    checkKey(split, `splits[${i}]`, BIGTABLE_MAX_KEY_BYTES);
    if (i > 0 && Buffer.compare(splits[i - 1]!, split) >= 0) {
      throw new StoreArgumentError(
        `splits[${i}]`,
        split,
        "split keys in ascending order",
        `splits[${i}] is not after splits[${i - 1}]; split keys must ascend`,
      );
    }
  });
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? `${codeName(code)}: ${error.message}` : error.message;
}

/**
 * CreateTable with a row key schema: the client's `Instance#createTable` drops options it does
 * not know, so the request is built here as it builds it (granularity, families with their GC
 * rule, initial splits) plus `rowKeySchema`, and sent through the same client.
 */
function createWithRowKeySchema(
  client: Bigtable,
  config: ResolvedConfig,
  rule: { versions: number; age?: { seconds: number }; union?: boolean },
  splits: readonly Buffer[],
  rowKeySchema: RowKeySchemaProto,
): Promise<void> {
  const versions = { maxNumVersions: rule.versions };
  const gcRule =
    rule.age === undefined
      ? versions
      : { union: { rules: [{ maxAge: { seconds: rule.age.seconds } }, versions] } };
  const reqOpts = {
    parent: `projects/${config.projectId}/instances/${config.instanceId}`,
    tableId: config.tableId,
    table: { granularity: 0, columnFamilies: { [config.family]: { gcRule } }, rowKeySchema },
    ...(splits.length > 0 ? { initialSplits: splits.map((key) => ({ key })) } : {}),
  };
  return new Promise((resolve, reject) => {
    client.request({ client: "BigtableTableAdminClient", method: "createTable", reqOpts }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

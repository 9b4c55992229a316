/**
 * The heavy packages only some uses need are optional peer dependencies: `npm install keyspread`
 * leaves them out, and the code that needs one imports it on use through here, so a missing one
 * fails naming the package, what needs it and the command that installs it — not with Node's bare
 * "Cannot find package".
 */

/** Each optional peer dependency and what in keyspread needs it (docs/dependencies.md has the same table). */
export const OPTIONAL_PACKAGES = {
  "@google-cloud/bigtable":
    "the Cloud Bigtable store (openStore, BigtableStore, --store bigtable) and diagnose",
  "@duckdb/node-api": "export to Parquet or DuckDB (exportTable, keyspread export)",
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

export class MissingPackageError extends Error {
  override readonly name = "MissingPackageError";
  readonly installCommand: string;
  constructor(
    readonly packageName: OptionalPackage,
    options?: ErrorOptions,
  ) {
    const installCommand = `npm install ${packageName}`;
    super(
      `package ${packageName} is not installed; keyspread loads it for ${OPTIONAL_PACKAGES[packageName]} (an optional peer dependency). Install it: ${installCommand}`,
      options,
    );
    this.installCommand = installCommand;
  }
}

/**
 * `load()` — an `import()` of `packageName` — or a MissingPackageError when that package is not
 * installed. Any other failure (one of the package's own dependencies missing, an error while it
 * loads) is passed on as it is.
 */
export async function importOptionalPackage<Module>(
  packageName: OptionalPackage,
  load: () => Promise<Module>,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPackage(error, packageName)) throw new MissingPackageError(packageName, { cause: error });
    throw error;
  }
}

/** Node's `Cannot find package '<name>' imported from …` for this package itself. */
function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === "ERR_MODULE_NOT_FOUND" &&
    typeof message === "string" &&
    message.includes(`Cannot find package '${packageName}'`)
  );
}

/**
 * Cells as JSON, for the CLI and exports: a value that is UTF-8 text is a JSON string, any other
 * value is `{"hex": "…"}` — so a text value that happens to read `hex:41` stays distinguishable.
 * Input takes the same forms (and numbers, written as their text).
 */

export type CellJson = string | { hex: string };

const UTF8 = new TextDecoder("utf-8", { fatal: true });

export function cellsToJson(cells: ReadonlyMap<string, Buffer>): Record<string, CellJson> {
  // No prototype: a cell named "__proto__" is a cell like any other, not the object's prototype.
  const out: Record<string, CellJson> = Object.create(null);
  for (const [name, value] of cells) {
    try {
      out[name] = UTF8.decode(value);
    } catch {
      out[name] = { hex: value.toString("hex") };
    }
  }
  return out;
}

/**
 * Cells that are not `{name: text | number | {"hex": "…"}}`: `cell` is the cell's name (undefined
 * when the cells are not an object at all), `value` what was given.
 */
export class CellsJsonError extends Error {
  override readonly name = "CellsJsonError";
  constructor(
    readonly cell: string | undefined,
    readonly value: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** Cells from `{name: text | number | {"hex": "…"}}`; errors name the cell and the allowed forms. */
export function cellsFromJson(input: unknown): Map<string, Buffer> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new CellsJsonError(
      undefined,
      input,
      'cells must be an object of name → text, number or {"hex": "…"}',
    );
  }
  const cells = new Map<string, Buffer>();
  for (const [name, value] of Object.entries(input)) {
    if (name === "") throw new CellsJsonError(name, value, "a cell name is empty");
    cells.set(name, cellValue(name, value));
  }
  return cells;
}

function cellValue(name: string, value: unknown): Buffer {
  if (typeof value === "string") return Buffer.from(value, "utf8");
  if (typeof value === "number" && Number.isFinite(value)) return Buffer.from(String(value));
  if (typeof value === "object" && value !== null && Object.keys(value).join() === "hex") {
    const hex = (value as { hex: unknown }).hex;
    if (typeof hex === "string" && /^(?:[0-9a-fA-F]{2})*$/.test(hex)) return Buffer.from(hex, "hex");
  }
  throw new CellsJsonError(
    name,
    value,
    `cell "${name}" is ${JSON.stringify(value)}; allowed: a string, a number, or {"hex": "…"} (an even number of 0-9a-f)`,
  );
}

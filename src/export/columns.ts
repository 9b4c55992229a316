/**
 * The export's table layout: one typed column per key field, typed columns for the cells the
 * caller names (parsed from their text), and the other cells as one JSON text column.
 */
import type { CodecSpec, FieldValue, KeySchema } from "../keys/types.js";
import { cellsToJson } from "../table/cells-json.js";

export const CELL_TYPES = ["DOUBLE", "BIGINT", "VARCHAR", "BOOLEAN"] as const;
export type CellType = (typeof CELL_TYPES)[number];

/** A cell lifted into its own column: `value:DOUBLE`. */
export interface CellColumn {
  name: string;
  type: CellType;
}

export interface Column {
  name: string;
  /** Type of the staging column the rows are appended to. */
  stagingType: "VARCHAR" | "BIGINT" | "UBIGINT" | CellType;
  /** SQL giving the final column from the staging one (quoted name `"x"` in it). */
  finalSql: string;
}

/**
 * A cell column text that is not NAME or NAME:TYPE: `problem` says which part is wrong; `allowed`
 * lists the types.
 */
export class CellColumnError extends Error {
  override readonly name = "CellColumnError";
  readonly allowed: readonly CellType[] = CELL_TYPES;
  constructor(
    readonly value: string,
    readonly problem: "empty-name" | "unknown-type",
    message: string,
  ) {
    super(message);
  }
}

/** A cell whose text does not parse as its column's type: the cell, its text and the type. */
export class CellValueError extends Error {
  override readonly name = "CellValueError";
  constructor(
    readonly cell: string,
    readonly value: string,
    readonly type: CellType,
    message = `cell "${cell}" is ${JSON.stringify(value)}, not a ${type}`,
  ) {
    super(message);
  }
}

/** `value:DOUBLE` → a cell column; names the allowed types otherwise. */
export function parseCellColumn(text: string): CellColumn {
  const colon = text.lastIndexOf(":");
  const name = colon < 0 ? text : text.slice(0, colon);
  const type = (colon < 0 ? "VARCHAR" : text.slice(colon + 1).toUpperCase()) as CellType;
  if (name === "")
    throw new CellColumnError(
      text,
      "empty-name",
      `cell column "${text}": the cell name is empty; expected NAME or NAME:TYPE`,
    );
  if (!CELL_TYPES.includes(type))
    throw new CellColumnError(
      text,
      "unknown-type",
      `cell column "${text}": type "${type}" is not allowed; allowed: ${CELL_TYPES.join(", ")}`,
    );
  return { name, type };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const TIMESTAMP_MICROS = { s: "1000000", ms: "1000", us: "1" } as const;

export function keyColumn(name: string, codec: CodecSpec): Column {
  const id = quoteIdentifier(name);
  switch (codec.type) {
    case "timestamp":
      return {
        name,
        stagingType: "BIGINT",
        finalSql: `make_timestamp(${id} * ${TIMESTAMP_MICROS[codec.unit]}) AS ${id}`,
      };
    case "int64":
      return { name, stagingType: "BIGINT", finalSql: id };
    case "uint":
      return { name, stagingType: "UBIGINT", finalSql: id };
    default:
      return { name, stagingType: "VARCHAR", finalSql: id };
  }
}

/** Key columns, then cell columns, then `cells` (JSON of the cells not given a column). */
export function columnsFor(schema: KeySchema, cells: readonly CellColumn[]): Column[] {
  const keyNames = new Set(schema.fields.map((f) => f.name));
  for (const cell of cells) {
    if (keyNames.has(cell.name) || cell.name === "cells")
      throw new Error(`cell column "${cell.name}" clashes with a key field or the cells column; rename it`);
  }
  return [
    ...schema.fields.map((field) => keyColumn(field.name, field.codec)),
    ...cells.map((cell) => ({
      name: cell.name,
      stagingType: cell.type,
      finalSql: quoteIdentifier(cell.name),
    })),
    { name: "cells", stagingType: "VARCHAR", finalSql: `CAST("cells" AS JSON) AS "cells"` },
  ];
}

/** A staging row: key values as appended, cell columns parsed from their text, other cells as JSON. */
export function stagingRow(
  schema: KeySchema,
  cellColumns: readonly CellColumn[],
  values: Record<string, FieldValue>,
  cells: ReadonlyMap<string, Buffer>,
): (string | number | bigint | boolean | null)[] {
  const row: (string | number | bigint | boolean | null)[] = schema.fields.map((field) => {
    const value = values[field.name]!;
    return value instanceof Date ? value.getTime() : value;
  });
  for (const column of cellColumns) row.push(parseCell(column, cells.get(column.name)));
  const rest = new Map([...cells].filter(([qualifier]) => !cellColumns.some((c) => c.name === qualifier)));
  row.push(JSON.stringify(cellsToJson(rest)));
  return row;
}

function parseCell(column: CellColumn, value: Buffer | undefined): string | number | bigint | boolean | null {
  if (value === undefined) return null;
  const text = value.toString("utf8");
  switch (column.type) {
    case "VARCHAR":
      return text;
    case "DOUBLE": {
      const number = Number(text);
      if (text.trim() === "" || Number.isNaN(number)) throw new CellValueError(column.name, text, "DOUBLE");
      return number;
    }
    case "BIGINT":
      if (!/^-?\d+$/.test(text)) throw new CellValueError(column.name, text, "BIGINT");
      return BigInt(text);
    case "BOOLEAN":
      if (text !== "true" && text !== "false")
        throw new CellValueError(
          column.name,
          text,
          "BOOLEAN",
          `cell "${column.name}" is ${JSON.stringify(text)}, not a BOOLEAN (true/false)`,
        );
      return text === "true";
  }
}

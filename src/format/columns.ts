/** Rows of cells as text columns, two spaces apart, with a rule under the header row. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0)));
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((width) => "─".repeat(width)).join("  "));
  return lines;
}

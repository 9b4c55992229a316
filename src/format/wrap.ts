/**
 * `text` as lines of at most `width` columns, broken at spaces: the first line starts with
 * `first`, the rest with `rest` (a hanging indent). A word wider than a line stands alone on it.
 */
export function wrapText(text: string, width: number, first = "", rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

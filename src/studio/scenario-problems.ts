/**
 * The CLI's error for a scenario that does not parse or validate, split into problems the page can
 * show beside the YAML: each with its message as the CLI words it, the field path (`cluster.nodes`,
 * `workload.groups.0.writesPerS`) and the 1-based line of the YAML it points at.
 */

export interface ScenarioProblem {
  message: string;
  /** Dotted field path, when the error names one. */
  path?: string;
  /** 1-based line of the YAML text; absent when the error names no place. */
  line?: number;
}

export function scenarioProblems(error: string, yaml: string): ScenarioProblem[] {
  const syntax = /^scenario is not valid YAML: ([^\n]*?) \((\d+):(\d+)\)/.exec(error);
  if (syntax) return [{ message: `scenario is not valid YAML: ${syntax[1]}`, line: Number(syntax[2]) }];
  const summary = /^invalid scenario:\n([\s\S]*)$/.exec(error);
  if (!summary || !summary[1]!.startsWith("×")) return [{ message: error }];
  return summary[1]!.split(/\n(?=×)/).map((entry) => {
    const [first = "", ...rest] = entry.split("\n");
    const at = rest.map((line) => /^\s*→ at (.+)$/.exec(line)?.[1]).find((path) => path !== undefined);
    const message = first.replace(/^×\s*/, "");
    if (at === undefined) return { message };
    const line = lineOfPath(yaml, at.split("."));
    return { message, path: at, ...(line === undefined ? {} : { line }) };
  });
}

/**
 * The line that holds `path` in block-style YAML: each key looked up among its parent's entries
 * (the lines at the first entry's column), each index as the n-th `- ` item. Where the path goes on
 * into a flow collection (`{ … }`) or an alias, the deepest line found is the answer: the value at
 * fault is written on that line.
 */
export function lineOfPath(yaml: string, path: readonly string[]): number | undefined {
  const lines = yaml.split("\n");
  const meaningful = (i: number) => lines[i]!.trim() !== "" && !lines[i]!.trimStart().startsWith("#");
  const indentOf = (i: number) => lines[i]!.length - lines[i]!.trimStart().length;
  const isItem = (i: number) => /^\s*- /.test(lines[i]!);
  let from = 0;
  let to = lines.length;
  let found: number | undefined;
  for (const segment of path) {
    let hit: number | undefined;
    let column: number | undefined;
    if (/^\d+$/.test(segment)) {
      let remaining = Number(segment);
      for (let i = from; i < to && hit === undefined; i++) {
        if (!meaningful(i) || !isItem(i)) continue;
        column ??= indentOf(i);
        if (indentOf(i) === column && remaining-- === 0) hit = i;
      }
      // The column is set with the first entry, so with any hit.
      if (hit === undefined || column === undefined) break;
      // The item runs to the next line at or left of its dash; its first key is on its own line.
      let end = hit + 1;
      while (end < to && (!meaningful(end) || indentOf(end) > column)) end++;
      [from, to] = [hit, end];
    } else {
      for (let i = from; i < to && hit === undefined; i++) {
        if (!meaningful(i)) continue;
        const entry = /^(\s*(?:- )?)([^:#{[]+?)\s*:(\s|$)/.exec(lines[i]!);
        if (!entry) continue;
        column ??= entry[1]!.length;
        if (entry[1]!.length === column && entry[2]!.replace(/^["']|["']$/g, "") === segment) hit = i;
      }
      if (hit === undefined || column === undefined) break;
      // The value's block: deeper lines, and a sequence written at the key's own column.
      let end = hit + 1;
      while (
        end < to &&
        (!meaningful(end) || indentOf(end) > column || (isItem(end) && indentOf(end) === column))
      )
        end++;
      [from, to] = [hit + 1, end];
    }
    found = hit;
  }
  return found === undefined ? undefined : found + 1;
}

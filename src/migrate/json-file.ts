/** Progress and plan files of a migration: JSON, where a missing file means "none yet". */
import { readFile } from "node:fs/promises";

/**
 * The JSON in `file`, or undefined when there is no such file. Text that does not parse is an
 * error naming the file as `what` (e.g. "checkpoint"), followed by `advice`.
 */
export async function readJsonFile<T>(
  file: string,
  what: string,
  advice = "",
): Promise<Partial<T> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${file} is not valid JSON (${(error as Error).message})${advice}`);
  }
}

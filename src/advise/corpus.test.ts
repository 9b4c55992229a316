/** The corpus without the reads: where each key's writes land decides the verdict. */
import { describe } from "vitest";
import { CORPUS, checkEntry } from "./corpus.testsuite.js";

describe.each(CORPUS.map((entry) => [entry.name, entry] as const))(
  "advising on %s (writes only)",
  (_name, entry) => {
    checkEntry(entry, false);
  },
);

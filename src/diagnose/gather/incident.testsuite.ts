/** The fleet incident as a live table would show it: the recorded hot-tablets answer, its schema, a key sample. */
import { readFileSync } from "node:fs";
import { parseSchema } from "../../keys/schema.js";
import { parseHotTabletsJson } from "./hot-tablets-json.js";

const example = (name: string) =>
  readFileSync(new URL(`../../../examples/diagnose/${name}`, import.meta.url), "utf8");

export const incidentSchema = parseSchema(example("fleet-incident.schema.yaml"));
export const incidentHotTablets = parseHotTabletsJson(example("fleet-incident.hot-tablets.json"));

/** A deterministic sample: 62 % of keys from the 90,000 acme devices, the rest random-looking hex ids (as the scenario models them). */
export function incidentKeySample(count: number): Buffer[] {
  let state = 12345;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const t0 = Date.parse("2026-03-02T14:00:00Z");
  return Array.from({ length: count }, () => {
    const acme = next() < 0.62;
    const deviceID = acme
      ? `acme-${String(Math.floor(next() * 90_000)).padStart(6, "0")}`
      : Math.floor(next() * 2 ** 32)
          .toString(16)
          .padStart(8, "0");
    return incidentSchema.encode({ deviceID, ts: new Date(t0 - Math.floor(next() * 86_400_000)) });
  });
}

/**
 * The `--rates` list for a key sample: the write rate and the read patterns the application
 * needs, e.g. `writes=180000,latest-100=8000,range-30d=0.1,get=500` (per second; `/s` optional).
 */
import { parseDuration } from "../../sim/scenario/duration.js";
import { AdviseOptionError } from "./advise-errors.js";

export type ReadRate =
  | { kind: "latest"; name: string; limit: number; perS: number }
  | { kind: "scan"; name: string; windowS: number; perS: number }
  | { kind: "get"; name: string; windowS?: number; perS: number };

export interface WorkloadRates {
  writesPerS: number;
  reads: ReadRate[];
}

const ALLOWED = "writes=N, latest-<count>=N, range-<duration>=N (e.g. range-30d) or get[-<duration>]=N";

export function parseWorkloadRates(text: string): WorkloadRates {
  let writesPerS: number | undefined;
  const reads: ReadRate[] = [];
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const match = /^([a-z][a-z0-9-]*)\s*=\s*([0-9.eE+]+)(?:\/s)?$/.exec(item);
    const perS = match ? Number(match[2]) : Number.NaN;
    if (!match || !(perS > 0))
      throw new AdviseOptionError(
        "--rates",
        item,
        ALLOWED,
        `--rates: "${item}" is not name=rate with a rate > 0; use ${ALLOWED}`,
      );
    const name = match[1]!;
    const [kind, argument] = [name.split("-")[0]!, name.slice(name.indexOf("-") + 1)];
    const hasArgument = name.includes("-");
    if (name === "writes") writesPerS = perS;
    else if (kind === "latest" && hasArgument && /^\d+$/.test(argument) && Number(argument) > 0)
      reads.push({ kind: "latest", name, limit: Number(argument), perS });
    else if ((kind === "range" || kind === "scan") && hasArgument)
      reads.push({ kind: "scan", name, windowS: parseDuration(argument, `--rates ${name}`), perS });
    else if (kind === "get")
      reads.push({
        kind: "get",
        name,
        perS,
        ...(hasArgument ? { windowS: parseDuration(argument, `--rates ${name}`) } : {}),
      });
    else throw new AdviseOptionError("--rates", name, ALLOWED, `--rates: unknown "${name}"; use ${ALLOWED}`);
  }
  if (writesPerS === undefined)
    throw new AdviseOptionError(
      "--rates",
      text,
      ALLOWED,
      `--rates: missing writes=N (writes per second); use ${ALLOWED}`,
    );
  return { writesPerS, reads };
}

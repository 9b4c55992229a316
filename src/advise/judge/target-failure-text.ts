/**
 * A missed target in words, the same in every report: the measured value against its limit
 * (advice.json's `failures`, the reasons a design loses, the headroom line).
 */
import { rowMiss } from "../../sim/results/sensitivity.js";
import { percent, type TargetFailure } from "./score.js";

export function targetFailureText(failure: TargetFailure): string {
  switch (failure.target) {
    case "warmUpCpu":
      return `the new salted table warms up at ${percent(failure.cpu)} on its hottest node (${failure.buckets} buckets on ${failure.nodes} nodes)`;
    case "hottestCpu":
      return `hottest node ${percent(failure.cpu)} > ${percent(failure.limit)}`;
    case "averageCpu":
      return `average node ${percent(failure.cpu)} > ${percent(failure.limit)}`;
    case "shed":
      return `${percent(failure.share)} of writes shed`;
    case "storage":
      return `stores ${percent(failure.share)} of the planned storage per node`;
    case "row":
      // Neither nodes nor a salt split a row: only a key that changes over time (or keeping less) does.
      return `${rowMiss(failure.largestRow)}: no node count or salt splits a row; a time in the key or a shorter retention does`;
    case "read":
      return `${failure.read}: ${failure.reason}`;
    case "buckets":
      return `${failure.buckets} buckets for the ${failure.nodes} nodes the writes need: fewer buckets than nodes leave nodes without writes (the salting guide: the buckets should match or exceed the nodes)`;
  }
}

/** Several missed targets in one clause. */
export const targetFailuresText = (failures: readonly TargetFailure[]) =>
  failures.map(targetFailureText).join("; ");

/**
 * What a cluster costs per month: its nodes and the bytes it stores, at the scenario's prices or
 * the registry's defaults (prices.ts: us-central1 list prices on Google's "Bigtable pricing" page;
 * prices differ by region, so a scenario sets its own). Google bills nodes per hour
 * and storage per binary GB (2^30 bytes) of the monthly average stored, after compression. Network
 * and backups are not priced.
 */
import type { Scenario, Storage } from "../../sim/scenario/scenario.js";
import { price } from "./prices.js";

/** 365 × 24 ÷ 12: the month Google's pricing calculator uses. */
export const HOURS_PER_MONTH = 730;
const BYTES_PER_GB = 2 ** 30;

export interface MonthlyCost {
  nodes: number;
  storage: number;
  total: number;
}

export function monthlyCost(
  scenario: Scenario,
  nodes: number,
  storage: Storage,
  storedBytes: number,
): MonthlyCost {
  const perGb = price(scenario, storage === "ssd" ? "bigtable.ssdGiBMonth" : "bigtable.hddGiBMonth");
  const nodeCost = nodes * price(scenario, "bigtable.nodeHour") * HOURS_PER_MONTH;
  const storageCost = (storedBytes / BYTES_PER_GB) * perGb;
  return { nodes: nodeCost, storage: storageCost, total: nodeCost + storageCost };
}

/** `$12,345`: whole dollars, for a monthly figure. */
export const dollars = (amount: number) => `$${Math.round(amount).toLocaleString("en-US")}`;

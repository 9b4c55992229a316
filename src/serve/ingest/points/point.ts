/** One device report, the unit the service ingests, stores and reads back. */
export interface MetricPoint {
  tenant: string;
  deviceId: string;
  /** Epoch milliseconds. */
  ts: number;
  metrics: Record<string, number>;
}

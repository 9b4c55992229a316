/** The arithmetic mean; NaN for no values (there is no average of nothing). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

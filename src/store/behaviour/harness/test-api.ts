/** The test runner's API the behaviour suite registers its tests with: vitest's or Jest's. */

/** The assertions the suite makes; vitest's and Jest's `expect` provide them. */
export interface StoreAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toHaveLength(length: number): void;
  toBeGreaterThan(value: number): void;
  toBeLessThanOrEqual(value: number): void;
  toThrow(expected?: string | RegExp): void;
  rejects: { toThrow(expected?: string | RegExp): Promise<void> };
}

/** vitest's or Jest's `describe`, `it` and `expect`. */
export interface StoreTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): StoreAssertion;
}

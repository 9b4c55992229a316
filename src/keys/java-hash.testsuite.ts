/** Test helpers for the Java 31-polynomial hash of the Phoenix and HBaseWD presets. */

/**
 * Printable ASCII text whose Java hash (h = 31·h + b from 1) is exactly `target`: h is linear in
 * the bytes, so with b_i = 48 + d_i the digits d_i are `target − h("000…")` written in base 31.
 * `textWithJavaHash(-(2 ** 31))` gives a key that lands on HBaseWD's Math.abs bug.
 */
export function textWithJavaHash(target: number, length = 7): string {
  const wrap = (x: bigint) => BigInt.asUintN(32, x);
  let zeros = 1n;
  for (let i = 0; i < length; i++) zeros = wrap(31n * zeros + 48n);
  let rest = wrap(BigInt(target) - zeros);
  const digits: number[] = [];
  for (let i = 0; i < length; i++) {
    digits.unshift(Number(rest % 31n));
    rest /= 31n;
  }
  return String.fromCharCode(...digits.map((d) => 48 + d));
}

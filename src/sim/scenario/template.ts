/**
 * Entity-id templates: a scenario names its entities with a pattern over the entity index `i`
 * instead of listing millions of ids. `acme-{i:06}` → `acme-000042`; `farm{i/50:04}` and
 * `s{i%50:02}` split one index into two fields; `{hex8:i}` scrambles the index into 8 hex digits,
 * for ids that look random (and so spread over the key space) yet stay reproducible.
 */

const PLACEHOLDER = /\{(?:hex(\d+):)?i(?:([/%])(\d+))?(?::0?(\d+))?\}/g;

/** A placeholder of a field's template that cannot be computed: the `field`, the `placeholder` and what is `allowed`. */
export class TemplatePlaceholderError extends Error {
  override readonly name = "TemplatePlaceholderError";
  constructor(
    readonly field: string,
    readonly placeholder: string,
    readonly allowed: string,
    problem: string,
  ) {
    super(`field "${field}": ${placeholder} ${problem}`);
  }
}

const PLACEHOLDERS = "{i}, {i:06}, {i/50}, {i%50:02}, {hex8:i}";

/** A field's `template` whose braces cannot be read: the `field`, the `template` and the placeholders `allowed`. */
export class TemplateSyntaxError extends Error {
  override readonly name = "TemplateSyntaxError";
  readonly allowed = PLACEHOLDERS;
  constructor(
    readonly field: string,
    readonly template: string,
  ) {
    super(`field "${field}": cannot read template "${template}"; placeholders are ${PLACEHOLDERS}`);
  }
}

/** Turns `template` into a function of the entity index; throws on braces it cannot read. */
export function compileTemplate(template: string, field: string): (index: number) => string {
  const parts: ((index: number) => string)[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const literal = template.slice(last, match.index);
    if (literal.includes("{") || literal.includes("}")) break;
    parts.push(() => literal);
    parts.push(placeholder(match, field));
    last = match.index + match[0].length;
  }
  const tail = template.slice(last);
  if (tail.includes("{") || tail.includes("}")) {
    throw new TemplateSyntaxError(field, template);
  }
  parts.push(() => tail);
  return (index) => parts.map((part) => part(index)).join("");
}

function placeholder(match: RegExpMatchArray, field: string): (index: number) => string {
  const [, hexDigits, op, operand, width] = match;
  const divisor = operand === undefined ? 1 : Number(operand);
  if (divisor === 0) throw new TemplatePlaceholderError(field, match[0], "a divisor ≥ 1", "divides by zero");
  const value = (index: number) =>
    op === "/" ? Math.floor(index / divisor) : op === "%" ? index % divisor : index;
  if (hexDigits !== undefined) {
    const digits = Number(hexDigits);
    if (digits < 1 || digits > 8) {
      throw new TemplatePlaceholderError(field, match[0], "1 to 8 hex digits", "takes 1 to 8 hex digits");
    }
    return (index) =>
      scramble(value(index))
        .toString(16)
        .padStart(8, "0")
        .slice(8 - digits);
  }
  const pad = width === undefined ? 0 : Number(width);
  return (index) => String(value(index)).padStart(pad, "0");
}

/** A bijective 32-bit mix (murmur3's finaliser), so distinct indices give distinct ids. */
export function scramble(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

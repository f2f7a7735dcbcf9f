/** The calculator tool: arithmetic by a small recursive-descent parser (never eval). */
export class CalcError extends Error {
  override name = 'CalcError';
}

/** The binary operators of one precedence level, by their character. */
type Level = Record<string, (a: number, b: number) => number>;
const PRODUCT: Level = { '*': (a, b) => a * b, '/': (a, b) => a / b, '%': (a, b) => a % b };
const SUM: Level = { '+': (a, b) => a + b, '-': (a, b) => a - b };

export function calculate(expression: string): number {
  const src = expression.replace(/\s+/g, '').replace(/×/g, '*').replace(/÷/g, '/').replace(/\*\*/g, '^');
  let i = 0;
  const peek = () => src[i];
  function number(): number {
    const m = /^\d+(?:\.\d+)?(?:e[+-]?\d+)?|^\.\d+/i.exec(src.slice(i));
    if (!m) throw new CalcError(`expected a number at position ${i + 1} of "${expression}"`);
    i += m[0].length;
    return Number(m[0]);
  }
  function atom(): number {
    if (peek() === '(') {
      i++;
      const v = sum();
      if (peek() !== ')') throw new CalcError(`missing ")" in "${expression}"`);
      i++;
      return v;
    }
    if (peek() === '-') {
      i++;
      return -atom();
    }
    if (peek() === '+') {
      i++;
      return atom();
    }
    return number();
  }
  function power(): number {
    const base = atom();
    if (peek() === '^') {
      i++;
      return base ** power();
    }
    return base;
  }
  /** One left-associative level of binary operators over the next tighter level. */
  function level(ops: Level, next: () => number): number {
    let v = next();
    for (let op = ops[peek()]; op; op = ops[peek()]) {
      i++;
      v = op(v, next());
    }
    return v;
  }
  const product = () => level(PRODUCT, power);
  const sum = (): number => level(SUM, product);
  if (!src) throw new CalcError('empty expression');
  const v = sum();
  if (i < src.length) throw new CalcError(`unexpected "${src[i]}" at position ${i + 1} of "${expression}"`);
  return v;
}

/** The first arithmetic expression in a text ("What is 17 * (3 + 4)?" → "17 * (3 + 4)"), or null. */
export function findExpression(text: string): string | null {
  const m = /[-(]*\d[\d.\s]*(?:[-+*/^%×÷]\s*[(\s]*[-\d.][\d.\s)]*)+/.exec(text);
  return m ? m[0].trim().replace(/[\s.]+$/, '') : null;
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(12)));
}

/** The calculator tool: arithmetic by a small recursive-descent parser (never eval). */
export class CalcError extends Error {
  override name = 'CalcError';
}

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
      return base ** unary();
    }
    return base;
  }
  function unary(): number {
    return power();
  }
  function product(): number {
    let v = unary();
    for (;;) {
      const op = peek();
      if (op === '*') {
        i++;
        v *= unary();
      } else if (op === '/') {
        i++;
        v /= unary();
      } else if (op === '%') {
        i++;
        v %= unary();
      } else return v;
    }
  }
  function sum(): number {
    let v = product();
    for (;;) {
      const op = peek();
      if (op === '+') {
        i++;
        v += product();
      } else if (op === '-') {
        i++;
        v -= product();
      } else return v;
    }
  }
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

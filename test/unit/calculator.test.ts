/** The calculator tool's grammar: precedence, left-to-right association of the binary levels, right-associative powers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CalcError, calculate } from '../../src/util/calculator';

test('binary operators associate left to right within a level and bind by precedence across levels', () => {
  const cases: [string, number][] = [
    ['10 - 3 - 2', 5],
    ['100 / 10 / 5', 2],
    ['7 % 4 * 3', 9],
    ['2 * 3 % 4', 2],
    ['1 + 2 * 3', 7],
    ['1 - 2 + 3', 2],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 3 × 2 ÷ 4', 4],
    ['-(1 + 2) * -3', 9],
    ['+.5 + 1e2', 100.5],
  ];
  for (const [src, want] of cases) assert.equal(calculate(src), want, src);
});

test('malformed expressions raise CalcError with the position', () => {
  assert.throws(() => calculate(''), CalcError);
  assert.throws(() => calculate('1 +'), /expected a number at position 3/);
  assert.throws(() => calculate('(1 + 2'), /missing "\)"/);
  assert.throws(() => calculate('1)'), /unexpected "\)" at position 2/);
});

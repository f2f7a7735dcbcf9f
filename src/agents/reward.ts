/** Reward from a task's ground truth: exact match, regex, or numeric tolerance on the last number in the answer. */
import type { RewardRule } from './config';

export function lastNumber(text: string): number | null {
  const all = text.replace(/(\d),(\d{3})/g, '$1$2').match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi);
  return all ? Number(all[all.length - 1]) : null;
}

export function reward(rule: RewardRule, answer: string | null, truth: string): number {
  if (answer === null) return 0;
  if (rule.type === 'exact') {
    const norm = (s: string) => (rule.caseSensitive ? s.trim() : s.trim().toLowerCase()).replace(/[.!\s]+$/, '');
    return norm(answer) === norm(truth) ? 1 : 0;
  }
  if (rule.type === 'regex') {
    const m = new RegExp(rule.pattern, rule.flags).exec(answer);
    if (!m) return 0;
    return m.length > 1 ? (m[1].trim() === truth.trim() ? 1 : 0) : 1;
  }
  const got = lastNumber(answer);
  const want = Number(truth);
  if (got === null || !Number.isFinite(want)) return 0;
  return Math.abs(got - want) <= (rule.tolerance ?? 1e-6) * Math.max(1, Math.abs(want)) ? 1 : 0;
}

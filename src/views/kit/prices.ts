/**
 * Per-model token prices (USD per million tokens) and the cost of a step. The user edits the table
 * (persisted in localStorage); the defaults are list prices of common hosted models, each with where
 * and when it was read. A model matches its longest pattern: `gpt-4o-mini*` wins over `gpt-4o*` for
 * `gpt-4o-mini-2024-07-18`; a router prefix (`openai/gpt-4o`) is ignored.
 */

/** A model present in the pool and its price, USD per million prompt (input) and completion (output) tokens. */
export interface PricedModel {
  model: string;
  input: number;
  output: number;
}

export interface ModelPrice {
  /** Model id, or a prefix ending in `*`. */
  pattern: string;
  /** USD per million prompt (input) tokens. */
  input: number;
  /** USD per million completion (output) tokens. */
  output: number;
  /** Where the price comes from (page and date), or "edited". */
  source: string;
}

const OPENAI = 'openai.com/api/pricing, read 2025-08';
const ANTHROPIC = 'anthropic.com/pricing, read 2025-11';
const GOOGLE = 'ai.google.dev/pricing, read 2025-06 (prompts ≤ 200k tokens)';

/** List prices at the date noted; they change — edit them in the price table. */
export const DEFAULT_PRICES: readonly ModelPrice[] = [
  { pattern: 'gpt-5*', input: 1.25, output: 10, source: OPENAI },
  { pattern: 'gpt-5-mini*', input: 0.25, output: 2, source: OPENAI },
  { pattern: 'gpt-5-nano*', input: 0.05, output: 0.4, source: OPENAI },
  { pattern: 'gpt-4.1*', input: 2, output: 8, source: OPENAI },
  { pattern: 'gpt-4.1-mini*', input: 0.4, output: 1.6, source: OPENAI },
  { pattern: 'gpt-4.1-nano*', input: 0.1, output: 0.4, source: OPENAI },
  { pattern: 'gpt-4o*', input: 2.5, output: 10, source: OPENAI },
  { pattern: 'gpt-4o-mini*', input: 0.15, output: 0.6, source: OPENAI },
  { pattern: 'o3*', input: 2, output: 8, source: OPENAI },
  { pattern: 'o3-mini*', input: 1.1, output: 4.4, source: OPENAI },
  { pattern: 'o4-mini*', input: 1.1, output: 4.4, source: OPENAI },
  { pattern: 'o1*', input: 15, output: 60, source: OPENAI },
  { pattern: 'claude-opus-4-5*', input: 5, output: 25, source: ANTHROPIC },
  { pattern: 'claude-opus-4*', input: 15, output: 75, source: ANTHROPIC },
  { pattern: 'claude-sonnet-4*', input: 3, output: 15, source: ANTHROPIC },
  { pattern: 'claude-haiku-4-5*', input: 1, output: 5, source: ANTHROPIC },
  { pattern: 'claude-3-7-sonnet*', input: 3, output: 15, source: ANTHROPIC },
  { pattern: 'claude-3-5-sonnet*', input: 3, output: 15, source: ANTHROPIC },
  { pattern: 'claude-3-5-haiku*', input: 0.8, output: 4, source: ANTHROPIC },
  { pattern: 'claude-3-haiku*', input: 0.25, output: 1.25, source: ANTHROPIC },
  { pattern: 'claude-3-opus*', input: 15, output: 75, source: ANTHROPIC },
  { pattern: 'gemini-2.5-pro*', input: 1.25, output: 10, source: GOOGLE },
  { pattern: 'gemini-2.5-flash*', input: 0.3, output: 2.5, source: GOOGLE },
  { pattern: 'gemini-2.0-flash*', input: 0.1, output: 0.4, source: GOOGLE },
];

const KEY = 'aw-model-prices';
type Listener = (prices: readonly ModelPrice[]) => void;
const listeners = new Set<Listener>();

/** A row of user input made safe: a non-empty pattern and finite, non-negative prices, or null. */
export function validPrice(p: Partial<ModelPrice>): ModelPrice | null {
  const pattern = String(p.pattern ?? '').trim();
  const input = Number(p.input);
  const output = Number(p.output);
  if (!pattern || !Number.isFinite(input) || !Number.isFinite(output) || input < 0 || output < 0) return null;
  return { pattern, input, output, source: String(p.source ?? '').trim() || 'edited' };
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The price table in use: the user's saved table, else the defaults. */
export function getPrices(): readonly ModelPrice[] {
  const raw = storage()?.getItem(KEY);
  if (!raw) return DEFAULT_PRICES;
  try {
    const rows = JSON.parse(raw) as unknown;
    if (!Array.isArray(rows)) return DEFAULT_PRICES;
    return rows.map((r) => validPrice(r as Partial<ModelPrice>)).filter((r): r is ModelPrice => r !== null);
  } catch {
    return DEFAULT_PRICES;
  }
}

/** Save the table (invalid rows dropped) and tell every view that shows costs; null restores the defaults. */
export function setPrices(prices: readonly Partial<ModelPrice>[] | null): readonly ModelPrice[] {
  const s = storage();
  if (prices === null) s?.removeItem(KEY);
  else s?.setItem(KEY, JSON.stringify(prices.map(validPrice).filter(Boolean)));
  const now = getPrices();
  for (const l of listeners) l(now);
  return now;
}

export function onPricesChange(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The price of a model: exact pattern first, then the longest `prefix*` that matches; null when none does. */
export function priceFor(model: string | null | undefined, prices: readonly ModelPrice[] = getPrices()): ModelPrice | null {
  if (!model) return null;
  const names = [model.toLowerCase()];
  const slash = names[0].lastIndexOf('/');
  if (slash >= 0) names.push(names[0].slice(slash + 1));
  let best: ModelPrice | null = null;
  let bestLen = -1;
  for (const name of names) {
    for (const p of prices) {
      const pat = p.pattern.toLowerCase();
      const len = pat.endsWith('*') ? (name.startsWith(pat.slice(0, -1)) ? pat.length - 1 : -1) : pat === name ? Number.MAX_SAFE_INTEGER : -1;
      if (len > bestLen) {
        best = p;
        bestLen = len;
      }
    }
  }
  return best;
}

/** USD for one call, or null when the model has no price or no token count is known. */
export function stepCost(model: string | null | undefined, promptTokens: number | null, completionTokens: number | null, prices?: readonly ModelPrice[]): number | null {
  const p = priceFor(model, prices);
  if (!p || (promptTokens === null && completionTokens === null)) return null;
  return ((promptTokens ?? 0) * p.input + (completionTokens ?? 0) * p.output) / 1e6;
}

/** `$0.0123`: enough digits to tell small costs apart; `—` when unknown. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  const a = Math.abs(usd);
  if (a < 1e-6) return '<$0.000001';
  return `$${a >= 100 ? usd.toFixed(0) : a >= 1 ? usd.toFixed(2) : usd.toPrecision(2).replace(/0+$/, '')}`;
}

/** The models of `models` that have a price, with it (the rows of the dashboard's prices table, views/dashboard/queries.ts). */
export function pricedModels(models: readonly string[], prices: readonly ModelPrice[] = getPrices()): PricedModel[] {
  return models.flatMap((model) => {
    const p = priceFor(model, prices);
    return p ? [{ model, input: p.input, output: p.output }] : [];
  });
}

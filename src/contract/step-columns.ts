/**
 * The step record's columns, in table order, with their storage types: the one list the pool's DDL is derived from
 * (pool/schema.ts) and the Arrow encoding is held to (record/step-arrow.ts; test/unit/step-columns.test.ts compares
 * them column by column). The compiler holds the list to StepRecord (step.ts): a field without a column, a column
 * without a field, or a column whose type cannot hold its field's values is a type error (docs/decisions/085).
 */
import type { ChatMessage, StepRecord, ToolCall } from './step';

export type ScalarKind = 'VARCHAR' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP';

/**
 * A storage type whose values are `V`. `holds` is never set: it only makes the type check contravariant, so a
 * VARCHAR (`string | null`) may store a `string` field but not a `number` one.
 */
export type ColumnType<V = never> = (
  | { readonly kind: ScalarKind }
  /** MAP(VARCHAR, VARCHAR), from a plain object. */
  | { readonly kind: 'MAP' }
  | { readonly kind: 'LIST'; readonly item: ColumnType<never> }
  | { readonly kind: 'STRUCT'; readonly fields: Readonly<Record<string, ColumnType<never>>> }
) & { readonly holds?: (v: V) => void };

type Maybe<V> = V | null | undefined;

export const VARCHAR: ColumnType<Maybe<string>> = { kind: 'VARCHAR' };
export const INTEGER: ColumnType<Maybe<number>> = { kind: 'INTEGER' };
export const DOUBLE: ColumnType<Maybe<number>> = { kind: 'DOUBLE' };
export const BOOLEAN: ColumnType<Maybe<boolean>> = { kind: 'BOOLEAN' };
/** Epoch milliseconds in the record; TIMESTAMP (UTC by convention) in the pool. */
export const TIMESTAMP: ColumnType<Maybe<number>> = { kind: 'TIMESTAMP' };
export const STRING_MAP: ColumnType<Maybe<Record<string, string>>> = { kind: 'MAP' };

export function list<V>(item: ColumnType<V>): ColumnType<Maybe<readonly V[]>> {
  return { kind: 'LIST', item };
}

/** A struct of `T`'s fields, each in the order written here (the order the DDL and Arrow write them). */
export function struct<T extends object>(fields: { readonly [K in keyof T]-?: ColumnType<T[K]> }): ColumnType<Maybe<T>> {
  return { kind: 'STRUCT', fields };
}

export const TOOL_CALL = struct<ToolCall>({
  id: VARCHAR,
  type: VARCHAR,
  function: struct<ToolCall['function']>({ name: VARCHAR, arguments: VARCHAR }),
});

/** One element of `messages`, and `response`. */
export const MESSAGE = struct<ChatMessage>({
  role: VARCHAR,
  content: VARCHAR,
  reasoning: VARCHAR,
  name: VARCHAR,
  tool_call_id: VARCHAR,
  tool_calls: list(TOOL_CALL),
  parts: VARCHAR,
  is_error: BOOLEAN,
});

export interface Column<V> {
  readonly type: ColumnType<V>;
  readonly notNull?: true;
  /** The value a row inserted without this column gets. */
  readonly default?: string;
}

/** Table `steps`, column by column (docs/schema.md says what each holds). */
export const STEP_COLUMNS: { readonly [K in keyof StepRecord]-?: Column<StepRecord[K]> } = {
  step_id: { type: VARCHAR, notNull: true },
  trajectory_uid: { type: VARCHAR, notNull: true },
  prompt_uid: { type: VARCHAR },
  step_index: { type: INTEGER, notNull: true },
  is_last: { type: BOOLEAN },
  channel: { type: VARCHAR, default: 'train' },
  policy_version: { type: INTEGER },
  agent: { type: VARCHAR },
  data_source: { type: VARCHAR },
  model: { type: VARCHAR },
  provider: { type: VARCHAR },
  messages: { type: list(MESSAGE) },
  tools: { type: VARCHAR },
  response: { type: MESSAGE },
  response_text: { type: VARCHAR },
  finish_reason: { type: VARCHAR },
  prompt_tokens: { type: INTEGER },
  completion_tokens: { type: INTEGER },
  prompt_ids: { type: list(INTEGER) },
  response_ids: { type: list(INTEGER) },
  rollout_log_probs: { type: list(DOUBLE) },
  reward: { type: DOUBLE },
  started_at: { type: TIMESTAMP },
  ended_at: { type: TIMESTAMP },
  latency_ms: { type: DOUBLE },
  ttft_ms: { type: DOUBLE },
  status: { type: VARCHAR, default: 'ok' },
  error: { type: VARCHAR },
  metadata: { type: STRING_MAP },
  raw: { type: VARCHAR },
  source: { type: VARCHAR },
  source_format: { type: VARCHAR },
  source_line: { type: INTEGER },
  source_id: { type: VARCHAR },
  import_id: { type: INTEGER },
  source_trajectory_id: { type: VARCHAR },
};

/** The column names of `steps`, in table order. */
export const STEP_COLUMN_NAMES = Object.keys(STEP_COLUMNS) as (keyof StepRecord)[];

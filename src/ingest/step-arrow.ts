import { RecordBatch, Schema, Field, Table, tableToIPC, makeData, Struct } from 'apache-arrow';
import {
  BoolBuilder,
  type ColumnBuilder,
  Float64Builder,
  Int32Builder,
  ListBuilder,
  StringMapBuilder,
  StructBuilder,
  TimestampBuilder,
  Utf8Builder,
} from '../util/arrow-build';
import type { ChatMessage, StepRecord, ToolCall } from '../contract/step';

function toolCallBuilder(): StructBuilder<ToolCall> {
  return new StructBuilder<ToolCall>({
    id: new Utf8Builder(),
    type: new Utf8Builder(),
    function: new StructBuilder<ToolCall['function']>({ name: new Utf8Builder(), arguments: new Utf8Builder() }),
  });
}

type Msg = Required<ChatMessage>;

function messageBuilder(): StructBuilder<Msg> {
  return new StructBuilder<Msg>({
    role: new Utf8Builder(),
    content: new Utf8Builder(),
    reasoning: new Utf8Builder(),
    name: new Utf8Builder(),
    tool_call_id: new Utf8Builder(),
    tool_calls: new ListBuilder(toolCallBuilder()) as unknown as ColumnBuilder<ToolCall[] | null>,
    parts: new Utf8Builder(),
    is_error: new BoolBuilder(),
  });
}

type Builders = { [K in keyof StepRecord]-?: ColumnBuilder<StepRecord[K]> };

function builders(): Builders {
  return {
    step_id: new Utf8Builder(),
    trajectory_uid: new Utf8Builder(),
    prompt_uid: new Utf8Builder(),
    step_index: new Int32Builder(),
    is_last: new BoolBuilder(),
    channel: new Utf8Builder(),
    policy_version: new Int32Builder(),
    agent: new Utf8Builder(),
    data_source: new Utf8Builder(),
    model: new Utf8Builder(),
    provider: new Utf8Builder(),
    messages: new ListBuilder(messageBuilder()) as unknown as ColumnBuilder<ChatMessage[]>,
    tools: new Utf8Builder(),
    response: messageBuilder() as unknown as ColumnBuilder<ChatMessage | null>,
    response_text: new Utf8Builder(),
    finish_reason: new Utf8Builder(),
    prompt_tokens: new Int32Builder(),
    completion_tokens: new Int32Builder(),
    prompt_ids: new ListBuilder(new Int32Builder()),
    response_ids: new ListBuilder(new Int32Builder()),
    rollout_log_probs: new ListBuilder(new Float64Builder()),
    reward: new Float64Builder(),
    started_at: new TimestampBuilder(),
    ended_at: new TimestampBuilder(),
    latency_ms: new Float64Builder(),
    ttft_ms: new Float64Builder(),
    status: new Utf8Builder() as ColumnBuilder<StepRecord['status']>,
    error: new Utf8Builder(),
    metadata: new StringMapBuilder(),
    raw: new Utf8Builder(),
    source: new Utf8Builder(),
    source_format: new Utf8Builder(),
    source_line: new Int32Builder(),
    source_id: new Utf8Builder(),
    import_id: new Int32Builder(),
    source_trajectory_id: new Utf8Builder(),
  };
}

/** Column order of `steps`; the DDL in pool/schema.ts is written in the same order. */
export const STEP_COLUMNS = Object.keys(builders()) as (keyof StepRecord)[];

/** Step records → one Arrow record batch, built column-wise. */
export function stepsToBatch(rows: readonly StepRecord[]): RecordBatch {
  return build(builders(), rows);
}

function build(b: Builders, rows: readonly StepRecord[]): RecordBatch {
  for (const r of rows) for (const k of STEP_COLUMNS) (b[k] as ColumnBuilder<unknown>).append(r[k]);
  const data = STEP_COLUMNS.map((k) => b[k].finish());
  const schema = new Schema(STEP_COLUMNS.map((k, i) => new Field(k, data[i].type, true)));
  const struct = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children: data });
  return new RecordBatch(schema, struct);
}

let spare: Builders | null = null;

/**
 * Step records → Arrow IPC stream bytes, ready to transfer to the pool worker. The IPC writer copies
 * every buffer, so the builders (grown to batch size) are kept for the next call instead of being
 * regrown from 64 KB and collected each batch.
 */
export function stepsToIPC(rows: readonly StepRecord[]): Uint8Array {
  const b = spare ?? builders();
  spare = null;
  try {
    return tableToIPC(new Table(build(b, rows)), 'stream');
  } finally {
    for (const k of STEP_COLUMNS) b[k].reset();
    spare = b;
  }
}

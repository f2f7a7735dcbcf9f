/**
 * Step records → Arrow, for the pool (the import's batches, the gateway's sink). The builders are written out field by
 * field for speed, not derived from the column list; test/unit/step-columns.test.ts holds their schema to it
 * (contract/step-columns.ts), column by column and field by field, so a column added there fails until it is here.
 */
import { Field, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, type Data } from 'apache-arrow';
import {
  Bits,
  BoolBuilder,
  type ColumnBuilder,
  Float64Builder,
  Int32Builder,
  ListBuilder,
  StringMapBuilder,
  TimestampBuilder,
  Utf8Builder,
} from '../util/arrow-build';
import type { ChatMessage, StepRecord, ToolCall } from '../contract/step';
import { STEP_COLUMN_NAMES } from '../contract/step-columns';

/**
 * The struct builders of a step's nested columns, with every field appended by name (not looked up by key: the
 * generic StructBuilder's `v[k]` over its keys made each call site megamorphic, and messages are appended once per
 * step that repeats them).
 */
class FunctionBuilder implements ColumnBuilder<ToolCall['function']> {
  readonly name = new Utf8Builder();
  readonly arguments = new Utf8Builder();
  readonly type = new Struct([new Field('name', this.name.type, true), new Field('arguments', this.arguments.type, true)]);
  length = 0;
  private valid = new Bits();
  append(v: ToolCall['function'] | null | undefined): void {
    this.valid.set(this.length++, v != null);
    this.name.append(v?.name);
    this.arguments.append(v?.arguments);
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.name.reset();
    this.arguments.reset();
  }
  finish(): Data {
    return structData(this.type, this.length, this.valid, [this.name.finish(), this.arguments.finish()]);
  }
}

class ToolCallBuilder implements ColumnBuilder<ToolCall> {
  readonly id = new Utf8Builder();
  readonly kind = new Utf8Builder();
  readonly fn = new FunctionBuilder();
  readonly type = new Struct([new Field('id', this.id.type, true), new Field('type', this.kind.type, true), new Field('function', this.fn.type, true)]);
  length = 0;
  private valid = new Bits();
  append(v: ToolCall | null | undefined): void {
    this.valid.set(this.length++, v != null);
    this.id.append(v?.id);
    this.kind.append(v?.type);
    this.fn.append(v?.function);
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.id.reset();
    this.kind.reset();
    this.fn.reset();
  }
  finish(): Data {
    return structData(this.type, this.length, this.valid, [this.id.finish(), this.kind.finish(), this.fn.finish()]);
  }
}

class MessageBuilder implements ColumnBuilder<ChatMessage> {
  readonly role = new Utf8Builder();
  readonly content = new Utf8Builder();
  readonly reasoning = new Utf8Builder();
  readonly name = new Utf8Builder();
  readonly tool_call_id = new Utf8Builder();
  readonly tool_calls = new ListBuilder(new ToolCallBuilder());
  readonly parts = new Utf8Builder();
  readonly is_error = new BoolBuilder();
  readonly type = new Struct([
    new Field('role', this.role.type, true),
    new Field('content', this.content.type, true),
    new Field('reasoning', this.reasoning.type, true),
    new Field('name', this.name.type, true),
    new Field('tool_call_id', this.tool_call_id.type, true),
    new Field('tool_calls', this.tool_calls.type, true),
    new Field('parts', this.parts.type, true),
    new Field('is_error', this.is_error.type, true),
  ]);
  length = 0;
  private valid = new Bits();
  append(m: ChatMessage | null | undefined): void {
    this.valid.set(this.length++, m != null);
    if (m == null) {
      this.role.append(null);
      this.content.append(null);
      this.reasoning.append(null);
      this.name.append(null);
      this.tool_call_id.append(null);
      this.tool_calls.append(null);
      this.parts.append(null);
      this.is_error.append(null);
      return;
    }
    this.role.append(m.role);
    this.content.append(m.content);
    this.reasoning.append(m.reasoning);
    this.name.append(m.name);
    this.tool_call_id.append(m.tool_call_id);
    this.tool_calls.append(m.tool_calls);
    this.parts.append(m.parts);
    this.is_error.append(m.is_error);
  }
  reset(): void {
    this.valid.reset(this.length);
    this.length = 0;
    this.role.reset();
    this.content.reset();
    this.reasoning.reset();
    this.name.reset();
    this.tool_call_id.reset();
    this.tool_calls.reset();
    this.parts.reset();
    this.is_error.reset();
  }
  finish(): Data {
    return structData(this.type, this.length, this.valid, [
      this.role.finish(),
      this.content.finish(),
      this.reasoning.finish(),
      this.name.finish(),
      this.tool_call_id.finish(),
      this.tool_calls.finish(),
      this.parts.finish(),
      this.is_error.finish(),
    ]);
  }
}

function structData(type: Struct, length: number, valid: Bits, children: Data[]): Data {
  return makeData({ type, length, nullCount: valid.nulls, nullBitmap: valid.finish(length), children });
}

function builders() {
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
    messages: new ListBuilder(new MessageBuilder()),
    tools: new Utf8Builder(),
    response: new MessageBuilder(),
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
    status: new Utf8Builder(),
    error: new Utf8Builder(),
    metadata: new StringMapBuilder(),
    raw: new Utf8Builder(),
    source: new Utf8Builder(),
    source_format: new Utf8Builder(),
    source_line: new Int32Builder(),
    source_id: new Utf8Builder(),
    import_id: new Int32Builder(),
    source_trajectory_id: new Utf8Builder(),
  } satisfies { [K in keyof StepRecord]-?: ColumnBuilder<NonNullable<StepRecord[K]>> };
}

type Builders = ReturnType<typeof builders>;

/** Columns in table order: the order of STEP_COLUMNS (contract/step-columns.ts), which the DDL is derived from. */
const STEP_COLUMNS = STEP_COLUMN_NAMES;

const rawBytes = new WeakMap<StepRecord, Uint8Array>();

/**
 * The UTF-8 bytes of `step.raw` as the reader read them (a JSON Lines line of an ASCII stretch of the file): the raw
 * column copies them instead of encoding the text again, which in Chromium was the largest share of the Arrow encoding
 * (the record's whole text, ~100 MB of 210 MB encoded for the 100 MB bench file). The caller vouches they are `raw`'s.
 */
export function rawAsRead(step: StepRecord, bytes: Uint8Array): void {
  rawBytes.set(step, bytes);
}

/** One step into every column, each by name (see MessageBuilder). */
function appendRow(b: Builders, r: StepRecord): void {
  b.step_id.append(r.step_id);
  b.trajectory_uid.append(r.trajectory_uid);
  b.prompt_uid.append(r.prompt_uid);
  b.step_index.append(r.step_index);
  b.is_last.append(r.is_last);
  b.channel.append(r.channel);
  b.policy_version.append(r.policy_version);
  b.agent.append(r.agent);
  b.data_source.append(r.data_source);
  b.model.append(r.model);
  b.provider.append(r.provider);
  b.messages.append(r.messages);
  b.tools.append(r.tools);
  b.response.append(r.response);
  b.response_text.append(r.response_text);
  b.finish_reason.append(r.finish_reason);
  b.prompt_tokens.append(r.prompt_tokens);
  b.completion_tokens.append(r.completion_tokens);
  b.prompt_ids.append(r.prompt_ids);
  b.response_ids.append(r.response_ids);
  b.rollout_log_probs.append(r.rollout_log_probs);
  b.reward.append(r.reward);
  b.started_at.append(r.started_at);
  b.ended_at.append(r.ended_at);
  b.latency_ms.append(r.latency_ms);
  b.ttft_ms.append(r.ttft_ms);
  b.status.append(r.status);
  b.error.append(r.error);
  b.metadata.append(r.metadata);
  b.raw.append(r.raw, rawBytes.get(r));
  b.source.append(r.source);
  b.source_format.append(r.source_format);
  b.source_line.append(r.source_line);
  b.source_id.append(r.source_id);
  b.import_id.append(r.import_id);
  b.source_trajectory_id.append(r.source_trajectory_id);
}

/** Step records → one Arrow record batch, built column-wise. */
export function stepsToBatch(rows: readonly StepRecord[]): RecordBatch {
  const b = builders();
  for (const r of rows) appendRow(b, r);
  const data = STEP_COLUMNS.map((k) => b[k].finish());
  const schema = new Schema(STEP_COLUMNS.map((k, i) => new Field(k, data[i].type, true)));
  const struct = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children: data });
  return new RecordBatch(schema, struct);
}

/**
 * A batch of steps being built: each step goes into the column builders as it is made, so neither it nor the record
 * it came from outlives its record (holding a batch's objects until the flush kept ~16 MB of them alive through
 * every young-generation collection). The builders, grown to batch size, are kept from one batch to the next.
 */
export class StepBatch {
  private b: Builders = builders();
  rows = 0;
  add(r: StepRecord): void {
    appendRow(this.b, r);
    this.rows++;
  }
  /** The batch as Arrow IPC stream bytes (the writer copies every buffer), and a fresh start. */
  flush(): Uint8Array {
    try {
      return tableToIPC(new Table(this.finish()), 'stream');
    } finally {
      for (const k of STEP_COLUMNS) this.b[k].reset();
      this.rows = 0;
    }
  }
  private finish(): RecordBatch {
    const data = STEP_COLUMNS.map((k) => this.b[k].finish());
    const schema = new Schema(STEP_COLUMNS.map((k, i) => new Field(k, data[i].type, true)));
    const struct = makeData({ type: new Struct(schema.fields), length: this.rows, nullCount: 0, children: data });
    return new RecordBatch(schema, struct);
  }
}

let spare: StepBatch | null = null;

/** Step records → Arrow IPC stream bytes, ready to transfer to the pool worker. */
export function stepsToIPC(rows: readonly StepRecord[]): Uint8Array {
  const b = spare ?? new StepBatch();
  spare = null;
  try {
    for (const r of rows) b.add(r);
    return b.flush();
  } finally {
    spare = b;
  }
}

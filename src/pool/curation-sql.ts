/**
 * Curation helpers available in every SQL cell, created when the pool opens (macros, views and the
 * near-duplicate table; documented in the built-in reference panel, <aw-sql-reference>).
 */
import { sqlString } from './sql';

export interface SqlHelper {
  name: string;
  signature: string;
  doc: string;
  /** What kind of object the pool creates. */
  kind?: 'macro' | 'view' | 'table';
  sql: string;
}

/** RE2 patterns (DuckDB regexp_*), also used by the unit tests to check them against JS RegExp. */
export const PII_PATTERNS = {
  email: String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`,
  secret: String.raw`\b(sk-(ant-|proj-|or-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9-]{10,})\b|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}`,
  phone: String.raw`(\+\d{1,3}[ .-]?)?(\(\d{3}\)|\b\d{3})[ .-]\d{3}[ .-]\d{4}\b`,
} as const;

export const PII_MARKS = { email: '[email]', secret: '[secret]', phone: '[phone]' } as const;

// Stryker disable next-line StringLiteral: the patterns and marks quoted with it contain no quote
const q = sqlString;

const REDACT_MESSAGE_BODY = `CASE WHEN m IS NULL THEN NULL ELSE struct_pack(
    "role" := m."role", "content" := redact_pii(m."content"), reasoning := redact_pii(m.reasoning), "name" := m."name",
    tool_call_id := m.tool_call_id,
    tool_calls := list_transform(m.tool_calls, t -> struct_pack(id := t.id, "type" := t."type",
      "function" := struct_pack("name" := t."function"."name", arguments := redact_pii(t."function".arguments)))),
    parts := redact_pii(m.parts), is_error := m.is_error) END`;

export const CURATION_HELPERS: SqlHelper[] = [
  {
    name: 'conversation_text',
    signature: 'conversation_text(messages, response)',
    doc: 'Normalized text of a conversation (roles, trimmed lower-case content, tool calls), the input of dedupe hashes.',
    sql: `CREATE OR REPLACE MACRO conversation_text(msgs, resp) AS
      array_to_string(list_transform(list_concat(coalesce(msgs, []), CASE WHEN resp IS NULL THEN [] ELSE [resp] END),
        m -> m.role || ':' || lower(trim(regexp_replace(coalesce(m.content, ''), '\\s+', ' ', 'g'))) || coalesce(array_to_string(list_transform(m.tool_calls, t -> t.function.name || t.function.arguments), ','), '')), '\n')`,
  },
  {
    name: 'conversation_plain',
    signature: 'conversation_plain(messages, response)',
    doc: 'The text of a conversation as it is (content, reasoning, tool-call arguments; one message a line), for search and PII scans.',
    sql: `CREATE OR REPLACE MACRO conversation_plain(msgs, resp) AS
      array_to_string(list_transform(list_concat(coalesce(msgs, []), CASE WHEN resp IS NULL THEN [] ELSE [resp] END),
        m -> concat_ws(' ', m.content, m.reasoning, array_to_string(list_transform(m.tool_calls, t -> t.function.arguments), ' '))), '\n')`,
  },
  {
    name: 'conversation_hash',
    signature: 'conversation_hash(messages, response)',
    doc: 'md5 of conversation_text: equal for exact duplicates up to whitespace and case.',
    sql: `CREATE OR REPLACE MACRO conversation_hash(msgs, resp) AS md5(conversation_text(msgs, resp))`,
  },
  {
    name: 'estimate_tokens',
    signature: 'estimate_tokens(text)',
    doc: 'Rough token count of a text (≈ 4 characters per token), for length filters when usage is unknown.',
    sql: `CREATE OR REPLACE MACRO estimate_tokens(t) AS CAST(ceil(length(coalesce(t, '')) / 4.0) AS INTEGER)`,
  },
  {
    name: 'conversation_chars',
    signature: 'conversation_chars(messages, response)',
    doc: 'Characters of content, reasoning and tool-call arguments over the whole conversation; estimate_tokens-compatible (÷ 4).',
    sql: `CREATE OR REPLACE MACRO conversation_chars(msgs, resp) AS
      coalesce(list_sum(list_transform(list_concat(coalesce(msgs, []), CASE WHEN resp IS NULL THEN [] ELSE [resp] END),
        m -> length(coalesce(m.content, '')) + length(coalesce(m.reasoning, ''))
          + coalesce(list_sum(list_transform(m.tool_calls, t -> length(coalesce(t.function.arguments, '')))), 0))), 0)::BIGINT`,
  },
  {
    name: 'conversation_tokens',
    signature: 'conversation_tokens(messages, response)',
    doc: 'Estimated tokens of a whole conversation (conversation_chars ÷ 4), when prompt_tokens / completion_tokens are unknown.',
    sql: `CREATE OR REPLACE MACRO conversation_tokens(msgs, resp) AS CAST(ceil(conversation_chars(msgs, resp) / 4.0) AS BIGINT)`,
  },
  {
    name: 'exact_duplicates',
    kind: 'view',
    signature: 'exact_duplicates (view: step_id, trajectory_uid, hash, dup_count, dup_rank)',
    doc: 'Steps grouped by conversation_hash. dup_rank = 1 is the copy to keep (first imported, then first in its file); dup_rank > 1 are exact duplicates. E.g. SELECT * FROM exact_duplicates WHERE dup_count > 1.',
    sql: `CREATE OR REPLACE VIEW exact_duplicates AS
      SELECT step_id, trajectory_uid, hash,
        count(*) OVER (PARTITION BY hash)::INTEGER AS dup_count,
        row_number() OVER (PARTITION BY hash ORDER BY import_id NULLS LAST, source_line, step_id)::INTEGER AS dup_rank
      FROM (SELECT step_id, trajectory_uid, import_id, source_line, conversation_hash(messages, response) AS hash FROM steps)`,
  },
  {
    name: 'near_duplicates',
    kind: 'table',
    signature: 'near_duplicates (table: step_id, cluster_id, similarity)',
    doc: 'Filled by "Find near-duplicates" (MinHash over word shingles, in a worker): one row per step in a cluster of similar conversations; cluster_id is the step_id of the cluster representative (similarity 1), others carry their estimated Jaccard similarity to it.',
    sql: `CREATE TABLE IF NOT EXISTS near_duplicates (step_id VARCHAR PRIMARY KEY, cluster_id VARCHAR, similarity DOUBLE)`,
  },
  {
    name: 'split_of',
    signature: "split_of(key, val_fraction, seed)",
    doc: "Deterministic 'train' / 'val' from a hash of key (use trajectory_uid, or prompt_uid to keep GRPO groups together): the same key always lands in the same split, so no trajectory leaks across. E.g. split_of(trajectory_uid, 0.1, 'v1').",
    sql: `CREATE OR REPLACE MACRO split_of(k, val_fraction, seed) AS
      CASE WHEN (md5_number(coalesce(CAST(seed AS VARCHAR), '') || ':' || coalesce(CAST(k AS VARCHAR), '')) % 1000000) < CAST(round(val_fraction * 1000000) AS BIGINT)
        THEN 'val' ELSE 'train' END`,
  },
  {
    name: 'redact_pii',
    signature: 'redact_pii(text)',
    doc: 'Text with e-mail addresses, phone numbers and API-key-shaped strings replaced by [email], [phone], [secret].',
    sql: `CREATE OR REPLACE MACRO redact_pii(t) AS
      regexp_replace(regexp_replace(regexp_replace(t, ${q(PII_PATTERNS.secret)}, ${q(PII_MARKS.secret)}, 'g'),
        ${q(PII_PATTERNS.email)}, ${q(PII_MARKS.email)}, 'g'), ${q(PII_PATTERNS.phone)}, ${q(PII_MARKS.phone)}, 'g')`,
  },
  {
    name: 'pii_kinds',
    signature: 'pii_kinds(text)',
    doc: "Which kinds of PII / secrets a text contains: a list of 'email', 'phone', 'secret' (empty when clean).",
    sql: `CREATE OR REPLACE MACRO pii_kinds(t) AS list_filter([
        CASE WHEN regexp_matches(coalesce(t, ''), ${q(PII_PATTERNS.email)}) THEN 'email' END,
        CASE WHEN regexp_matches(coalesce(t, ''), ${q(PII_PATTERNS.phone)}) THEN 'phone' END,
        CASE WHEN regexp_matches(coalesce(t, ''), ${q(PII_PATTERNS.secret)}) THEN 'secret' END], x -> x IS NOT NULL)`,
  },
  {
    name: 'redact_message',
    signature: 'redact_message(message)',
    doc: 'One chat message (e.g. response) with redact_pii applied to content, reasoning, tool-call arguments and parts.',
    sql: `CREATE OR REPLACE MACRO redact_message(m) AS ${REDACT_MESSAGE_BODY}`,
  },
  {
    name: 'redact_messages',
    signature: 'redact_messages(messages)',
    doc: 'A message list with redact_message applied to every message. E.g. SELECT redact_messages(messages) AS messages FROM steps.',
    sql: `CREATE OR REPLACE MACRO redact_messages(ms) AS list_transform(ms, m -> ${REDACT_MESSAGE_BODY})`,
  },
  {
    name: 'pii_scan',
    kind: 'view',
    signature: 'pii_scan (view: step_id, trajectory_uid, kinds)',
    doc: 'Steps whose conversation, response or error contains PII / secrets, with the kinds found.',
    sql: `CREATE OR REPLACE VIEW pii_scan AS
      SELECT step_id, trajectory_uid, kinds FROM (
        SELECT step_id, trajectory_uid,
          pii_kinds(concat_ws(' ', conversation_plain(messages, response), error)) AS kinds
        FROM steps) WHERE len(kinds) > 0`,
  },
];

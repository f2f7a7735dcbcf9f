/**
 * Curation helpers available in every SQL cell, created when the pool opens (macros and views;
 * documented in the built-in reference panel).
 */
export interface SqlHelper {
  name: string;
  signature: string;
  doc: string;
  sql: string;
}

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
];

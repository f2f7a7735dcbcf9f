/**
 * Training layouts as SQL over `steps s LEFT JOIN curation c`.
 * Every layout keeps step_id / trajectory_uid for lineage.
 *
 * One concept: every layout's SQL over the one shared selection and problem checks, so the layouts' common columns and rules are read side by side.
 */
import type { DatasetLayout, ExportDatasetOptions } from '../contract/reports';
import { TRAINABLE_SQL } from '../pool/schema';
import { sqlIdent, sqlString } from '../pool/sql';

export const LAYOUTS: Record<DatasetLayout, string> = {
  steps: 'Step records as they are, plus curation columns',
  sft: 'One row per trajectory (TRL conversational messages + tools), or per step (prompt + completion: loss on the assistant turn only)',
  rl_steps: 'One row per step for step-level RL (prompt, response, reward, GRPO prompt_uid, token ids)',
  verl_prompts: 'veRL RLHF prompt rows: data_source, prompt, ability, reward_model, extra_info',
  dpo: 'Preference pairs (prompt, chosen, rejected) from one prompt group with different rewards',
};

export type SelectionOptions = Pick<ExportDatasetOptions, 'where' | 'trainableOnly' | 'redact' | 'split' | 'splitColumn'>;

const q = sqlString;

/**
 * The selected steps: trainable ones (by default) that match the user's predicate and split, redacted on request.
 * quality / trainable are the effective values (defaults filled in), which also keeps the steps layout from having an
 * all-NULL BOOLEAN column that parquet-wasm cannot write.
 */
export function selection(opts: SelectionOptions): string {
  const conds: string[] = [];
  if (opts.trainableOnly !== false) conds.push(TRAINABLE_SQL);
  if (opts.where?.trim()) conds.push(`(${opts.where})`);
  if (opts.split) conds.push(`${opts.splitColumn === 'channel' ? 's.channel' : 'coalesce(c.split, s.channel)'} = ${q(opts.split)}`);
  const cols = opts.redact
    ? `s.* REPLACE (redact_messages(s.messages) AS messages, redact_message(s.response) AS response,
        redact_pii(s.response_text) AS response_text, redact_pii(s.error) AS error, redact_pii(s.raw) AS raw)`
    : 's.*';
  return `SELECT ${cols}, coalesce(c.quality, 'unreviewed') AS quality, ${TRAINABLE_SQL} AS trainable, c.tags, c.note, c.split
    FROM steps s LEFT JOIN curation c USING (step_id)
    ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}`;
}

/** An exported message's role (developer → system) and content (always text: '' for a tool-call-only turn). */
const roleOut = (m: string) => `CASE ${m}.role WHEN 'developer' THEN 'system' ELSE ${m}.role END`;
const contentOut = (m: string) => `coalesce(${m}.content, '')`;
/** A message as templates read it: roleOut, contentOut, reasoning as `reasoning_content`. */
function messageOut(m: string): string {
  return `{'role': ${roleOut(m)}, 'content': ${contentOut(m)},
    'reasoning_content': ${m}.reasoning, 'name': ${m}.name, 'tool_call_id': ${m}.tool_call_id, 'tool_calls': ${m}.tool_calls, 'parts': ${m}.parts}`;
}
const messagesOut = (l: string) => `list_transform(${l}, x -> ${messageOut('x')})`;
const responseOut = (r: string) => `CASE WHEN ${r} IS NULL THEN NULL ELSE ${messageOut(r)} END`;
/** messages + response as stored (response has the type of a message). */
const RAW_CONVERSATION = 'CASE WHEN response IS NULL THEN messages ELSE list_concat(messages, [response]) END';
/** messages + response, in the exported message shape. */
const CONVERSATION = messagesOut(RAW_CONVERSATION);

const any = (list: string, lambda: string) => `coalesce(list_bool_or(list_transform(${list}, ${lambda})), false)`;
const calls = (m: string) => `coalesce(len(${m}.tool_calls), 0)`;
/** A turn with no text and no tool call; `content`: the text read (the message's own unless told). */
const emptyTurn = (m: string, content = `${m}.content`) => `(trim(${content}) = '' AND ${calls(m)} = 0)`;

/** Why a conversation is not one a chat template / trainer accepts, as SQL text over an exported message list (NULL = fine). */
export const PROBLEMS = {
  empty: 'empty conversation',
  unknownRole: 'unknown role',
  noUser: 'no user turn',
  notUserFirst: 'does not start with a user turn',
  emptyAssistant: 'empty assistant turn',
  unanswered: 'tool call not answered',
  orphanTool: 'tool result without a call',
  noAssistant: 'no assistant turn',
  noResponse: 'no response',
  emptyResponse: 'empty response',
  emptyPrompt: 'empty prompt',
} as const;

/**
 * The checks of a conversation (decision 012): roles known; a user turn, and the first non-system turn is one; no
 * assistant turn without text or tool calls; every tool call answered right after its turn by one tool message per call
 * (matching ids where both sides have one, no call answered twice), with nothing else in between; no tool message outside
 * such a block.
 * `openEnd`: the last message may be an assistant turn whose calls are not answered yet (a conversation ending at the
 * model's turn). `needAssistant`: there must be an assistant turn to learn from. An empty assistant turn is a problem only
 * as the conversation's last one (the final target): an empty turn earlier happened in the source and renders, and
 * dropping the conversation for it lost every good turn; a prompt's history (`history`) is no target at all.
 */
export function conversationProblem(c: string, opts: { openEnd: boolean; needAssistant: boolean; history?: boolean; stored?: boolean }): string {
  // Every rule reads a slim copy of the list, built once per conversation and bound to `_f` by a one-element
  // list_transform: per message its role, tool_call_id, call ids, number of calls (`k`) and whether it is an empty turn
  // (`e`). The lambdas that look at other messages capture that copy, not the messages (content, parts…) nor the
  // expression that built them: a captured list is copied for every element, and an expression is evaluated again.
  // `stored`: c holds messages as stored; their facts are read as of the exported message (messageOut's role and content)
  const role = opts.stored ? roleOut('x') : 'x.role';
  const empty = opts.stored ? emptyTurn('x', contentOut('x')) : emptyTurn('x');
  const facts = `list_transform(${c}, x -> {'role': ${role}, 'tool_call_id': x.tool_call_id, 'ids': list_transform(x.tool_calls, t -> t.id),
    'k': ${calls('x')}, 'e': ${empty}})`;
  const block = '_f[i + 1 : i + m.k]';
  // each result answers one call: no id answered twice, and (when every call has an id) no id of no call. Not
  // list_contains(ids, NULL): that is NULL, never true, and the clause then let any id of no call through.
  const ids = `list_filter(list_transform(${block}, b -> b.tool_call_id), x -> x IS NOT NULL)`;
  const answered = `(len(${block}) = m.k
      AND list_bool_and(list_transform(${block}, b -> b.role = 'tool'))
      AND coalesce(_f[i + m.k + 1].role, '') <> 'tool'
      AND list_bool_and(list_transform(m.ids, t -> t IS NULL OR ${any(block, 'b -> b.tool_call_id IS NULL OR b.tool_call_id = t')}))
      AND len(${ids}) = len(list_distinct(${ids}))
      AND (len(list_filter(m.ids, t -> t IS NULL)) > 0 OR coalesce(list_bool_and(list_transform(${ids}, x -> list_contains(m.ids, x))), true)))`;
  const unanswered = any('_f', `(m, i) -> m.role = 'assistant' AND m.k > 0 AND ${opts.openEnd ? 'i < len(_f) AND ' : ''}NOT ${answered}`);
  const orphan = any('_f', "(m, i) -> m.role = 'tool' AND NOT (i > 1 AND (_f[i - 1].role = 'tool' OR (_f[i - 1].role = 'assistant' AND _f[i - 1].k > 0)))");
  return `list_transform([${facts}], _f -> CASE
    WHEN _f IS NULL OR len(_f) = 0 THEN '${PROBLEMS.empty}'
    WHEN ${any('_f', "m -> m.role NOT IN ('system', 'user', 'assistant', 'tool')")} THEN '${PROBLEMS.unknownRole}'
    WHEN NOT ${any('_f', "m -> m.role = 'user'")} THEN '${PROBLEMS.noUser}'
    WHEN list_filter(_f, m -> m.role <> 'system')[1].role <> 'user' THEN '${PROBLEMS.notUserFirst}'
    ${opts.history ? '' : `WHEN coalesce(list_filter(_f, m -> m.role = 'assistant')[-1].e, false) THEN '${PROBLEMS.emptyAssistant}'`}
    WHEN ${unanswered} THEN '${PROBLEMS.unanswered}'
    WHEN ${orphan} THEN '${PROBLEMS.orphanTool}'
    ${opts.needAssistant ? `WHEN NOT ${any('_f', "m -> m.role = 'assistant'")} THEN '${PROBLEMS.noAssistant}'` : ''}
  END)[1]`;
}

/** The response of a step as a training target: present, and with text or tool calls. */
const responseProblem = (r: string) => `CASE WHEN ${r} IS NULL THEN '${PROBLEMS.noResponse}'
    WHEN trim(coalesce(${r}.content, '')) = '' AND ${calls(r)} = 0 THEN '${PROBLEMS.emptyResponse}' END`;

/**
 * Tool definitions of a trajectory: the union over its selected steps (first-seen order), as JSON text. No JSON functions
 * here (DuckDB-WASM has no json extension offline): DuckDB's VARCHAR → VARCHAR[] cast splits a JSON array into the texts
 * of its elements, which are then deduplicated as text.
 */
const TOOLS_UNION = `tool_lists AS (
    SELECT trajectory_uid, flatten(list(TRY_CAST(tools AS VARCHAR[]) ORDER BY step_index)) AS l FROM sel WHERE tools IS NOT NULL GROUP BY trajectory_uid),
  tool_defs AS (
    SELECT trajectory_uid, CASE WHEN len(l) > 0 THEN '[' || array_to_string(list_filter(l, (x, i) -> list_position(l, x) = i), ', ') || ']' END AS tools FROM tool_lists)`;

interface Checked {
  /** The layout's rows plus a `problem` column (NULL = a conversation a trainer accepts). */
  sql: string;
  order: string;
  /** The column that names a row in previews. */
  id: string;
}

/** Layout options, plus what exportDataset resolves before it runs (resolveLayoutOptions). */
export type LayoutOptions = Omit<ExportDatasetOptions, 'format'> & {
  /** verl_prompts: DuckDB types of the sources' JSON-valued fields (extra_info, tools_kwargs, …), so they export as structs. */
  jsonTypes?: Record<string, string> | null;
  /** verl_prompts: the keys of the sources' extra_info objects (fields of jsonTypes.extra_info). */
  extraKeys?: string[];
};

/** veRL fields the sources keep as JSON text in `metadata`, exported as typed columns (extra_info: merged into ours). */
const VERL_JSON = ['extra_info', 'tools_kwargs', 'interaction_kwargs', 'environment_context'] as const;
/** Keys of extra_info the export sets itself. */
const OWN_EXTRA = ['index', 'split', 'trajectory_uid', 'step_id'];

type Shape = { kind: 'null' } | { kind: 'scalar'; type: string } | { kind: 'list'; of: Shape } | { kind: 'struct'; fields: Map<string, Shape> };

function shapeOf(v: unknown): Shape {
  if (v === null || v === undefined) return { kind: 'null' };
  if (typeof v === 'boolean') return { kind: 'scalar', type: 'BOOLEAN' };
  if (typeof v === 'number') return { kind: 'scalar', type: Number.isInteger(v) ? 'BIGINT' : 'DOUBLE' };
  if (typeof v === 'string') return { kind: 'scalar', type: 'VARCHAR' };
  if (Array.isArray(v)) return { kind: 'list', of: v.map(shapeOf).reduce(merge, { kind: 'null' }) };
  const fields = new Map<string, Shape>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) fields.set(k, shapeOf(x));
  return { kind: 'struct', fields };
}

/** The union of two shapes; where they conflict, text (the cast keeps the value's JSON text). */
function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    if (a.type === b.type) return a;
    return { kind: 'scalar', type: [a.type, b.type].every((t) => t === 'BIGINT' || t === 'DOUBLE') ? 'DOUBLE' : 'VARCHAR' };
  }
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', of: merge(a.of, b.of) };
  if (a.kind === 'struct' && b.kind === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, x] of b.fields) fields.set(k, merge(fields.get(k) ?? { kind: 'null' }, x));
    return { kind: 'struct', fields };
  }
  return { kind: 'scalar', type: 'VARCHAR' };
}

const ident = sqlIdent;

/** A DuckDB type for a shape; null when it has no fields, keys that differ only in case, or too many fields to be a schema. */
function duckType(s: Shape, budget: { fields: number }): string | null {
  if (s.kind === 'null') return 'VARCHAR';
  if (s.kind === 'scalar') return s.type;
  if (s.kind === 'list') {
    const of = duckType(s.of, budget);
    return of ? `${of}[]` : null;
  }
  const keys = [...s.fields.keys()];
  budget.fields += keys.length;
  if (!keys.length || budget.fields > 200 || new Set(keys.map((k) => k.toLowerCase())).size !== keys.length) return null;
  const parts: string[] = [];
  for (const k of keys) {
    const t = duckType(s.fields.get(k)!, budget);
    if (!t) return null;
    parts.push(`${ident(k)} ${t}`);
  }
  return `STRUCT(${parts.join(', ')})`;
}

/** Fill in what a layout needs to know about the data before its SQL is written (verl_prompts: the types of JSON fields). */
export async function resolveLayoutOptions(rows: (sql: string) => Promise<Record<string, unknown>[]>, opts: LayoutOptions): Promise<LayoutOptions> {
  if (opts.layout !== 'verl_prompts' || opts.jsonTypes !== undefined) return opts;
  const jsonTypes: Record<string, string> = {};
  const extraKeys: string[] = [];
  // every key's distinct values (at most 20,000 each) in one query: a layout's selection costs the engine more to plan
  // than to run on most pools (four queries took ≈ 4 × 6 ms on an empty pool in DuckDB-WASM). In a fixed order: the
  // struct fields of extra_info follow the order values are seen (DISTINCT alone differed between engines)
  const found = await rows(`SELECT key, v FROM (
      SELECT DISTINCT keys.key, sel.metadata[keys.key] AS v FROM (${selection(opts)}) sel, (SELECT unnest([${VERL_JSON.map((k) => q(k)).join(', ')}]) AS key) keys
      WHERE sel.metadata[keys.key] IS NOT NULL)
    QUALIFY row_number() OVER (PARTITION BY key ORDER BY v) <= 20000 ORDER BY key, v`);
  for (const key of VERL_JSON) {
    const values = found.filter((r) => r.key === key);
    if (!values.length) continue;
    let shape: Shape = { kind: 'null' };
    for (const r of values) {
      let v: unknown = r.v;
      try {
        v = JSON.parse(String(r.v));
      } catch {
        // plain text stays text
      }
      shape = merge(shape, shapeOf(v));
    }
    const t = duckType(shape, { fields: 0 });
    if (!t) continue;
    if (key === 'extra_info') {
      if (shape.kind !== 'struct') continue;
      extraKeys.push(...shape.fields.keys());
    }
    jsonTypes[key] = t;
  }
  return { ...opts, jsonTypes, extraKeys };
}

/** extra_info: our keys (index = prompt_uid, split, lineage) plus the source's own extra_info keys, typed. */
function extraInfoSql(types: Record<string, string> | null | undefined, keys: string[]): string {
  const own = `'index': prompt_uid, 'split': coalesce(split, channel), 'trajectory_uid': trajectory_uid, 'step_id': step_id`;
  const fields: string[] = [];
  for (const k of keys) if (!OWN_EXTRA.includes(k.toLowerCase())) fields.push(`${q(k)}: _extra.${ident(k)}`);
  if (types?.tools_kwargs && !keys.some((k) => k.toLowerCase() === 'tools_kwargs')) fields.push(`'tools_kwargs': _tools_kwargs`);
  return `{${[own, ...fields].join(', ')}}`;
}

/**
 * JSON text → a typed value with DuckDB's own VARCHAR → STRUCT / LIST cast (no json extension in the browser). The cast
 * reads `\"` and `\\` but not JSON's other escapes, so those are decoded first (a `\\` is set aside so `\\n` stays
 * a backslash and an n); `\uXXXX` escapes stay as written (JSON.stringify writes them only for rare control characters).
 */
function castJson(x: string, type: string): string {
  let t = `replace(${x}, '\\\\', chr(1))`;
  for (const [esc, ch] of [['n', 10], ['t', 9], ['r', 13], ['b', 8], ['f', 12]] as const) t = `replace(${t}, '\\${esc}', chr(${ch}))`;
  t = `replace(replace(${t}, '\\/', '/'), chr(1), '\\\\')`;
  return `TRY_CAST(${t} AS ${type})`;
}

const jsonCol = (types: Record<string, string> | null | undefined, key: string) =>
  types?.[key] && types[key] !== 'VARCHAR' ? castJson(`metadata[${q(key)}]`, types[key]) : `metadata[${q(key)}]`;

function checked(opts: LayoutOptions): Checked {
  const sel = `WITH sel AS (${selection(opts)})`;
  const min = opts.dpoMinMargin;
  // A margin ≤ 0 is already implied by a.reward > b.reward and Number.isFinite rejects null / undefined, so forcing
  // these guards true or widening `> 0` only changes the SQL text, never the pairs.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, see above
  const margin = min !== undefined && min !== null && Number.isFinite(min) && min > 0 ? ` AND a.reward - b.reward >= ${Number(min)}` : '';
  switch (opts.layout) {
    case 'steps':
      // the step record as it is (re-importable); metadata as a list of {key, value} (no Arrow MAP: `datasets` cannot read one)
      return { sql: `${sel} SELECT * REPLACE (map_entries(metadata) AS metadata), NULL::VARCHAR AS problem FROM sel`, order: 'trajectory_uid, step_index', id: 'step_id' };
    case 'sft':
      if (opts.sftPer === 'step') {
        return {
          sql: `${sel}, conv AS (
            SELECT trajectory_uid, step_id, prompt_uid, step_index, is_last, data_source, agent, model, channel, split,
              ${messagesOut('messages')} AS prompt, CASE WHEN response IS NULL THEN [] ELSE [${responseOut('response')}] END AS completion,
              ${CONVERSATION} AS messages, tools, reward, response AS _response, ${RAW_CONVERSATION} AS _conv FROM sel)
            SELECT * EXCLUDE (_response, _conv), coalesce(${responseProblem('_response')},
              ${conversationProblem('_conv', { openEnd: true, needAssistant: true, stored: true })}) AS problem FROM conv`,
          order: 'trajectory_uid, step_index',
          id: 'step_id',
        };
      }
      return {
        sql: `${sel}, ${TOOLS_UNION}, last AS (
            SELECT * FROM sel QUALIFY row_number() OVER (PARTITION BY trajectory_uid ORDER BY step_index DESC) = 1),
          conv AS (SELECT l.trajectory_uid, step_id, prompt_uid, data_source, agent, model, channel, split,
            ${CONVERSATION} AS messages, coalesce(d.tools, l.tools) AS tools, reward, ${RAW_CONVERSATION} AS _conv
            FROM last l LEFT JOIN tool_defs d USING (trajectory_uid))
          SELECT * EXCLUDE (_conv), ${conversationProblem('_conv', { openEnd: true, needAssistant: true, stored: true })} AS problem FROM conv`,
        order: 'trajectory_uid',
        id: 'trajectory_uid',
      };
    case 'rl_steps':
      return {
        sql: `${sel}, conv AS (SELECT step_id, trajectory_uid, prompt_uid, step_index, is_last, data_source, agent, model, policy_version,
            ${messagesOut('messages')} AS prompt, ${responseOut('response')} AS response, response_text, reward, finish_reason, prompt_ids, response_ids,
            rollout_log_probs, prompt_tokens, completion_tokens, tools, channel, split, messages AS _messages FROM sel)
          SELECT * EXCLUDE (_messages), coalesce(CASE WHEN len(prompt) = 0 THEN '${PROBLEMS.emptyPrompt}' END,
            ${conversationProblem('_messages', { openEnd: false, needAssistant: false, history: true, stored: true })}, ${responseProblem('response')}) AS problem FROM conv`,
        order: 'prompt_uid, trajectory_uid, step_index',
        id: 'step_id',
      };
    case 'verl_prompts': {
      // the prompt is the leading system / user turns of the group's first step; the reward target comes from the source
      const types = opts.jsonTypes;
      return {
        sql: `${sel}, first AS (
            SELECT *, ${messagesOut('messages')} AS msgs, ${types?.extra_info?.startsWith('STRUCT(') ? castJson(`metadata['extra_info']`, types.extra_info) : 'NULL'} AS _extra,
              ${jsonCol(types, 'tools_kwargs')} AS _tools_kwargs
            FROM sel QUALIFY row_number() OVER (PARTITION BY prompt_uid ORDER BY trajectory_uid, step_index) = 1),
          conv AS (SELECT coalesce(data_source, 'unknown') AS data_source,
            list_filter(msgs, (m, i) -> i < coalesce(list_position(list_transform(msgs, x -> x.role IN ('system', 'user')), false), len(msgs) + 1)) AS prompt,
            coalesce(metadata['ability'], 'agent') AS ability,
            {'style': coalesce(metadata['reward_style'], 'rule'), 'ground_truth': coalesce(metadata['ground_truth'], metadata['answer'], '')} AS reward_model,
            ${extraInfoSql(types, opts.extraKeys ?? [])} AS extra_info,
            metadata['agent_name'] AS agent_name,
            ${jsonCol(types, 'environment_context')} AS environment_context,
            prompt_uid, trajectory_uid, step_id FROM first)
          -- veRL renders any leading system / user turns (agent-loop prompts may hold no user turn): only an empty one is no prompt
          SELECT *, CASE WHEN len(prompt) = 0 THEN '${PROBLEMS.emptyPrompt}' END AS problem FROM conv`,
        order: 'prompt_uid',
        id: 'prompt_uid',
      };
    }
    case 'dpo':
      // a trajectory takes part only when its whole conversation passes the checks; the excluded ones are counted per trajectory
      return {
        // the messages of each trajectory's first and last step, as stored, shaped once per trajectory
        sql: `${sel}, traj AS (
            SELECT * EXCLUDE (_first), ${messagesOut('_first')} AS first_messages, ${messagesOut('_conv')} AS conversation FROM (
              SELECT trajectory_uid, any_value(prompt_uid) AS prompt_uid, sum(reward) AS reward,
                arg_max(step_id, step_index) AS step_id, arg_min(messages, step_index) AS _first, arg_max(${RAW_CONVERSATION}, step_index) AS _conv
              FROM sel GROUP BY trajectory_uid HAVING count(reward) > 0)),
          checked AS (SELECT *, coalesce(CASE WHEN len(first_messages) = 0 THEN '${PROBLEMS.emptyPrompt}' END,
              ${conversationProblem('_conv', { openEnd: true, needAssistant: true, stored: true })}) AS problem FROM traj),
          ok AS (SELECT * FROM checked WHERE problem IS NULL),
          pairs AS (
            SELECT a.prompt_uid, a.trajectory_uid AS chosen_trajectory_uid, b.trajectory_uid AS rejected_trajectory_uid,
              a.step_id AS chosen_step_id, b.step_id AS rejected_step_id, a.reward AS chosen_reward, b.reward AS rejected_reward,
              a.reward - b.reward AS margin, a.first_messages AS prompt,
              a.conversation[len(a.first_messages) + 1:] AS chosen, b.conversation[len(b.first_messages) + 1:] AS rejected
            FROM ok a JOIN ok b ON a.prompt_uid = b.prompt_uid AND a.reward > b.reward${margin}),
          best AS (SELECT *, NULL::VARCHAR AS problem FROM pairs
            QUALIFY row_number() OVER (PARTITION BY prompt_uid ORDER BY margin DESC, chosen_trajectory_uid, rejected_trajectory_uid) = 1)
          SELECT * FROM best UNION ALL BY NAME
          SELECT prompt_uid, trajectory_uid AS chosen_trajectory_uid, step_id AS chosen_step_id, problem FROM checked WHERE problem IS NOT NULL`,
        order: 'prompt_uid',
        id: 'coalesce(chosen_trajectory_uid, prompt_uid)',
      };
  }
}

/**
 * A layout's SQL. By default (`validOnly`) rows whose conversation a trainer would reject are left out (counted by
 * problemsSql); with `validOnly: false` they stay, with a `problem` column that says why.
 */
export function datasetSql(opts: LayoutOptions): string {
  const c = checked(opts);
  if (opts.layout === 'steps') return `SELECT * EXCLUDE (problem) FROM (${c.sql}) ORDER BY ${c.order}`;
  return opts.validOnly === false
    ? `SELECT * FROM (${c.sql}) WHERE ${opts.layout === 'dpo' ? 'problem IS NULL OR chosen IS NOT NULL' : 'true'} ORDER BY ${c.order}`
    : `SELECT * EXCLUDE (problem) FROM (${c.sql}) WHERE problem IS NULL ORDER BY ${c.order}`;
}

/** Rows (dpo: trajectories) left out by the checks, by reason: `problem`, `n`. */
export function problemsSql(opts: LayoutOptions): string {
  return `SELECT problem, count(*)::INTEGER AS n FROM (${checked(opts).sql}) WHERE problem IS NOT NULL GROUP BY problem ORDER BY n DESC, problem`;
}

/** The first rows the checks reject: `id` (trajectory, step or prompt) and `problem`. */
export function problemRowsSql(opts: LayoutOptions, limit = 20): string {
  const c = checked(opts);
  return `SELECT ${c.id}::VARCHAR AS id, problem FROM (${c.sql}) WHERE problem IS NOT NULL ORDER BY ${c.order} LIMIT ${Math.max(1, Math.floor(limit))}`;
}

/** The column that names a row of a layout (what an export with tokens keys its exceptions on). */
export function rowIdSql(opts: LayoutOptions): string {
  return checked(opts).id;
}

/** The ORDER BY of a layout's rows (an export with tokens numbers the rows in it). */
export function rowOrderSql(opts: LayoutOptions): string {
  return checked(opts).order;
}

/**
 * An `sft` layout with tokens (decision 026): the rows the tokenizer's first pass left out are dropped, the rows it cut
 * keep their first `n` messages, and placeholder `input_ids` / `assistant_masks` / `n_tokens` columns are filled in by
 * the export worker chunk by chunk. `exceptions`: [row id, messages kept (0 = left out)].
 */
export function tokenizedSql(opts: LayoutOptions, exceptions: [string, number][]): string {
  const c = checked(opts);
  const base = datasetSql(opts);
  const cols = 'NULL::INTEGER[] AS input_ids, NULL::INTEGER[] AS assistant_masks, NULL::INTEGER AS n_tokens';
  if (!exceptions.length) return `SELECT *, ${cols} FROM (${base}) ORDER BY ${c.order}`;
  const values = exceptions.map(([id, n]) => `(${q(id)}, ${Math.max(0, Math.floor(n))})`).join(', ');
  return `SELECT x.* REPLACE (CASE WHEN k._keep IS NULL THEN x.messages ELSE x.messages[1:k._keep] END AS messages), ${cols}
    FROM (${base}) x LEFT JOIN (VALUES ${values}) k(_id, _keep) ON k._id = (x.${c.id})::VARCHAR
    WHERE k._keep IS NULL OR k._keep > 0 ORDER BY ${c.order}`;
}

/**
 * An `rl_steps` layout with re-tokenized ids (issue 19): an `ids_retokenized` column the export worker fills chunk by
 * chunk with `prompt_ids` / `response_ids` for the steps that have none (true), keeping the sampler's where they are
 * (false); NULL where neither exists (the template raised, no response).
 */
export function retokenizedSql(opts: LayoutOptions): string {
  return `SELECT *, NULL::BOOLEAN AS ids_retokenized FROM (${datasetSql(opts)}) ORDER BY ${checked(opts).order}`;
}

/** The columns of a query (`name`, `type`), for withoutMapsSql. */
export const describeSql = (sql: string) => `SELECT column_name AS name, column_type AS type FROM (DESCRIBE ${sql})`;

/** A query with its top-level MAP columns as lists of {key, value} (Parquet for `datasets`; see WorkerExporter.withoutMaps). */
export function withoutMapsSql(sql: string, cols: Record<string, unknown>[]): string {
  const maps = cols.filter((c) => String(c.type).startsWith('MAP(')).map((c) => `map_entries(${sqlIdent(String(c.name))}) AS ${sqlIdent(String(c.name))}`);
  return maps.length ? `SELECT * REPLACE (${maps.join(', ')}) FROM (${sql})` : sql;
}

/**
 * Curated trajectories as the Hugging Face Hub's Session Trace Simple Format (STS-Format): one JSONL file per session,
 * a header line `{type: "session", harness, id, name}` (any other field is allowed and ignored), then one line per
 * message `{type: "message", message: {role, content, reasoningContent, toolCalls: [{id, function: {name, arguments}}],
 * toolCallId}}` — the shape the Hub's trace viewer renders (hub-docs "Session Traces Format"; the workbench's own STS
 * reader, src/ingest/normalizers/pi-session.ts, reads it back). A session is an `sft` row (per trajectory): the
 * conversation as the curated layout has it, redaction and checks included.
 */
import { escapeValue } from '../export/part-folder';

/** The harness id the header names (the Hub picks a renderer by it; an unknown one renders plainly). */
export const STS_HARNESS = 'agentworld-workbench';

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** One message of an sft row (`{role, content, reasoning_content, name, tool_call_id, tool_calls, parts}`) in STS shape. */
function stsMessage(m: Obj, model: string | null): Obj {
  const role = str(m.role) ?? 'user';
  const out: Obj = { role, content: str(m.content) ?? '' };
  const reasoning = str(m.reasoning_content);
  if (reasoning) out.reasoningContent = reasoning;
  const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Obj[]) : [];
  if (calls.length) {
    out.toolCalls = calls.map((c) => {
      const fn = (c.function ?? {}) as Obj;
      return { id: str(c.id) ?? '', function: { name: str(fn.name) ?? '', arguments: str(fn.arguments) ?? '' } };
    });
  }
  const callId = str(m.tool_call_id);
  if (callId) out.toolCallId = callId;
  const name = str(m.name);
  if (name) out.name = name;
  if (role === 'assistant' && model) out.model = model;
  return out;
}

/** A readable title: the first user turn, one line, at most 80 characters. */
function title(messages: Obj[]): string | undefined {
  const first = messages.find((m) => m.role === 'user' && str(m.content));
  const text = str(first?.content)?.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** An sft row (per trajectory) as the lines of one STS file. */
export function stsLines(row: Obj): string[] {
  const messages = (Array.isArray(row.messages) ? row.messages : []) as Obj[];
  const model = str(row.model);
  const header: Obj = { type: 'session', harness: STS_HARNESS, id: String(row.trajectory_uid), name: title(messages) };
  for (const k of ['agent', 'model', 'data_source', 'prompt_uid', 'reward']) if (row[k] !== null && row[k] !== undefined) header[k] = row[k];
  return [header, ...messages.map((m) => ({ type: 'message', message: stsMessage(m, model) }))].map((l) => JSON.stringify(l));
}

/**
 * A file name for a session: its id escaped as partition values are (`A-Z a-z 0-9 . _ -` kept, the rest %-encoded),
 * capped, and told apart from a name already taken in any letter case (one file on macOS and Windows).
 */
export function sessionFileName(id: string, taken: Set<string>): string {
  let base = escapeValue(id);
  if (base.length > 120 || taken.has(`${base}.jsonl`.toLowerCase())) {
    let h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
    base = `${base.slice(0, 100).replace(/%[0-9A-F]?$/, '')}~${h.toString(16).padStart(8, '0')}`;
  }
  let name = `${base}.jsonl`;
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base}-${i}.jsonl`;
  taken.add(name.toLowerCase());
  return name;
}

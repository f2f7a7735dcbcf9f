import { isObject, type Obj, str } from '../contract/json';

/** Reassembles `chat.completion.chunk` events into one `chat.completion` object. */

interface ToolAcc {
  id: string | null;
  type: string;
  name: string;
  args: string;
}

interface ChoiceAcc {
  role: string;
  content: string;
  reasoning: string;
  refusal: string;
  hasContent: boolean;
  tools: Map<number, ToolAcc>;
  finish: string | null;
}

export interface ChunkStream {
  id: string;
  model: string | null;
  created: number | null;
  fingerprint: string | null;
  choices: Map<number, ChoiceAcc>;
  usage: Obj | null;
  error: unknown;
  chunks: number;
  /** Source line of the first chunk. */
  line: number | null;
}

export function isChunk(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (v.object === 'chat.completion.chunk') return true;
  return Array.isArray(v.choices) && v.choices.some((c) => isObject(c) && isObject(c.delta));
}

export function newStream(id: string, line: number | null): ChunkStream {
  return { id, model: null, created: null, fingerprint: null, choices: new Map(), usage: null, error: null, chunks: 0, line };
}

function choiceAcc(s: ChunkStream, index: number): ChoiceAcc {
  let c = s.choices.get(index);
  if (!c) {
    c = { role: 'assistant', content: '', reasoning: '', refusal: '', hasContent: false, tools: new Map(), finish: null };
    s.choices.set(index, c);
  }
  return c;
}

function addToolDelta(c: ChoiceAcc, d: Obj): void {
  // Some OpenAI-compatible servers omit `index`: a new id opens a call, no id continues the last one.
  let index = typeof d.index === 'number' ? d.index : -1;
  if (index < 0 && typeof d.id === 'string') for (const [k, t] of c.tools) if (t.id === d.id) index = k;
  if (index < 0) index = typeof d.id === 'string' && d.id ? c.tools.size : Math.max(0, c.tools.size - 1);
  let t = c.tools.get(index);
  if (!t) {
    t = { id: null, type: 'function', name: '', args: '' };
    c.tools.set(index, t);
  }
  if (typeof d.id === 'string' && d.id) t.id = d.id;
  if (typeof d.type === 'string') t.type = d.type;
  const fn = isObject(d.function) ? d.function : {};
  const name = str(fn.name);
  if (name && name !== t.name) t.name += name;
  const args = fn.arguments;
  if (typeof args === 'string') t.args += args;
  else if (args !== undefined && args !== null) t.args += JSON.stringify(args);
}

export function addChunk(s: ChunkStream, chunk: Obj): void {
  s.chunks++;
  s.model ??= str(chunk.model);
  if (typeof chunk.created === 'number') s.created ??= chunk.created;
  s.fingerprint ??= str(chunk.system_fingerprint);
  if (isObject(chunk.usage)) s.usage = chunk.usage;
  if (chunk.error !== undefined && chunk.error !== null) s.error = chunk.error;
  if (!Array.isArray(chunk.choices)) return;
  for (const ch of chunk.choices) {
    if (!isObject(ch)) continue;
    const c = choiceAcc(s, typeof ch.index === 'number' ? ch.index : 0);
    const d = isObject(ch.delta) ? ch.delta : isObject(ch.message) ? ch.message : {};
    if (typeof d.role === 'string' && d.role) c.role = d.role;
    if (typeof d.content === 'string') {
      c.content += d.content;
      c.hasContent = true;
    }
    if (typeof ch.text === 'string') {
      // legacy completions streams (`text_completion`) put the text on the choice
      c.content += ch.text;
      c.hasContent = true;
    }
    const r = d.reasoning_content ?? d.reasoning;
    if (typeof r === 'string') c.reasoning += r;
    if (typeof d.refusal === 'string') c.refusal += d.refusal;
    if (Array.isArray(d.tool_calls)) for (const t of d.tool_calls) if (isObject(t)) addToolDelta(c, t);
    if (isObject(d.function_call)) addToolDelta(c, { index: 0, function: d.function_call });
    if (typeof ch.finish_reason === 'string' && ch.finish_reason) c.finish = ch.finish_reason;
  }
}

/** The stream as the `chat.completion` object a non-streaming call would have returned. */
export function streamCompletion(s: ChunkStream): Obj {
  const choices = [...s.choices.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, c]) => {
      const message: Obj = { role: c.role, content: c.hasContent ? c.content : null };
      if (c.reasoning) message.reasoning_content = c.reasoning;
      if (c.refusal) message.refusal = c.refusal;
      if (c.tools.size) {
        message.tool_calls = [...c.tools.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([, t]) => ({ id: t.id, type: t.type, function: { name: t.name, arguments: t.args } }));
      }
      return { index, message, finish_reason: c.finish };
    });
  const out: Obj = { id: s.id, object: 'chat.completion', created: s.created, model: s.model, choices };
  if (s.fingerprint) out.system_fingerprint = s.fingerprint;
  if (s.usage) out.usage = s.usage;
  if (s.error !== null) out.error = s.error;
  out.stream_chunks = s.chunks;
  return out;
}

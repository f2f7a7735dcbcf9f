/**
 * Aider's logs, read line by line (the reader hands each line of these text files over as a string record):
 * - `.aider.llm.history` (`--llm-history-file`): each `TO LLM <time>` block is one request exactly as sent — messages
 *   separated by `-------`, every line prefixed with its role (`SYSTEM`, `USER`, `ASSISTANT`) — and the
 *   `LLM RESPONSE <time>` block after it its answer. One step per pair; a request whose answer was never logged
 *   (interrupted) makes none and the report says so. Requests that repeat the growing chat join one trajectory.
 * - `.aider.chat.history.md`: the chat as the user saw it, one trajectory per `# aider chat started at` session:
 *   `#### ` lines are the user's (`#### /…` commands to aider are not), `> ` lines aider's own output (its `Tokens: N sent, M received` line gives the
 *   usage of the answer before it), the rest the model's answers, one step each. The prompt of such a step is the
 *   visible chat, not what was sent (no system prompt, repo map or file contents): `metadata.context` says so.
 * Neither file names the model (the chat history's `Model:` line does).
 */
import { defineNormalizer, RecordError } from '../normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../../contract/step';
import { noteNaiveTimes, timeMs } from '../../contract/json';
import { providerFromModel } from '../chat-steps';
import { redactedJson } from '../../record/redact';

const TO_LLM = /^TO LLM (\d{4}-\d{2}-\d{2}T[\d:.]+)\s*$/;
const RESPONSE = /^LLM RESPONSE (\d{4}-\d{2}-\d{2}T[\d:.]+)\s*$/;
const ROLE_LINE = /^(SYSTEM|USER|ASSISTANT|TOOL)(?: (.*))?$/;
const SESSION = /^# aider chat started at (\d{4}-\d{2}-\d{2} [\d:]+)\s*$/;
const TOKENS = /^> Tokens: ([\d.]+)(k?) sent(?:, ([\d.]+)(k?) cache \w+)*(?:, ([\d.]+)(k?) received)?/;

interface Request {
  messages: ChatMessage[];
  line: number;
  sent: string;
  response: string[] | null;
  received: string | null;
  /** The block's lines as written, kept as the step's raw record. */
  text: string[];
}

interface ChatSession {
  started: string;
  line: number;
  model: string | null;
  messages: ChatMessage[];
  steps: StepDraft[];
  /** Lines of the turn being read, and whose it is. */
  turn: { role: 'user' | 'assistant'; lines: string[]; line: number } | null;
}

export interface AiderState {
  kind: 'llm' | 'chat' | null;
  requests: Request[];
  sessions: ChatSession[];
  /** The message being read in a TO LLM block. */
  current: { role: string; lines: string[] } | null;
  unanswered: number;
}

function detect(sample: readonly unknown[]): number {
  const first = sample.find((v) => typeof v === 'string' && v.trim());
  if (typeof first !== 'string') return 0;
  if (TO_LLM.test(first)) return 0.99;
  if (SESSION.test(first)) return 0.99;
  return 0;
}

const ROLES: Record<string, string> = { SYSTEM: 'system', USER: 'user', ASSISTANT: 'assistant', TOOL: 'tool' };

function endMessage(state: AiderState): void {
  const req = state.requests.at(-1);
  const cur = state.current;
  state.current = null;
  if (!req || !cur) return;
  if (req.response) req.response.push(...cur.lines);
  else req.messages.push({ role: ROLES[cur.role] ?? 'user', content: cur.lines.join('\n') });
}

function llmLine(line: string, n: number, state: AiderState): void {
  const to = TO_LLM.exec(line);
  if (to) {
    endMessage(state);
    state.requests.push({ messages: [], line: n, sent: to[1], response: null, received: null, text: [line] });
    return;
  }
  const res = RESPONSE.exec(line);
  const req = state.requests.at(-1);
  if (res && req) {
    endMessage(state);
    req.response = [];
    req.received = res[1];
    req.text.push(line);
    return;
  }
  if (!req) return;
  req.text.push(line);
  if (line === '-------') {
    endMessage(state);
    return;
  }
  const m = ROLE_LINE.exec(line);
  if (!m) {
    // a line without a role prefix (a blank line between blocks, or text aider did not prefix): part of the message being read
    if (state.current && line.trim()) state.current.lines.push(line);
    return;
  }
  if (!state.current || state.current.role !== m[1]) {
    endMessage(state);
    state.current = { role: m[1], lines: [] };
  }
  state.current.lines.push(m[2] ?? '');
}

function llmSteps(state: AiderState): TrajectoryDraft[] {
  endMessage(state);
  const out: TrajectoryDraft[] = [];
  for (const r of state.requests) {
    const text = r.response?.join('\n').trim() ?? '';
    if (!text) {
      state.unanswered++;
      continue;
    }
    out.push({
      link: true,
      common: { agent: 'aider' },
      steps: [
        {
          messages: r.messages,
          response: { role: 'assistant', content: text },
          finish_reason: 'stop',
          started_at: timeMs(r.sent),
          ended_at: timeMs(r.received),
          metadata: noteNaiveTimes(null, r.sent),
          source_line: r.line,
          raw: redactedJson(r.text.join('\n').trimEnd()),
        },
      ],
    });
  }
  return out;
}

function endTurn(s: ChatSession): void {
  const t = s.turn;
  s.turn = null;
  if (!t) return;
  const content = t.lines.join('\n').trim();
  if (!content) return;
  if (t.role === 'user') {
    s.messages.push({ role: 'user', content });
    return;
  }
  const answer: ChatMessage = { role: 'assistant', content };
  s.steps.push({ messages: [...s.messages], response: answer, finish_reason: 'stop', model: s.model, source_line: t.line, raw: null });
  s.messages.push(answer);
}

const count = (n: string | undefined, k: string | undefined) => (n === undefined ? null : Math.round(Number(n) * (k ? 1000 : 1)));

function chatLine(line: string, n: number, state: AiderState): void {
  const start = SESSION.exec(line);
  if (start) {
    const prev = state.sessions.at(-1);
    if (prev) endTurn(prev);
    state.sessions.push({ started: start[1], line: n, model: null, messages: [], steps: [], turn: null });
    return;
  }
  const s = state.sessions.at(-1);
  if (!s) return;
  if (line.startsWith('#### ')) {
    // `/add`, `/run` …: commands to aider, not said to the model
    if (line.startsWith('#### /') && s.turn?.role !== 'user') return;
    if (s.turn?.role !== 'user') endTurn(s);
    s.turn ??= { role: 'user', lines: [], line: n };
    s.turn.lines.push(line.slice(5));
    return;
  }
  if (line.startsWith('> ') || line === '>') {
    endTurn(s);
    const model = /^> (?:Main )?[Mm]odel: (\S+)/.exec(line);
    if (model) s.model = model[1];
    const tokens = TOKENS.exec(line);
    const last = s.steps.at(-1);
    if (tokens && last && last.prompt_tokens === undefined) {
      last.prompt_tokens = count(tokens[1], tokens[2]);
      last.completion_tokens = count(tokens[5], tokens[6]);
      const cost = /Cost: \$([\d.]+) message/.exec(line);
      if (cost) last.metadata = { ...last.metadata, cost_usd: cost[1] };
    }
    return;
  }
  if (s.turn?.role === 'user' && line.trim()) endTurn(s);
  s.turn ??= { role: 'assistant', lines: [], line: n };
  s.turn.lines.push(line);
}

function chatSteps(state: AiderState): TrajectoryDraft[] {
  const out: TrajectoryDraft[] = [];
  for (const s of state.sessions) {
    endTurn(s);
    if (!s.steps.length) continue;
    for (const st of s.steps) {
      st.provider = providerFromModel(s.model);
      st.metadata = noteNaiveTimes({ ...st.metadata, context: 'the visible chat (.aider.chat.history.md), not the request aider sent', session_started: s.started }, s.started);
    }
    out.push({ common: { agent: 'aider', model: s.model }, steps: s.steps });
  }
  return out;
}

export const aider = defineNormalizer<AiderState>({
  id: 'aider',
  label: 'Aider LLM history / chat history',
  detect,
  createState: () => ({ kind: null, requests: [], sessions: [], current: null, unanswered: 0 }),
  normalize(record, _ctx, state) {
    const line = record.value;
    if (typeof line !== 'string') throw new RecordError('expected a line of an Aider history file');
    state.kind ??= SESSION.test(line) ? 'chat' : TO_LLM.test(line) ? 'llm' : null;
    if (state.kind === 'llm') llmLine(line, record.line, state);
    else if (state.kind === 'chat') chatLine(line, record.line, state);
    return [];
  },
  flush: (_ctx, state) => (state.kind === 'chat' ? chatSteps(state) : llmSteps(state)),
  notes: (state) => (state.unanswered ? [`${state.unanswered} request(s) have no logged response (interrupted) and made no step`] : []),
});

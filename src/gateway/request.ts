/** What a captured request asked: its context as OpenAI-style messages, the tools offered, the model. */
import { requestMessages } from '../ingest/anthropic-message';
import { toolsText } from '../ingest/chat-steps';
import type { ChatMessage, ToolCall } from '../contract/step';
import { isObject, type Obj, str } from '../contract/json';
import { contentToText, openaiMessage } from '../contract/message';
import type { Api } from './assemble';

export interface RequestSummary {
  model: string | null;
  stream: boolean;
  messages: ChatMessage[];
  tools: string | null;
  /** Responses API: the response this call continues. */
  previous_response_id: string | null;
}

function responsesInput(body: Obj): ChatMessage[] {
  const out: ChatMessage[] = [];
  const instructions = str(body.instructions);
  if (instructions) out.push({ role: 'system', content: instructions });
  const input = body.input;
  if (typeof input === 'string') {
    out.push({ role: 'user', content: input });
    return out;
  }
  for (const item of Array.isArray(input) ? input.filter(isObject) : []) {
    const type = str(item.type) ?? 'message';
    if (type === 'message' || (item.role && !item.type)) {
      out.push({ role: str(item.role) ?? 'user', ...contentToText(item.content) });
    } else if (type === 'function_call') {
      const call: ToolCall = { id: str(item.call_id), type: 'function', function: { name: str(item.name) ?? '', arguments: str(item.arguments) ?? '{}' } };
      const prev = out.at(-1);
      if (prev?.role === 'assistant' && prev.tool_calls) prev.tool_calls.push(call);
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      out.push({ role: 'tool', tool_call_id: str(item.call_id), content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    } else if (type === 'reasoning') {
      out.push({ role: 'assistant', content: null, reasoning: contentToText(item.summary).content });
    }
  }
  return out;
}

export function summarizeRequest(api: Api, body: unknown): RequestSummary {
  const b = isObject(body) ? body : {};
  const messages =
    api === 'chat'
      ? (Array.isArray(b.messages) ? b.messages : []).map(openaiMessage)
      : api === 'messages'
        ? requestMessages(b)
        : responsesInput(b);
  // Anthropic tool definitions convert to the OpenAI shape as on every import path (chat-steps.ts)
  const tools = api === 'chat' ? toolsText(b.tools, b.functions) : api === 'messages' ? toolsText(b.tools) : Array.isArray(b.tools) && b.tools.length ? JSON.stringify(b.tools) : null;
  return { model: str(b.model), stream: b.stream === true, messages, tools, previous_response_id: str(b.previous_response_id) };
}

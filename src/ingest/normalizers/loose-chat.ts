/**
 * Chat messages from tracing tools (Langfuse, Phoenix, agents' logs), whose inputs and outputs are whatever
 * the instrumented SDK saw. They are read by their shape in the wire layer (src/wire/shapes.ts); this module
 * keeps the entry points the normalizers share and the metadata helper.
 */
import { redactSecrets, redactString } from '../../record/redact';
import type { ChatMessage } from '../../contract/step';
import { isObject, parseJsonDeep, str } from '../../contract/json';
import { contentToText } from '../../contract/message';
import { requestByShape, responseByShape } from '../../wire/shapes';

export { normalRole, ROLE_ALIASES } from '../../wire/shapes';

/** One message-like object → chat messages (Anthropic tool results split into `tool` messages). */
export function looseMessage(m: unknown): ChatMessage[] {
  return requestByShape([m]).messages;
}

/** A recorded input → the request messages (a `system` given apart is put first). */
export function looseMessages(v: unknown, system?: unknown): ChatMessage[] {
  const msgs = requestByShape(v).messages;
  const sys = system === undefined ? null : contentToText(parseJsonDeep(system)).content;
  return sys && !msgs.some((m) => m.role === 'system') ? [{ role: 'system', content: sys }, ...msgs] : msgs;
}

/** A recorded output → the assistant message (completion object, choices list, message list or text). */
export function looseResponse(v: unknown): ChatMessage | null {
  return responseByShape(v).message;
}

/** A metadata value as text with credentials removed (JSON text is parsed so secret-named keys are caught too). */
export function safeMetaValue(v: unknown): string | null {
  const p = parseJsonDeep(v);
  if (isObject(p) || Array.isArray(p)) return JSON.stringify(redactSecrets(p));
  const s = str(p);
  return s === null ? null : redactString(s);
}

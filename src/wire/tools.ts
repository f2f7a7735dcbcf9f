/** Tool definitions on the wire: every path stores them in the OpenAI chat shape (decision 014). */
import { isObject, type Obj, parseJsonDeep, str } from '../contract/json';

/** An Anthropic tool definition (`name` + `input_schema`), as opposed to OpenAI's `{type: 'function', function}`. */
export function isAnthropicTool(t: unknown): t is Obj {
  return isObject(t) && typeof t.name === 'string' && 'input_schema' in t && !isObject(t.function);
}

/**
 * A flat function definition (`{type: 'function', name, description, parameters}`): the Responses API's, the
 * GenAI semantic conventions' and the AI SDK's, as opposed to the chat API's nested `function`.
 */
export function isFlatTool(t: unknown): t is Obj {
  return isObject(t) && !isObject(t.function) && typeof t.name === 'string' && (t.type === undefined || t.type === 'function') && ('parameters' in t || 'description' in t) && !('input_schema' in t);
}

/**
 * Anthropic and flat tool definitions in the OpenAI chat shape every export expects (`{type: 'function',
 * function: {name, description, parameters}}`); built-in tools without a schema (`web_search_20250305`,
 * `web_search_preview`, …) stay as they are. Callers keep the original list in `metadata.tools_original`.
 */
export function openaiToolShape(t: unknown): unknown {
  if (isFlatTool(t)) {
    const { type, name, description, parameters, strict, ...rest } = t;
    const fn: Obj = { name };
    if (description !== undefined) fn.description = description;
    if (parameters !== undefined) fn.parameters = parseJsonDeep(parameters);
    if (strict !== undefined) fn.strict = strict;
    return { type: str(type) ?? 'function', function: fn, ...rest };
  }
  if (!isAnthropicTool(t)) return t;
  const fn: Obj = { name: t.name };
  if (t.description !== undefined) fn.description = t.description;
  fn.parameters = parseJsonDeep(t.input_schema);
  return { type: 'function', function: fn };
}

const converted = (list: unknown[]): boolean => list.some((t) => isAnthropicTool(t) || isFlatTool(t));

/**
 * Tool definitions as JSON text in the OpenAI shape (OpenAI `tools`, legacy `functions`, Anthropic
 * `{name, input_schema}` converted), null when absent. `toolsOriginal` gives the list as the source had
 * it when a conversion changed it.
 */
export function toolsText(tools: unknown, functions?: unknown): string | null {
  const list = parseJsonDeep(tools);
  if (Array.isArray(list) && list.length) return converted(list) ? JSON.stringify(list.map(openaiToolShape)) : typeof tools === 'string' ? tools : JSON.stringify(list);
  if (typeof tools === 'string' && tools.trim().startsWith('[')) return tools;
  if (Array.isArray(functions) && functions.length) return JSON.stringify(functions.map((f) => ({ type: 'function', function: f })));
  return null;
}

/** The source's tool list as JSON text when `toolsText` converted it (Anthropic-shaped or flat entries), else null. */
export function toolsOriginal(tools: unknown): string | null {
  const list = parseJsonDeep(tools);
  return Array.isArray(list) && converted(list) ? JSON.stringify(list) : null;
}


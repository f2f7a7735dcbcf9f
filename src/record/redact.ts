/**
 * Credential stripping (docs/security.md "Import"): applied to every record before anything is stored,
 * `raw` included, and by the gateway to captured calls.
 */

/**
 * Secret-named keys and headers: these names whole, and the credential headers also vendor-prefixed
 * (`x-portkey-api-key`, `helicone-auth`, `cf-aig-authorization`), as the gateway's scrub reads them.
 */
const SECRET_NAMES =
  '(?:[\\w-]*-)?(?:authorization|api-key|auth-token|auth|cookie)|proxy-authorization|x-api-key|api[-_]?key|openai[-_]api[-_]key|anthropic[-_]api[-_]key|set-cookie|x-goog-api-key|x-auth-token|access[-_]token|secret|password|client[-_]secret|bearer';
const SECRET_KEY = new RegExp(`^(?:${SECRET_NAMES})$`, 'i');

/** Key-shaped strings: OpenAI / Anthropic / OpenRouter / Google / AWS / GitHub / HF / Slack tokens, and `Bearer x`. */
const SECRET_VALUE =
  /\b(sk-(?:ant-|proj-|or-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9-]{10,})\b|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g;

const SECRET_TEST = new RegExp(SECRET_VALUE.source);

const URL_KEY_PARAM = /([?&](?:api[-_]?key|key|token|access_token|auth)=)[^&#\s"]+/gi;

export const REDACTED = '[redacted]';

/** Anything in a record's JSON text that could need redaction: a secret-named key or header, a key-shaped value, a key in a URL. */
const MAYBE_SECRET = new RegExp(
  `"(?:${SECRET_NAMES})"\\s*:|"name"\\s*:\\s*"(?:${SECRET_NAMES})"|${SECRET_VALUE.source}|[?&](?:api[-_]?key|key|token|access_token|auth)=`,
  'i',
);

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function redactString(s: string): string {
  if (s.length < 8) return s;
  return s.replace(SECRET_VALUE, REDACTED).replace(URL_KEY_PARAM, `$1${REDACTED}`);
}

/**
 * The record as JSON text with secrets removed: `JSON.stringify(redactSecrets(value))`, without the
 * deep copy when the text holds nothing that could be a secret (the common case: one regex test).
 * `source` is the record's text as the file has it; when clean it is kept as it is (key order,
 * number spelling), which also saves serializing the record again.
 */
export function redactedJson(value: unknown, source?: string): string | null {
  const text = source?.trim() ?? JSON.stringify(value);
  if (text === undefined) return null;
  // JSON escapes hide from a test of the text what the parsed strings hold: `\u0073k-…` is `sk-…`, `x-api\u002dkey`
  // is a secret header's name, and `…\nsk-…`, `Bearer\n…` or a token's `\/` break the matches' word boundaries and
  // classes. A text with such an escape is also tested with its escapes read.
  if (!MAYBE_SECRET.test(text) && !(text.includes('\\') && HIDING_ESCAPE.test(text) && MAYBE_SECRET.test(unescapeJson(text)))) return text;
  return JSON.stringify(redactSecrets(value)) ?? null;
}

/**
 * The escapes that can hide a match of MAYBE_SECRET (anything else an escape makes is `"`, `\` or a control
 * character, which no secret contains and which the text's own escape already stands for as a non-word character):
 * `\uXXXX` (any character), `\/` (in a Bearer token or a URL), and a letter escape (`\n`, `\t`…), which in the
 * text is a word character, right before a key-shaped value's prefix or after `Bearer` and its blanks.
 */
const HIDING_ESCAPE = /\\(?:u|\/|[bfnrt](?=sk-|aiza|akia|gh[pousr]_|hf_|xox[abpr]-|bearer)|[bfnrt](?<=bearer(?:\s|\\[bfnrt])*\\[bfnrt]))/i;

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const ESCAPED: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** JSON text with its string escapes read (`\n` → a newline, `\u0041` → `A`): only for testing, never parsed. */
function unescapeJson(text: string): string {
  return text.replace(JSON_ESCAPE, (_m, hex: string | undefined, c: string | undefined) => (hex ? String.fromCharCode(Number.parseInt(hex, 16)) : ESCAPED[c as string]));
}

/** A deep copy with secret-named fields and key-shaped strings replaced; HAR-style `{name, value}` headers too. */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (depth > 200) return value;
  if (typeof value === 'string') return redactString(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1)) as T;
  if (value === null || typeof value !== 'object') return value;
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const headerLike = typeof src.name === 'string' && isSecretKey(src.name);
  for (const [k, v] of Object.entries(src)) {
    if (headerLike && k === 'value') out[k] = REDACTED;
    else if (isSecretKey(k) && v !== null && v !== '') out[k] = REDACTED;
    else out[k] = redactSecrets(v, depth + 1);
  }
  return out as T;
}

/** A message with key-shaped strings replaced in its text, reasoning and tool-call arguments (same object when clean). */
export function redactMessage<M extends { content: string | null; reasoning?: string | null; parts?: string | null; tool_calls?: { function: { name: string; arguments: string } }[] | null }>(m: M): M {
  const dirty = (x: string | null | undefined) => !!x && SECRET_TEST.test(x);
  const callsDirty = m.tool_calls?.some((c) => dirty(c.function.arguments)) ?? false;
  if (!dirty(m.content) && !dirty(m.reasoning) && !dirty(m.parts) && !callsDirty) return m;
  const out = { ...m };
  if (out.content) out.content = redactString(out.content);
  if (out.reasoning) out.reasoning = redactString(out.reasoning);
  if (out.parts) out.parts = redactString(out.parts);
  if (callsDirty && out.tool_calls) out.tool_calls = out.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: redactString(c.function.arguments) } }));
  return out;
}

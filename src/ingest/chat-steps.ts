import type { NormalizeContext, Normalizer } from './normalizer';
import type { ChatMessage, StepDraft, TrajectoryDraft } from '../contract/step';

/**
 * A whole conversation → one step per assistant turn (one LLM call each): step k's context is every
 * message before the k-th assistant message, its response that message. A conversation with no
 * assistant turn is one step with no response (a prompt row).
 */
export function chatToSteps(messages: readonly ChatMessage[]): StepDraft[] {
  const steps: StepDraft[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role === 'assistant') steps.push({ messages: messages.slice(0, i), response: messages[i] });
  }
  if (!steps.length) steps.push({ messages: [...messages], response: null });
  return steps;
}

/** litellm-style `provider/model` routes whose prefix names the provider (`anthropic/claude-…`, `hosted_vllm/Qwen/…`). */
const ROUTE_PROVIDERS: Record<string, string> = {
  openai: 'openai', azure: 'azure', azure_ai: 'azure', anthropic: 'anthropic', bedrock: 'bedrock', vertex_ai: 'google', gemini: 'google', google: 'google',
  mistral: 'mistral', groq: 'groq', together_ai: 'together_ai', fireworks_ai: 'fireworks_ai', openrouter: 'openrouter', deepseek: 'deepseek', xai: 'xai',
  cohere: 'cohere', hosted_vllm: 'hosted_vllm', vllm: 'vllm', ollama: 'ollama', ollama_chat: 'ollama', huggingface: 'huggingface', sagemaker: 'sagemaker',
};

/** Model families served by one provider only; open-weights families (Llama, Qwen, gpt-oss, …) name none. */
const FAMILY_PROVIDERS: [RegExp, string][] = [
  [/^(?:gpt-(?!oss)|o[134](?:-|$)|chatgpt-|text-davinci|davinci-|babbage-|codex-)/i, 'openai'],
  [/^claude-/i, 'anthropic'],
  [/^(?:models\/)?gemini-/i, 'google'],
  [/^grok-/i, 'xai'],
  [/^command(?:-|$)/i, 'cohere'],
  [/^(?:mistral-(?:large|medium|small)|codestral|ministral|magistral|pixtral-large)/i, 'mistral'],
  [/^deepseek-(?:chat|reasoner)$/i, 'deepseek'],
];

/** The provider a model name tells (a routing prefix, or a family only one provider serves); null when it does not. */
export function providerFromModel(model: string | null | undefined): string | null {
  if (!model) return null;
  const slash = model.indexOf('/');
  if (slash > 0) {
    const route = ROUTE_PROVIDERS[model.slice(0, slash).toLowerCase()];
    if (route) return route;
  }
  for (const [re, p] of FAMILY_PROVIDERS) if (re.test(model)) return p;
  return null;
}

/** Fill `provider` from the model name on steps that name none (the source's own value always wins). */
export function fillProvider(drafts: TrajectoryDraft[]): TrajectoryDraft[] {
  for (const t of drafts) {
    const c = t.common ?? {};
    for (const s of t.steps) {
      if (s.provider ?? c.provider) continue;
      const p = providerFromModel(s.model ?? c.model);
      if (p) s.provider = p;
    }
  }
  return drafts;
}

/** A normalizer whose drafts get `fillProvider` (formats that name the model but not who served it). */
export function withProviderFill<S>(n: Normalizer<S>): Normalizer<S> {
  return {
    ...n,
    normalize: (r, ctx, st) => fillProvider(n.normalize(r, ctx, st)),
    ...(n.flush ? { flush: (ctx: NormalizeContext, st: S) => fillProvider(n.flush!(ctx, st)) } : {}),
  };
}

/**
 * A chat template rendered under limits. A template is code from a file someone sent (tokenizer_config.json,
 * chat_template.jinja), and @huggingface/jinja renders it synchronously in the tokenizer worker: two nested loops over
 * range(100000) never returned, and no message (a cancel, another profile) could reach the worker again (issue 37).
 * Each render counts the template's evaluation steps and the characters of every text its steps produce or read, and
 * stops with a TemplateLimitError past either limit; range() is held to the steps left. The limits grow with the
 * conversation: measured on the Qwen3, DeepSeek-V3 and Gemma 3 templates over the test conversations and a
 * 400-message trajectory, a render took at most 0.51 steps and 4.1 characters per character of its input (messages
 * and tools as JSON), and 16,902 steps in all; the limits below are 20 to 25 times that, plus a base.
 */
import { Environment, Interpreter, type Template } from '@huggingface/jinja';

export interface RenderLimits {
  /** Evaluation steps (one per expression or statement evaluated). */
  steps: number;
  /** Characters of the texts the steps produce or read, summed: bounds the output and everything built on the way. */
  chars: number;
}

const BASE_STEPS = 100_000;
const STEPS_PER_INPUT_CHAR = 10;
const BASE_CHARS = 1_000_000;
const CHARS_PER_INPUT_CHAR = 100;

/** The limits of a render whose messages and tools take `inputChars` characters as JSON. */
export function renderLimits(inputChars: number): RenderLimits {
  return { steps: BASE_STEPS + STEPS_PER_INPUT_CHAR * inputChars, chars: BASE_CHARS + CHARS_PER_INPUT_CHAR * inputChars };
}

export class TemplateLimitError extends Error {
  override name = 'TemplateLimitError';
}

type Evaluated = ReturnType<Interpreter['evaluate']>;

class LimitedInterpreter extends Interpreter {
  steps = 0;
  chars = 0;
  constructor(
    env: Environment,
    private limits: RenderLimits,
  ) {
    super(env);
  }

  override evaluate(statement: Parameters<Interpreter['evaluate']>[0], environment: Environment): Evaluated {
    this.step();
    const v = super.evaluate(statement, environment);
    if (typeof v.value === 'string') {
      this.chars += v.value.length;
      if (this.chars > this.limits.chars) {
        throw new TemplateLimitError(`the chat template built more than ${this.limits.chars.toLocaleString('en-US')} characters of text for this conversation (a template that does is hostile or broken)`);
      }
    }
    return v;
  }

  step(n = 1): void {
    this.steps += n;
    if (this.steps > this.limits.steps) {
      throw new TemplateLimitError(`the chat template took more than ${this.limits.steps.toLocaleString('en-US')} steps to render this conversation (a template that loops this much is hostile or broken)`);
    }
  }
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** transformers' strftime_now: the current local time in a strftime format (the codes chat templates use). */
function strftimeNow(format: string): string {
  const d = new Date();
  const codes: Record<string, () => string> = {
    Y: () => String(d.getFullYear()),
    m: () => pad2(d.getMonth() + 1),
    d: () => pad2(d.getDate()),
    b: () => d.toLocaleString(undefined, { month: 'short' }),
    B: () => d.toLocaleString(undefined, { month: 'long' }),
    H: () => pad2(d.getHours()),
    M: () => pad2(d.getMinutes()),
    '%': () => '%',
  };
  return String(format).replace(/%(.)/g, (all, c: string) => codes[c]?.() ?? all);
}

/** Render `template` with `context` as Template.render does (the same globals), within `limits`. Throws TemplateLimitError. */
export function renderLimited(template: Template, context: Record<string, unknown>, limits: RenderLimits): string {
  const env = new Environment();
  const interpreter = new LimitedInterpreter(env, limits);
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    True: true,
    False: false,
    None: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    // a list of n items is n steps: range(100000) inside a loop over range(100000) stops at the limit, not at 10^10
    range: (start: number, stop?: number, step = 1) => {
      const [from, to] = stop === undefined ? [0, start] : [start, stop];
      if (step === 0) throw new Error('range() step must not be zero');
      const count = Math.ceil((to - from) / step);
      const n = Number.isFinite(count) ? Math.max(0, count) : 0;
      interpreter.step(n);
      return Array.from({ length: n }, (_, i) => from + i * step);
    },
    strftime_now: strftimeNow,
  };
  for (const [k, v] of Object.entries(globals)) env.set(k, v);
  for (const [k, v] of Object.entries(context)) env.set(k, v);
  return interpreter.run(template.parsed).value as string;
}

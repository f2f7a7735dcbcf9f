/** Agent and task-set configs (notebooks/agents/*, notebooks/tasks/*): JSON or YAML, validated with messages that say what to fix. */
import { parse as parseYaml } from 'yaml';
import { isObject, num, type Obj, str } from '../contract/json';

export type RewardRule =
  | { type: 'exact'; caseSensitive?: boolean }
  | { type: 'regex'; pattern: string; flags?: string }
  | { type: 'numeric'; tolerance?: number };

export interface AgentConfig {
  name: string;
  system_prompt: string;
  model: string;
  tools: string[];
  max_turns: number;
  upstream: string | null;
  task_set: string | null;
  reward: RewardRule | null;
  /** Ask for per-token log-probs (and token ids where the upstream supports them). */
  logprobs: boolean;
  temperature: number | null;
}

export interface Task {
  id: string;
  prompt: string;
  answer: string;
  channel?: string;
}

export interface TaskSet {
  name: string;
  data_source: string;
  reward: RewardRule;
  tasks: Task[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseConfigText(text: string, file = 'config'): Obj {
  let v: unknown;
  try {
    v = text.trim().startsWith('{') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON or YAML (${e instanceof Error ? e.message : String(e)}); fix the syntax and import it again.`, { cause: e });
  }
  if (!isObject(v)) throw new ConfigError(`${file}: expected an object with fields such as name, system_prompt, tasks.`);
  return v;
}

function reward(v: unknown, file: string): RewardRule | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw new ConfigError(`${file}: reward must be an object like {type: numeric, tolerance: 1e-6}.`);
  const type = str(v.type);
  if (type === 'exact') return { type, caseSensitive: v.case_sensitive === true };
  if (type === 'numeric') return { type, tolerance: num(v.tolerance) ?? 1e-6 };
  if (type === 'regex') {
    const pattern = str(v.pattern);
    if (!pattern) throw new ConfigError(`${file}: a regex reward needs a pattern.`);
    return { type, pattern, flags: str(v.flags) ?? '' };
  }
  throw new ConfigError(`${file}: unknown reward type "${type}"; use exact, regex or numeric.`);
}

export function agentConfig(v: Obj, file = 'agent'): AgentConfig {
  const name = str(v.name);
  if (!name) throw new ConfigError(`${file}: an agent needs a name.`);
  const tools = Array.isArray(v.tools) ? v.tools.map((t) => (isObject(t) ? str(t.name) : str(t)) ?? '').filter(Boolean) : [];
  return {
    name,
    system_prompt: str(v.system_prompt) ?? '',
    model: str(v.model) ?? 'mock',
    tools,
    max_turns: Math.max(1, Math.min(50, num(v.max_turns) ?? 4)),
    upstream: str(v.upstream),
    task_set: str(v.task_set),
    reward: reward(v.reward, file),
    logprobs: v.logprobs !== false,
    temperature: num(v.temperature),
  };
}

export function taskSet(v: Obj, file = 'tasks'): TaskSet {
  const name = str(v.name);
  if (!name) throw new ConfigError(`${file}: a task set needs a name.`);
  const tasks = (Array.isArray(v.tasks) ? v.tasks : []).map((t, i): Task => {
    if (!isObject(t)) throw new ConfigError(`${file}: task ${i + 1} is not an object.`);
    const prompt = str(t.prompt) ?? str(t.question);
    const answer = str(t.answer) ?? (typeof t.answer === 'number' ? String(t.answer) : null);
    if (!prompt || answer === null) throw new ConfigError(`${file}: task ${i + 1} needs a prompt and an answer.`);
    return { id: str(t.id) ?? String(i + 1), prompt, answer, ...(str(t.channel) ? { channel: str(t.channel)! } : {}) };
  });
  if (!tasks.length) throw new ConfigError(`${file}: the task set has no tasks.`);
  return { name, data_source: str(v.data_source) ?? name, reward: reward(v.reward, file) ?? { type: 'exact' }, tasks };
}

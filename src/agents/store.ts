/**
 * Agent and task-set configs: the built-in files under notebooks/ plus the ones the user imported or
 * edited in the app (IndexedDB; users of the hosted page cannot add files to it).
 */
import { openDB } from 'idb';
import { type AgentConfig, agentConfig, parseConfigText, type TaskSet, taskSet } from './config';

export type ConfigKind = 'agent' | 'tasks';

export interface StoredConfig {
  key: string;
  kind: ConfigKind;
  name: string;
  file: string;
  text: string;
  builtin: boolean;
}

export const BUILTIN_FILES: Record<ConfigKind, string[]> = { agent: ['agents/calculator.yaml'], tasks: ['tasks/math.json'] };

const db = () =>
  openDB('aw-agents', 1, {
    upgrade(d) {
      d.createObjectStore('configs', { keyPath: 'key' });
    },
  });

function nameOf(kind: ConfigKind, text: string, file: string): string {
  const v = parseConfigText(text, file);
  return kind === 'agent' ? agentConfig(v, file).name : taskSet(v, file).name;
}

async function builtins(base: string): Promise<StoredConfig[]> {
  const out: StoredConfig[] = [];
  for (const kind of ['agent', 'tasks'] as const) {
    for (const file of BUILTIN_FILES[kind]) {
      const r = await fetch(new URL(`notebooks/${file}`, base));
      if (!r.ok) continue;
      const text = await r.text();
      out.push({ key: `${kind}/${nameOf(kind, text, file)}`, kind, name: nameOf(kind, text, file), file, text, builtin: true });
    }
  }
  return out;
}

/** Every config, the user's own overriding a built-in of the same name. */
export async function listConfigs(base: string): Promise<StoredConfig[]> {
  const mine = await (await db()).getAll('configs');
  const byKey = new Map<string, StoredConfig>();
  for (const c of await builtins(base).catch(() => [])) byKey.set(c.key, c);
  for (const c of mine as StoredConfig[]) byKey.set(c.key, c);
  return [...byKey.values()];
}

/** Validate and save an imported or edited config; throws ConfigError saying what to fix. */
export async function saveConfig(kind: ConfigKind, text: string, file = `${kind}.yaml`): Promise<StoredConfig> {
  const name = nameOf(kind, text, file);
  const c: StoredConfig = { key: `${kind}/${name}`, kind, name, file, text, builtin: false };
  await (await db()).put('configs', c);
  return c;
}

export async function loadAgent(base: string, name: string): Promise<AgentConfig> {
  const c = (await listConfigs(base)).find((x) => x.kind === 'agent' && x.name === name);
  if (!c) throw new Error(`No agent named "${name}"; import its config in the Gateway panel or pick one of the built-in agents.`);
  return agentConfig(parseConfigText(c.text, c.file), c.file);
}

export async function loadTaskSet(base: string, name: string): Promise<TaskSet> {
  const c = (await listConfigs(base)).find((x) => x.kind === 'tasks' && x.name === name);
  if (!c) throw new Error(`No task set named "${name}"; import it in the Gateway panel or pick a built-in one.`);
  return taskSet(parseConfigText(c.text, c.file), c.file);
}

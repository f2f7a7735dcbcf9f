/**
 * The capture journal (IndexedDB, shared by the gateway service worker and the page): every finished
 * call is written here first, as a ready StepRecord, and marked `pooled` once the page's sink has
 * upserted it into the pool. Also holds per-trajectory state, history links and upstream settings.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { ChatMessage, StepRecord } from '../../contract/step';
import type { GatewaySettings } from './upstream';

export const JOURNAL_DB = 'aw-gateway';

export interface JournalEntry {
  step_id: string;
  step: StepRecord;
  /** 0 = not yet in the pool (IndexedDB cannot index booleans). */
  pooled: 0 | 1;
  /** Bumped on every write, so a sink never marks a newer version as pooled. */
  rev: number;
  at: number;
}

export interface TrajectoryState {
  trajectory_uid: string;
  prompt_uid: string;
  next_index: number;
  channel: string;
  agent: string | null;
  upstream: string | null;
  metadata: Record<string, string> | null;
  created_at: number;
  completed: { reward: number | null } | null;
}

export interface LinkEntry {
  key: string;
  trajectory_uid: string;
  prompt_uid: string;
  /** Responses API: the whole context of the linked response, so a `previous_response_id` call can be recorded in full. */
  context?: ChatMessage[];
}

interface Schema extends DBSchema {
  journal: { key: string; value: JournalEntry; indexes: { pooled: number } };
  trajectories: { key: string; value: TrajectoryState };
  links: { key: string; value: LinkEntry };
  settings: { key: string; value: GatewaySettings };
}

export type JournalDb = IDBPDatabase<Schema>;

export function openJournal(name = JOURNAL_DB): Promise<JournalDb> {
  return openDB<Schema>(name, 1, {
    upgrade(db) {
      db.createObjectStore('journal', { keyPath: 'step_id' }).createIndex('pooled', 'pooled');
      db.createObjectStore('trajectories', { keyPath: 'trajectory_uid' });
      db.createObjectStore('links', { keyPath: 'key' });
      db.createObjectStore('settings');
    },
  });
}

/** Reserve the next step index of a trajectory (creating its state on first use), atomically. */
export async function allocateStep(db: JournalDb, init: Omit<TrajectoryState, 'next_index' | 'created_at' | 'completed'>): Promise<{ index: number; state: TrajectoryState }> {
  const tx = db.transaction('trajectories', 'readwrite');
  const state = (await tx.store.get(init.trajectory_uid)) ?? { ...init, next_index: 0, created_at: Date.now(), completed: null };
  const index = state.next_index;
  state.next_index += 1;
  await tx.store.put(state);
  await tx.done;
  return { index, state };
}

export async function updateTrajectory(db: JournalDb, uid: string, prompt: string, patch: Partial<TrajectoryState>): Promise<TrajectoryState> {
  const tx = db.transaction('trajectories', 'readwrite');
  const prev = (await tx.store.get(uid)) ?? {
    trajectory_uid: uid, prompt_uid: prompt, next_index: 0, channel: 'train', agent: null, upstream: null, metadata: null, created_at: Date.now(), completed: null,
  };
  const next = { ...prev, ...patch, trajectory_uid: uid };
  await tx.store.put(next);
  await tx.done;
  return next;
}

/** Write a finished call; if its trajectory was already completed and this is its last step, it carries the reward. */
export async function putStep(db: JournalDb, step: StepRecord): Promise<void> {
  const tx = db.transaction(['journal', 'trajectories'], 'readwrite');
  const state = await tx.objectStore('trajectories').get(step.trajectory_uid);
  if (state?.completed && step.step_index === state.next_index - 1) {
    step.is_last = true;
    step.reward = state.completed.reward;
  }
  const prev = await tx.objectStore('journal').get(step.step_id);
  await tx.objectStore('journal').put({ step_id: step.step_id, step, pooled: 0, rev: (prev?.rev ?? 0) + 1, at: Date.now() });
  await tx.done;
}

/** complete_trajectory: reward + is_last on the last step (now, or when that call finishes). Returns the step id it touched, if any. */
export async function completeTrajectory(db: JournalDb, uid: string, prompt: string, reward: number | null): Promise<{ step_id: string | null; steps: number }> {
  const tx = db.transaction(['journal', 'trajectories'], 'readwrite');
  const ts = tx.objectStore('trajectories');
  const state = (await ts.get(uid)) ?? {
    trajectory_uid: uid, prompt_uid: prompt, next_index: 0, channel: 'train', agent: null, upstream: null, metadata: null, created_at: Date.now(), completed: null,
  };
  state.completed = { reward };
  await ts.put(state);
  let touched: string | null = null;
  if (state.next_index > 0) {
    const id = `${uid}:${state.next_index - 1}`;
    const e = await tx.objectStore('journal').get(id);
    if (e) {
      e.step = { ...e.step, is_last: true, reward };
      e.pooled = 0;
      e.rev += 1;
      e.at = Date.now();
      await tx.objectStore('journal').put(e);
      touched = id;
    }
  }
  await tx.done;
  return { step_id: touched, steps: state.next_index };
}

export async function pendingEntries(db: JournalDb, limit = 500): Promise<JournalEntry[]> {
  return db.getAllFromIndex('journal', 'pooled', 0, limit);
}

export async function markPooled(db: JournalDb, done: { step_id: string; rev: number }[]): Promise<void> {
  const tx = db.transaction('journal', 'readwrite');
  for (const d of done) {
    const e = await tx.store.get(d.step_id);
    if (e && e.rev === d.rev) await tx.store.put({ ...e, pooled: 1 });
  }
  await tx.done;
}

export async function getLink(db: JournalDb, key: string): Promise<LinkEntry | undefined> {
  return db.get('links', key);
}

export async function putLink(db: JournalDb, link: LinkEntry): Promise<void> {
  await db.put('links', link);
}

export async function loadSettings(db: JournalDb): Promise<GatewaySettings | undefined> {
  return db.get('settings', 'settings');
}

/** Persist settings; keys are kept only for upstreams the user asked to remember on this device. */
export async function saveSettings(db: JournalDb, s: GatewaySettings): Promise<void> {
  await db.put('settings', { ...s, upstreams: s.upstreams.map((u) => (u.remember ? u : { ...u, key: null })) }, 'settings');
}

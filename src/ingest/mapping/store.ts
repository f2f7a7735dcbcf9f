/**
 * The user's format mappings, kept in IndexedDB (database 'aw-formats') as the JSON text they wrote,
 * plus the example mappings shipped under notebooks/formats/ (listed by its index.json).
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { NORMALIZERS } from '../normalizers';
import { MappingError, type MappingSpec, validateMapping } from './spec';

export interface StoredMapping {
  id: string;
  label: string;
  /** The spec as the user wrote it (formatting kept). */
  text: string;
  enabled: boolean;
  updatedAt: number;
  /** Where it came from: an example file, an imported file name, or null when written here. */
  origin: string | null;
}

export interface BuiltinMapping {
  file: string;
  id: string;
  label: string;
  description: string | null;
  text: string;
}

export interface MappingStoreOptions {
  dbName?: string;
  /** Base URL that `notebooks/formats/` is resolved against (default: the page's base URI). */
  base?: string;
}

export interface MappingImportResult {
  saved: string[];
  /** Entries refused, each with what is wrong. */
  refused: { id: string | null; problems: string[] }[];
}

/** File layout of "Export all": a bundle that Import reads back (a lone spec or a list of specs is accepted too). */
export interface MappingBundle {
  format: 'aw-formats';
  version: 1;
  mappings: { enabled: boolean; spec: unknown }[];
}

interface FormatsDb extends DBSchema {
  mappings: { key: string; value: StoredMapping };
}

const RESERVED = new Set(['generic', 'unknown', ...NORMALIZERS.map((n) => n.id)]);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse and validate a spec given as JSON text or as a value; throws MappingError naming every problem. */
export function parseMapping(input: unknown): { spec: MappingSpec; text: string } {
  let spec: unknown = input;
  let text: string;
  if (typeof input === 'string') {
    text = input;
    try {
      spec = JSON.parse(input);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new MappingError(`The mapping is not valid JSON (${why}); fix the syntax and save again.`, [`mapping: not valid JSON: ${why}`]);
    }
  } else text = JSON.stringify(input, null, 2);
  const problems = validateMapping(spec);
  if (isObj(spec) && typeof spec.id === 'string' && RESERVED.has(spec.id)) problems.push(`mapping.id: "${spec.id}" is the id of a built-in format; pick another id, e.g. "my-${spec.id}"`);
  if (problems.length) {
    const id = isObj(spec) && typeof spec.id === 'string' ? ` "${spec.id}"` : '';
    throw new MappingError(`The mapping${id} was not saved — fix these first:\n${problems.map((p) => `  - ${p}`).join('\n')}`, problems);
  }
  return { spec: spec as MappingSpec, text };
}

export class MappingStore {
  private db: Promise<IDBPDatabase<FormatsDb>> | null = null;
  constructor(private opts: MappingStoreOptions = {}) {}

  private open(): Promise<IDBPDatabase<FormatsDb>> {
    this.db ??= openDB<FormatsDb>(this.opts.dbName ?? 'aw-formats', 1, {
      upgrade(db) {
        db.createObjectStore('mappings', { keyPath: 'id' });
      },
    });
    return this.db;
  }

  async list(): Promise<StoredMapping[]> {
    const all = await (await this.open()).getAll('mappings');
    return all.sort((a, b) => a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<StoredMapping | undefined> {
    return (await this.open()).get('mappings', id);
  }

  /** Validate and save (replacing a mapping of the same id, keeping its enabled state); throws MappingError when invalid. */
  async save(input: unknown, opts: { enabled?: boolean; origin?: string | null } = {}): Promise<StoredMapping> {
    const { spec, text } = parseMapping(input);
    const db = await this.open();
    const old = await db.get('mappings', spec.id);
    const m: StoredMapping = {
      id: spec.id,
      label: spec.label,
      text,
      enabled: opts.enabled ?? old?.enabled ?? true,
      updatedAt: Date.now(),
      origin: opts.origin !== undefined ? opts.origin : (old?.origin ?? null),
    };
    await db.put('mappings', m);
    return m;
  }

  async delete(id: string): Promise<void> {
    await (await this.open()).delete('mappings', id);
  }

  async setEnabled(id: string, enabled: boolean): Promise<StoredMapping> {
    const db = await this.open();
    const m = await db.get('mappings', id);
    if (!m) throw new Error(`No saved mapping "${id}"; save it first.`);
    const next = { ...m, enabled, updatedAt: Date.now() };
    await db.put('mappings', next);
    return next;
  }

  /**
   * Specs the importer should try. A stored spec that no longer validates (the spec language changed)
   * is left out rather than failing every import.
   */
  async enabledSpecs(): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const m of await this.list()) {
      if (!m.enabled) continue;
      try {
        out.push(parseMapping(m.text).spec);
      } catch {
        // shown as invalid in the Formats panel
      }
    }
    return out;
  }

  async exportAll(): Promise<Blob> {
    const mappings = (await this.list()).map((m) => {
      let spec: unknown;
      try {
        spec = JSON.parse(m.text);
      } catch {
        spec = m.text;
      }
      return { enabled: m.enabled, spec };
    });
    const bundle: MappingBundle = { format: 'aw-formats', version: 1, mappings };
    return new Blob([`${JSON.stringify(bundle, null, 2)}\n`], { type: 'application/json' });
  }

  /** Import an export bundle, a list of specs or one spec; valid ones are saved, invalid ones listed with their problems. */
  async importFile(file: Blob & { name?: string }): Promise<MappingImportResult> {
    const name = file.name ?? 'mappings.json';
    let v: unknown;
    try {
      v = JSON.parse(await file.text());
    } catch (e) {
      throw new MappingError(`${name} is not a JSON file (${e instanceof Error ? e.message : String(e)}); pick a file made by "Export all" or a mapping .json.`, [`${name}: not valid JSON`]);
    }
    let entries: { enabled?: boolean; spec: unknown }[];
    if (isObj(v) && v.format === 'aw-formats' && Array.isArray(v.mappings)) entries = v.mappings.map((e) => (isObj(e) && 'spec' in e ? { enabled: e.enabled !== false, spec: e.spec } : { spec: e }));
    else if (Array.isArray(v)) entries = v.map((spec) => ({ spec }));
    else entries = [{ spec: v }];
    const result: MappingImportResult = { saved: [], refused: [] };
    for (const e of entries) {
      try {
        const m = await this.save(typeof e.spec === 'string' ? e.spec : JSON.stringify(e.spec, null, 2), { enabled: e.enabled, origin: name });
        result.saved.push(m.id);
      } catch (err) {
        const id = isObj(e.spec) && typeof e.spec.id === 'string' ? e.spec.id : null;
        result.refused.push({ id, problems: err instanceof MappingError ? err.problems : [String(err)] });
      }
    }
    return result;
  }

  /** The example mappings shipped with the app (notebooks/formats/index.json); an empty list when offline or missing. */
  async builtins(): Promise<BuiltinMapping[]> {
    // the page's address (the store runs on the page; ingest is checked without the DOM, so it names no document)
    const base = this.opts.base ?? location.href;
    const url = (f: string) => new URL(`notebooks/formats/${f}`, base);
    let files: string[];
    try {
      const res = await fetch(url('index.json'));
      if (!res.ok) return [];
      const idx: unknown = await res.json();
      files = (Array.isArray(idx) ? idx : isObj(idx) && Array.isArray(idx.files) ? idx.files : []).filter((f): f is string => typeof f === 'string' && /^[\w.-]+\.json$/.test(f));
    } catch {
      return [];
    }
    const out: BuiltinMapping[] = [];
    for (const file of files) {
      try {
        const res = await fetch(url(file));
        if (!res.ok) continue;
        const text = await res.text();
        const v: unknown = JSON.parse(text);
        if (!isObj(v) || typeof v.id !== 'string') continue;
        out.push({ file, id: v.id, label: typeof v.label === 'string' ? v.label : v.id, description: typeof v.description === 'string' ? v.description : null, text });
      } catch {
        // a broken example is skipped, the others still listed
      }
    }
    return out;
  }

  /** Copy a shipped example into the user's mappings (enabled), where it can be edited. */
  async copyBuiltin(file: string): Promise<StoredMapping> {
    const b = (await this.builtins()).find((x) => x.file === file || x.id === file);
    if (!b) throw new Error(`No example mapping "${file}" in notebooks/formats/index.json.`);
    return this.save(b.text, { enabled: true, origin: `notebooks/formats/${b.file}` });
  }

  async close(): Promise<void> {
    if (this.db) (await this.db).close();
    this.db = null;
  }
}

/** The app's store (database 'aw-formats'): the importer reads `enabledSpecs()` at each import. */
export const mappingStore = new MappingStore();

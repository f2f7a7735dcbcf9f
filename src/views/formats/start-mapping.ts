/**
 * The hand-over from the import report to the Formats tab: 'aw-start-mapping' (bubbling, composed,
 * detail {file}). The last request is kept until an editor takes it, so the panel may mount later.
 */
export const START_MAPPING_EVENT = 'aw-start-mapping';

export interface StartMappingDetail {
  file: File;
}

let pending: File | null = null;
const watchers = new Set<(file: File) => void>();

function onStart(e: Event): void {
  const file = (e as CustomEvent<Partial<StartMappingDetail>>).detail?.file;
  if (!(file instanceof File)) return;
  if (watchers.size) for (const w of watchers) w(file);
  else pending = file;
}

if (typeof window !== 'undefined') window.addEventListener(START_MAPPING_EVENT, onStart);

/** Ask for a mapping to be written for `file` (dispatched from `from`, bubbling to window). */
export function requestMapping(file: File, from: EventTarget = window): void {
  from.dispatchEvent(new CustomEvent<StartMappingDetail>(START_MAPPING_EVENT, { bubbles: true, composed: true, detail: { file } }));
}

export function watchStartMapping(fn: (file: File) => void): () => void {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

export function takePendingMapping(): File | null {
  const f = pending;
  pending = null;
  return f;
}

/**
 * Every view's state in the address, so a link shows what its sender saw and the back button walks it (as one
 * shares a trace in Langfuse or Phoenix): `#<tab>[/<sub>][?key=value&…]` — the section, its sub-view (the
 * dashboard's review queue) and the section's own parameters (the dashboard's filter, sort, trajectory, step and
 * inspector view; the open notebook). The page's `?pool=` / `?notebook=` query stays as it is.
 *
 * Each section registers what its state is (`registerRouteState`) and writes it when it changes (`writeRoute`);
 * the back and forward buttons tell every section through ROUTE_EVENT, and the shell switches the section.
 */

export interface Route {
  tab: string;
  sub: string;
  params: URLSearchParams;
}

/** Dispatched on `window` after the back / forward button changed the address: `detail` is the new Route. */
export const ROUTE_EVENT = 'aw-route';

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '');
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const [tab = '', sub = ''] = path.split('/').map((p) => decodeURIComponent(p));
  return { tab, sub, params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) };
}

export function formatRoute(r: { tab: string; sub?: string; params?: URLSearchParams }): string {
  const path = [r.tab, r.sub ?? ''].filter(Boolean).map((p) => encodeURIComponent(p)).join('/');
  const q = r.params?.toString();
  return `#${path}${q ? `?${q}` : ''}`;
}

export function currentRoute(): Route {
  return parseRoute(location.hash);
}

const sections = new Map<string, () => { sub?: string; params?: URLSearchParams }>();

/** A section's current state, asked when the shell switches to it (the address then shows that section's state). */
export function registerRouteState(tab: string, state: () => { sub?: string; params?: URLSearchParams }): () => void {
  sections.set(tab, state);
  return () => {
    if (sections.get(tab) === state) sections.delete(tab);
  };
}

/** The address of a section with its registered state. */
export function sectionHash(tab: string): string {
  return formatRoute({ tab, ...(sections.get(tab)?.() ?? {}) });
}

/**
 * Write a section's state into the address, if that section is the one shown. `push` makes a history entry the
 * back button returns to (a new trajectory, filter or notebook); `replace` does not (a step, each typed letter).
 */
export function writeRoute(tab: string, mode: 'push' | 'replace' = 'push'): void {
  if (currentRoute().tab !== tab) return;
  const hash = sectionHash(tab);
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

import { html } from 'lit';

/** Asks the shell to switch to a section (handled by <aw-app>). */
export const NAVIGATE_EVENT = 'aw-navigate';

export function navigate(from: EventTarget, tab: string): void {
  from.dispatchEvent(new CustomEvent(NAVIGATE_EVENT, { detail: { tab }, bubbles: true, composed: true }));
}

/** An empty view that says what to do, with the button that does it. */
export function emptyState(title: string, body: string) {
  return html`<div class="empty-state" role="status" style="border:1px dashed var(--aw-border);border-radius:var(--aw-radius);background:var(--aw-panel);padding:18px 20px;margin:8px 0;max-width:640px">
    <h2 style="margin:0 0 6px;font-size:15px">${title}</h2>
    <p style="margin:0 0 10px;color:var(--aw-muted)">${body}</p>
    <button class="primary" style="font:inherit;border:1px solid var(--aw-accent);background:var(--aw-accent);color:var(--aw-panel);border-radius:var(--aw-radius);padding:4px 10px;cursor:pointer"
      @click=${(e: Event) => navigate(e.currentTarget as EventTarget, 'data')}>Go to Import</button>
  </div>`;
}

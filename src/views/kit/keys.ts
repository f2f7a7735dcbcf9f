/** Single-key shortcuts (the review queue, the inspector): where a key belongs to the focused control instead. */

const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** The element takes typed text (a text-like input, a textarea, an editor): its keys are the user's, not shortcuts. */
export function isTextEntry(el: Element | null | undefined): boolean {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement) return true;
  if (el instanceof HTMLInputElement) return !NOT_TEXT.has(el.type);
  return el instanceof HTMLElement && el.isContentEditable;
}

/** The focused element, through open shadow roots. */
export function deepActiveElement(): Element | null {
  let a: Element | null = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

/** The event came from inside an open dialog (a modal's own keys win over the page's shortcuts). */
export function fromDialog(e: Event): boolean {
  return e.composedPath().some((n) => n instanceof HTMLElement && (n.tagName === 'DIALOG' || n.getAttribute('role') === 'dialog'));
}

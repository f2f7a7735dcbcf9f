/**
 * The mark of a failed tool result: the message's `is_error` (schema 4, decision 059; the text stays as the source
 * wrote it, so nothing else on screen says the call failed). A symbol and the word, never colour alone.
 */
import { css, html, nothing } from 'lit';
import type { ChatMessage } from '../../contract/step';

/** The result the source marks as failed (a tool message with `is_error`). */
export const failedResult = (m: ChatMessage | null | undefined): boolean => m?.is_error === true;

/** "✕ error" after a failed result's label (the symbol hidden from screen readers: they read "error"). */
export function toolErrorMark(m: ChatMessage | null | undefined) {
  return failedResult(m) ? html`<span class="tool-error"><span aria-hidden="true">✕ </span>error</span>` : nothing;
}

export const toolErrorStyles = css`
  .tool-error { display: inline-block; margin-left: 6px; padding: 0 6px; border: 1px solid var(--aw-error); border-radius: 10px; background: var(--aw-error-bg); color: var(--aw-error); font-size: 11px; font-weight: 600; }
  .failed { border-left: 3px solid var(--aw-error); padding-left: 6px; }
`;

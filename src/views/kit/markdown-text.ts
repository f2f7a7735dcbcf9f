/**
 * Message text rendered as Markdown through the notebook's strict sanitizer (no form controls, styles,
 * images or ids; links open outside the app), or shown as its source. HTML written in a message is shown
 * as text, not dropped by the sanitizer: a trace that contains `<img onerror=…>` should say so. Long
 * texts stay text: parsing a multi-megabyte message would stall the page.
 */
import { css, html } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { renderMarkdown } from '../notebook/markdown';
import { htmlAsText } from './html-as-text';

/** Above this length a message is shown as text even when Markdown is on. */
export const MARKDOWN_MAX = 20_000;

export const markdownStyles = css`
  .md { overflow-wrap: anywhere; }
  .md p, .md li { white-space: pre-line; }
  .md > :first-child { margin-top: 0; }
  .md > :last-child { margin-bottom: 0; }
  .md p, .md ul, .md ol, .md pre, .md blockquote, .md table { margin: 4px 0; }
  .md h1, .md h2, .md h3, .md h4 { font-size: 13.5px; margin: 8px 0 4px; }
  .md code { font: 12px var(--aw-mono); background: var(--aw-code-bg); padding: 0 3px; border-radius: 3px; }
  .md pre { background: var(--aw-code-bg); padding: 4px 6px; border-radius: 4px; overflow-x: auto; white-space: pre; }
  .md pre code { padding: 0; background: none; }
  .md blockquote { border-left: 3px solid var(--aw-border); padding-left: 8px; color: var(--aw-muted); }
  .md table { border-collapse: collapse; display: block; overflow-x: auto; }
  .md th, .md td { border: 1px solid var(--aw-border); padding: 2px 6px; }
  .md a { color: var(--aw-accent); }
`;

/** Rendered (sanitized) Markdown, or null when the text should be shown as written. */
export function markdownView(text: string, on: boolean) {
  if (!on || text.length > MARKDOWN_MAX) return null;
  return html`<div class="content md">${unsafeHTML(renderMarkdown(htmlAsText(text)))}</div>`;
}

/**
 * Markdown of notebook cells → HTML, sanitized with a strict allow-list (issue 17 hole 9): a
 * notebook from someone else must not be able to redress the UI. DOMPurify's defaults keep forms,
 * inputs, buttons, style elements and style attributes (a full-viewport `position:fixed` overlay
 * over the Run button); here only text structure is allowed: no form controls, no style at all,
 * no embedded content, no id / name / class (no DOM clobbering, no borrowing the app's own classes).
 */
import DOMPurify, { type Config } from 'dompurify';
import { marked } from 'marked';

const TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp',
  'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark', 'small', 'sub', 'sup', 'q', 'abbr',
  'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'a', 'span', 'div', 'details', 'summary',
];
const ATTRS = ['href', 'title', 'align', 'colspan', 'rowspan', 'start', 'open'];

const CONFIG: Config = {
  ALLOWED_TAGS: TAGS,
  ALLOWED_ATTR: ATTRS,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  SANITIZE_DOM: true,
  SANITIZE_NAMED_PROPS: true,
  KEEP_CONTENT: true,
};

const purify = DOMPurify();
// Links open outside the app and learn nothing about it.
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('rel', 'noopener noreferrer');
    node.setAttribute('target', '_blank');
  }
});

export function renderMarkdown(src: string): string {
  return purify.sanitize(marked.parse(src, { async: false, gfm: true }) as string, CONFIG) as string;
}

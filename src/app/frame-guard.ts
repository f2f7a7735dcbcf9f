/**
 * Anti-framing (issue 17). A `<meta>` CSP cannot carry `frame-ancestors`, and a static host may send
 * no `X-Frame-Options`, so the page itself refuses to run inside a frame of another origin: a site
 * that frames the workbench (to clickjack "Clear pool" or "Run") gets an inert notice, no app. A host
 * should still send `Content-Security-Policy: frame-ancestors 'self'` (see docs/security.md).
 */

/** The origin of a foreign ancestor frame, or null when the page is top-level or framed by its own origin. */
export function foreignFramer(win: Window = window): string | null {
  if (win.top === win.self) return null;
  const own = win.location.origin;
  const ancestors = win.location.ancestorOrigins ? [...win.location.ancestorOrigins] : [];
  const foreign = ancestors.find((o) => o !== own);
  if (foreign) return foreign;
  try {
    // Browsers without ancestorOrigins: reading a cross-origin top's location throws.
    return win.top?.location.origin === own ? null : 'another origin';
  } catch {
    return 'another origin';
  }
}

/** Replace the page with a notice (as text) and a link that opens the app on its own. */
export function refuseFramed(framer: string): void {
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.style.cssText = 'margin:24px;font:14px system-ui';
  p.textContent = `AgentWorld Workbench does not run inside a frame of another site (${framer}): that site could trick you into clicking its buttons. `;
  const a = document.createElement('a');
  a.href = location.href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = 'Open the workbench in its own tab.';
  p.append(a);
  document.body.replaceChildren(p);
}

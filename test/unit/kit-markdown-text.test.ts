import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marked } from 'marked';
import { htmlAsText } from '../../src/views/kit/html-as-text';

/** What marked makes of it, with tags stripped: the text a reader sees. */
const seen = (src: string) => (marked.parse(src, { async: false, gfm: true }) as string);

describe('message Markdown shows HTML as text', () => {
  it('raw HTML outside code becomes text; Markdown structure still renders', () => {
    const src = 'Hi <img src=x onerror="alert(1)"> **bold**\n\n<script>window.x=1</script>\n\n- a <b>list</b>';
    const out = seen(htmlAsText(src));
    assert.ok(!/<img|<script|<b>/.test(out), out);
    assert.ok(out.includes('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;') || out.includes('&lt;img src=x onerror="alert(1)"'), out);
    assert.ok(out.includes('<strong>bold</strong>'), out);
    assert.ok(out.includes('<li>a &lt;b&gt;list&lt;/b&gt;</li>') || out.includes('<li>a &lt;b>list&lt;/b></li>'), out);
  });

  it('code keeps its text exactly: fenced, indented and inline', () => {
    const src = 'Use `a<b` and ``x<`y``:\n\n```html\n<div>&</div>\n```\n\n    if (a < b) {}\n\ndone <i>';
    const out = seen(htmlAsText(src));
    assert.ok(out.includes('<code>a&lt;b</code>'), out);
    assert.ok(out.includes('<code>x&lt;`y</code>'), out);
    assert.ok(out.includes('&lt;div&gt;&amp;&lt;/div&gt;'), out);
    assert.ok(out.includes('if (a &lt; b) {}'), out);
    assert.ok(!out.includes('&amp;lt;'), `no double escaping: ${out}`);
    assert.ok(!out.includes('<i>'), out);
  });

  it('is the identity on text without <', () => {
    const src = 'plain **md** with `code` and\n\n```\nfence\n```';
    assert.equal(htmlAsText(src), src);
  });
});

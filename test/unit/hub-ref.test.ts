/** Hub references as users paste them (hf:// paths in huggingface_hub's and DuckDB's spelling, Hub page URLs) and the API URLs made from them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childRef, HubRefError, hubRefString, normalizeEndpoint, parseHubRef, resolveUrl, treeUrl } from '../../src/hub/hub-ref';

const HF = 'https://huggingface.co';

describe('parseHubRef', () => {
  const cases: [string, { repo: string; revision: string; path: string; kind: string } | null][] = [
    ['hf://datasets/acme/agent-traces', { repo: 'acme/agent-traces', revision: 'main', path: '', kind: 'unknown' }],
    ['hf://datasets/acme/agent-traces/', { repo: 'acme/agent-traces', revision: 'main', path: '', kind: 'unknown' }],
    ['hf://datasets/acme/agent-traces/sessions/claude', { repo: 'acme/agent-traces', revision: 'main', path: 'sessions/claude', kind: 'unknown' }],
    ['hf://datasets/acme/agent-traces@v1.0/data/train.jsonl', { repo: 'acme/agent-traces', revision: 'v1.0', path: 'data/train.jsonl', kind: 'unknown' }],
    ['hf://datasets/acme/agent-traces@refs%2Fconvert%2Fparquet/default/train/0000.parquet', { repo: 'acme/agent-traces', revision: 'refs/convert/parquet', path: 'default/train/0000.parquet', kind: 'unknown' }],
    ['hf://datasets/acme/agent-traces@~parquet/default', { repo: 'acme/agent-traces', revision: 'refs/convert/parquet', path: 'default', kind: 'unknown' }],
    ['HF://datasets/acme/x/a%20b.jsonl', { repo: 'acme/x', revision: 'main', path: 'a b.jsonl', kind: 'unknown' }],
    ['https://huggingface.co/datasets/acme/agent-traces', { repo: 'acme/agent-traces', revision: 'main', path: '', kind: 'folder' }],
    ['https://huggingface.co/datasets/acme/agent-traces/viewer/default/train', { repo: 'acme/agent-traces', revision: 'main', path: '', kind: 'folder' }],
    ['https://huggingface.co/datasets/acme/agent-traces/tree/main/sessions', { repo: 'acme/agent-traces', revision: 'main', path: 'sessions', kind: 'folder' }],
    ['https://huggingface.co/datasets/acme/agent-traces/blob/dev/sessions/a.jsonl?download=true', { repo: 'acme/agent-traces', revision: 'dev', path: 'sessions/a.jsonl', kind: 'file' }],
    ['https://hf.co/datasets/acme/agent-traces/resolve/refs%2Fpr%2F3/a.parquet#x', { repo: 'acme/agent-traces', revision: 'refs/pr/3', path: 'a.parquet', kind: 'file' }],
    ['https://example.com/datasets/acme/x', null],
    ['https://huggingface.co/acme/some-model', null],
    ['https://huggingface.co/api/datasets/acme/x/tree/main', null],
    ['notes.jsonl', null],
    ['ftp://huggingface.co/datasets/a/b', null],
  ];
  for (const [text, want] of cases) {
    it(text, () => {
      const got = parseHubRef(text, HF);
      assert.deepEqual(got && { ...got }, want);
    });
  }

  it('a URL on the configured endpoint (a mirror under a sub-path) is a Hub reference; huggingface.co ones stay so', () => {
    const ep = 'https://mirror.example/hf/';
    assert.deepEqual(parseHubRef('https://mirror.example/hf/datasets/a/b/tree/main/x', ep), { repo: 'a/b', revision: 'main', path: 'x', kind: 'folder' });
    assert.equal(parseHubRef('https://mirror.example/other/datasets/a/b', ep), null);
    assert.equal(parseHubRef('https://huggingface.co/datasets/a/b', ep)?.repo, 'a/b');
  });

  it('refuses what is malformed or climbs out of the repository, naming the problem', () => {
    for (const [text, re] of [
      ['hf://models/gpt2/config.json', /only datasets/],
      ['hf://datasets/only-owner', /names no dataset/],
      ['hf://datasets/a/b/../../c', /not allowed/],
      ['hf://datasets/a/b/%2e%2e/c', /not allowed/],
      ['hf://datasets/a/b/x%2Fy', /not allowed/],
      ['hf://datasets/a/b@/x', /not a branch/],
      ['hf://datasets/a/b@a..b/x', /not a branch/],
      ['hf://datasets/a b/c', /not a dataset id/],
      ['https://huggingface.co/datasets/a/b/settings', /not …\/settings\//],
      ['https://huggingface.co/datasets/a/b/tree', /names no revision/],
      ['hf://datasets/a/b/%E0%A4%A', /not valid URL encoding/],
    ] as const) {
      assert.throws(() => parseHubRef(text, HF), (e: Error) => e instanceof HubRefError && re.test(e.message), text);
    }
  });
});

describe('Hub API URLs', () => {
  const ref = { repo: 'acme/traces', revision: 'refs/convert/parquet', path: 'default/train split/0.parquet' };
  it('tree and resolve URLs encode the revision whole and each path part', () => {
    assert.equal(treeUrl('https://huggingface.co/', ref, { recursive: true }), 'https://huggingface.co/api/datasets/acme/traces/tree/refs%2Fconvert%2Fparquet/default/train%20split/0.parquet?recursive=true&expand=false');
    assert.equal(treeUrl('http://127.0.0.1:9/hub', { repo: 'a/b', revision: 'main', path: '' }), 'http://127.0.0.1:9/hub/api/datasets/a/b/tree/main?recursive=false&expand=false');
    assert.equal(resolveUrl('https://huggingface.co', ref), 'https://huggingface.co/datasets/acme/traces/resolve/refs%2Fconvert%2Fparquet/default/train%20split/0.parquet');
    assert.throws(() => resolveUrl(HF, { repo: 'a/b', revision: 'main', path: '' }), /names the dataset, not a file/);
  });

  it('hubRefString round-trips through parseHubRef', () => {
    for (const r of [ref, { repo: 'a/b', revision: 'main', path: '' }, { repo: 'a/b', revision: 'v1', path: 'x/y.jsonl' }, { repo: 'a/b', revision: 'refs/pr/2', path: 'z' }]) {
      const s = hubRefString(r);
      const back = parseHubRef(s, HF)!;
      assert.deepEqual({ repo: back.repo, revision: back.revision, path: back.path }, r, s);
    }
    assert.equal(hubRefString(ref), 'hf://datasets/acme/traces@~parquet/default/train split/0.parquet');
  });

  it('childRef keeps the repository and revision; endpoints are checked', () => {
    assert.deepEqual(childRef({ repo: 'a/b', revision: 'v2', path: 'x', kind: 'folder' }, 'x/y/z.jsonl', 'file'), { repo: 'a/b', revision: 'v2', path: 'x/y/z.jsonl', kind: 'file' });
    assert.equal(normalizeEndpoint(' https://hf-mirror.com/ '), 'https://hf-mirror.com');
    assert.throws(() => normalizeEndpoint('hf-mirror.com'), /not a URL/);
    assert.throws(() => normalizeEndpoint('file:///etc'), /must be http/);
    assert.throws(() => normalizeEndpoint('https://user:pw@hf.co'), /user name or password/);
  });
});

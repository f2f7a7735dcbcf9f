// A loopback stand-in for the Hugging Face Hub (no internet in tests): the tree API paged by `Link: <…>; rel="next"`
// with a cursor (as huggingface_hub's paginate and huggingface.js's listFiles follow it), `resolve` downloads with
// Range → 206 (or, with `ranges: false`, a host that ignores ranges and sends 200 and the whole file), HEAD, CORS
// (preflights answered, the headers a page must read exposed), gated datasets that want `Authorization: Bearer <token>`,
// and, like the Hub, LFS files redirected to a CDN on another origin. Entry shapes follow the Hub's tree answer
// ({type, oid, size, path, lfs: {oid, size, pointerSize}}; huggingface.js ListFileEntry). Every request is logged.
import { createHash } from 'node:crypto';
import http from 'node:http';

const sha1 = (b) => createHash('sha1').update(b).digest('hex');
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/**
 * @typedef {{ files: Record<string, Uint8Array | string>, revision?: string, token?: string, lfsOver?: number }} DatasetSpec
 * @param {{ datasets: Record<string, DatasetSpec>, pageSize?: number, ranges?: boolean, cors?: boolean, cdn?: boolean, foreignNext?: string, echoToken?: boolean }} opts
 */
export async function startHub(opts) {
  const log = [];
  let bytesSent = 0;
  const pageSize = opts.pageSize ?? 1000;
  const data = new Map();
  for (const [id, spec] of Object.entries(opts.datasets)) {
    const files = new Map();
    for (const [path, content] of Object.entries(spec.files)) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      const lfs = bytes.length > (spec.lfsOver ?? 64);
      files.set(path, { bytes, oid: sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes])), sha: sha256(bytes), lfs });
    }
    data.set(id, { ...spec, revision: spec.revision ?? 'main', files });
  }
  const cdnBlobs = new Map();

  const cors = (req, res) => {
    if (opts.cors === false) return;
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
    res.setHeader('Access-Control-Allow-Headers', 'authorization, range, accept');
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Expose-Headers', 'Link, Content-Range, Content-Length, Accept-Ranges, ETag, X-Error-Message, X-Repo-Commit');
  };

  const sendBytes = (req, res, bytes, etag) => {
    res.setHeader('ETag', `"${etag}"`);
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && opts.ranges !== false) {
      let a = range[1] === '' ? bytes.length - Number(range[2]) : Number(range[1]);
      let b = range[1] === '' || range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
      a = Math.max(0, a);
      if (a > b || a >= bytes.length) {
        res.writeHead(416, { 'Content-Range': `bytes */${bytes.length}` });
        return res.end();
      }
      b = Math.max(a, b);
      res.writeHead(206, { 'Content-Range': `bytes ${a}-${b}/${bytes.length}`, 'Content-Length': b - a + 1, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' });
      if (req.method === 'HEAD') return res.end();
      bytesSent += b - a + 1;
      return res.end(Buffer.from(bytes.subarray(a, b + 1)));
    }
    res.writeHead(200, { 'Content-Length': bytes.length, ...(opts.ranges === false ? {} : { 'Accept-Ranges': 'bytes' }), 'Content-Type': 'application/octet-stream' });
    if (req.method === 'HEAD') return res.end();
    bytesSent += bytes.length;
    return res.end(Buffer.from(bytes));
  };

  const refuse = (res, status, message) => {
    res.setHeader('X-Error-Message', message);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: message }));
  };

  /** null when allowed, else [status, message] (the Hub's 401 for a gated dataset without a token). */
  const gate = (ds, id, req) => {
    if (!ds.token) return null;
    const auth = req.headers.authorization;
    if (!auth) return [401, `Access to dataset ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`];
    if (auth !== `Bearer ${ds.token}`) return [401, opts.echoToken ? `Invalid credentials in Authorization header: ${auth.slice(7)}` : 'Invalid credentials in Authorization header'];
    return null;
  };

  const handler = (port) => (req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    log.push({ server: port === 'cdn' ? 'cdn' : 'hub', method: req.method, path: decodeURIComponent(url.pathname), search: url.search, range: req.headers.range ?? null, authorization: req.headers.authorization ?? null });
    cors(req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      return res.end();
    }
    if (port === 'cdn') {
      const blob = cdnBlobs.get(url.pathname);
      if (!blob) return refuse(res, 404, 'no such blob');
      return sendBytes(req, res, blob.bytes, blob.sha);
    }
    const tree = /^\/api\/datasets\/([^/]+\/[^/]+)\/tree\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const resolve = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const m = tree ?? resolve;
    if (!m) return refuse(res, 404, `no route ${url.pathname}`);
    const id = m[1];
    const ds = data.get(id);
    if (!ds) return refuse(res, 401, 'Repository not found');
    const denied = gate(ds, id, req);
    if (denied) return refuse(res, denied[0], denied[1]);
    if (decodeURIComponent(m[2]) !== ds.revision) return refuse(res, 404, `Invalid rev id: ${decodeURIComponent(m[2])}`);
    const sub = (m[3] ?? '').split('/').filter(Boolean).map(decodeURIComponent).join('/');
    if (resolve) {
      const f = ds.files.get(sub);
      if (!f) return refuse(res, 404, 'Entry not found');
      if (opts.cdn && f.lfs) {
        const key = `/cdn/${f.sha}`;
        cdnBlobs.set(key, f);
        res.writeHead(302, { Location: `${cdnOrigin}${key}?X-Amz-Expires=3600` });
        return res.end();
      }
      return sendBytes(req, res, f.bytes, f.lfs ? f.sha : f.oid);
    }
    if (ds.files.has(sub)) return refuse(res, 404, `${sub} is not a directory`);
    const recursive = url.searchParams.get('recursive') === 'true' || url.searchParams.get('recursive') === '1';
    const prefix = sub ? `${sub}/` : '';
    const entries = [];
    const dirs = new Set();
    for (const [path, f] of ds.files) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length).split('/');
      for (let i = 1; i < rest.length; i++) {
        const dir = prefix + rest.slice(0, i).join('/');
        if ((recursive || i === 1) && !dirs.has(dir)) {
          dirs.add(dir);
          entries.push({ type: 'directory', oid: sha1(dir), size: 0, path: dir });
        }
      }
      if (!recursive && rest.length > 1) continue;
      entries.push({ type: 'file', oid: f.oid, size: f.bytes.length, path, ...(f.lfs ? { lfs: { oid: f.sha, size: f.bytes.length, pointerSize: 134 } } : {}) });
    }
    if (!entries.length && sub) return refuse(res, 404, `${sub} does not exist on "${ds.revision}"`);
    // in path order, as the Hub lists a git tree
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const cursor = Number(url.searchParams.get('cursor') ?? 0);
    const page = entries.slice(cursor, cursor + pageSize);
    if (cursor + pageSize < entries.length) {
      const next = new URL(url.href);
      next.searchParams.set('cursor', String(cursor + pageSize));
      const origin = opts.foreignNext ?? hubOrigin;
      res.setHeader('Link', `<${origin}${next.pathname}${next.search}>; rel="next"`);
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(page));
  };

  const hub = http.createServer(handler('hub'));
  const cdn = http.createServer(handler('cdn'));
  await new Promise((r) => hub.listen(0, '127.0.0.1', r));
  await new Promise((r) => cdn.listen(0, '127.0.0.1', r));
  const hubOrigin = `http://127.0.0.1:${hub.address().port}`;
  // another origin than the Hub's (localhost vs 127.0.0.1), as the Hub's CDN is
  const cdnOrigin = `http://localhost:${cdn.address().port}`;
  return {
    endpoint: hubOrigin,
    cdnOrigin,
    log,
    bytesSent: () => bytesSent,
    reset() {
      log.length = 0;
      bytesSent = 0;
    },
    /** The file's SHA-256 and git oid as the listing gives them. */
    file(id, path) {
      const f = data.get(id)?.files.get(path);
      return f ? { sha256: f.sha, oid: f.oid, size: f.bytes.length, lfs: f.lfs } : null;
    },
    async close() {
      hub.closeAllConnections();
      cdn.closeAllConnections();
      await Promise.all([new Promise((r) => hub.close(r)), new Promise((r) => cdn.close(r))]);
    },
  };
}

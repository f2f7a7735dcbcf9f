// Browser-side probes: a static host with ordinary cache headers, the page hooks (ready time, long
// tasks), the process-tree memory sampler, and the in-page measurements.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.md': 'text/markdown; charset=utf-8', '.jsonl': 'application/x-ndjson', '.svg': 'image/svg+xml' };

/** Serve dist/ like a typical static host (GitHub Pages: `max-age=600`, ETag, Last-Modified) so a warm HTTP cache means something. */
export function serveCached(root) {
  const dir = resolve(root);
  const server = createServer((req, res) => {
    let file = join(dir, normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(dir)) { res.writeHead(403); res.end(); return; }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
    const st = statSync(file);
    const etag = `"${createHash('sha1').update(`${file}:${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 16)}"`;
    const headers = { 'Cache-Control': 'max-age=600', ETag: etag, 'Last-Modified': st.mtime.toUTCString(), 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' };
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, headers); res.end(); return; }
    res.writeHead(200, { ...headers, 'Content-Length': st.size });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) })));
}

/** Runs before the app: records when workbench.ready resolves, first contentful paint, long tasks. */
export function pageHooks() {
  window.__longtasks = [];
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask', buffered: true });
  } catch { /* not supported */ }
  let wb;
  Object.defineProperty(window, 'workbench', {
    configurable: true,
    get: () => wb,
    set: (v) => {
      wb = v;
      v?.ready?.then(() => { window.__readyAt = performance.now(); }, () => { window.__readyAt = -1; });
    },
  });
}

export function descendants(root) {
  const kids = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* exited */ }
  }
  const out = [];
  const stack = [...(kids.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(kids.get(pid) ?? []));
  }
  return out;
}

const PAGE = 4096;
const TICK_MS = 10; // USER_HZ 100 on Linux

/** CPU time (user + system, ms) used so far by each running descendant of `root`, by pid. */
export function treeCpu(root = process.pid) {
  const out = new Map();
  for (const pid of descendants(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(f[11]) + Number(f[12])) * TICK_MS);
    } catch { /* exited */ }
  }
  return out;
}

/** CPU ms the tree spent between two treeCpu() readings (processes that exited in between are not counted; new ones count whole). */
export function cpuSince(before, after = treeCpu()) {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/**
 * Sum of resident memory of every descendant process of `root` (Chromium's browser, renderer, GPU,
 * utility processes). RSS from statm is cheap; PSS (smaps_rollup walks page tables) only when asked,
 * because sampling it every 50 ms cost the driver ~60 % of a core and slowed the browser it measured.
 */
export function treeMemory(root = process.pid, { pss = false, pids = descendants(root) } = {}) {
  let rss = 0;
  let p = 0;
  for (const pid of pids) {
    try {
      rss += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
      if (pss) p += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch { /* exited */ }
  }
  return { rss, pss: pss ? p : null };
}

/** Sample the tree's RSS every `ms` until stopped (process list refreshed every 2 s); returns the peaks. */
export function sampler(ms = 100) {
  let pids = descendants(process.pid);
  const base = treeMemory(process.pid, { pss: true, pids });
  let peak = { rss: base.rss };
  let n = 0;
  const t = setInterval(() => {
    if (++n % Math.max(1, Math.round(2000 / ms)) === 0) pids = descendants(process.pid);
    peak = { rss: Math.max(peak.rss, treeMemory(process.pid, { pids }).rss) };
  }, ms);
  return { base, stop: () => { clearInterval(t); return { base, peak }; } };
}

/** A file input outside the app (so choosing the file does not start an import), holding `path`. */
export async function stageFile(page, path) {
  await page.evaluate(() => {
    if (document.getElementById('__bench_file')) return;
    const i = document.createElement('input');
    i.type = 'file';
    i.id = '__bench_file';
    i.style.display = 'none';
    document.body.append(i);
  });
  await page.setInputFiles('#__bench_file', path);
}

export async function importStaged(page, { shards } = {}) {
  return page.evaluate(async (shards) => {
    const file = document.getElementById('__bench_file').files[0];
    window.__longtasks.length = 0;
    const t0 = performance.now();
    const [r] = await window.workbench.importFiles([file], shards ? { shards } : {});
    const ms = performance.now() - t0;
    const tasks = window.__longtasks.filter((e) => e.start >= t0);
    return { ms, status: r.status, message: r.message, format: r.format, records: r.records, rows: r.rows, added: r.added, timings: r.timings ?? null, shards: r.shards ?? 1, longestTask: Math.max(0, ...tasks.map((e) => e.duration)), longTasks: tasks.length };
  }, shards ?? null);
}

export async function exportSteps(page) {
  return page.evaluate(async () => {
    const t0 = performance.now();
    const blob = await window.workbench.exportQuery('SELECT * FROM steps', { format: 'parquet' });
    const ms = performance.now() - t0;
    window.__lastExport = blob;
    return { ms, bytes: blob.size };
  });
}

/** The last exported Blob, copied to Node in slices. */
export async function fetchLastExport(page) {
  const size = await page.evaluate(() => window.__lastExport.size);
  const parts = [];
  const step = 8 << 20;
  for (let at = 0; at < size; at += step) {
    const b64 = await page.evaluate(([a, b]) => new Promise((ok, fail) => {
      const r = new FileReader();
      r.onload = () => ok(String(r.result).split(',')[1] ?? '');
      r.onerror = () => fail(r.error);
      r.readAsDataURL(window.__lastExport.slice(a, b));
    }), [at, Math.min(size, at + step)]);
    parts.push(Buffer.from(b64, 'base64'));
  }
  return Buffer.concat(parts);
}

/** The CPU floor: the staged file read, decoded, split and JSON.parse'd in `workers` workers (no normalizing, no Arrow, no DuckDB). */
export async function parseFloor(page, { parse = true, workers = 1 } = {}) {
  return page.evaluate(async ({ parse, workers }) => {
    const file = document.getElementById('__bench_file').files[0];
    const src = `onmessage = async (e) => {
      const { file, start, end, parse } = e.data;
      const t0 = performance.now();
      // each worker owns the lines that start in [start, end)
      let from = start;
      if (start > 0) {
        const head = new Uint8Array(await file.slice(start - 1, Math.min(file.size, start + (1 << 20))).arrayBuffer());
        const nl = head.indexOf(10);
        from = start - 1 + nl + 1;
      }
      const tail = end >= file.size ? file.size : await (async () => {
        const t = new Uint8Array(await file.slice(end - 1, Math.min(file.size, end + (1 << 20))).arrayBuffer());
        return end - 1 + t.indexOf(10) + 1;
      })();
      const reader = file.slice(from, tail).stream().pipeThrough(new TextDecoderStream()).getReader();
      let carry = '', n = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const s = carry + value;
        let i = 0;
        for (;;) {
          const j = s.indexOf('\\n', i);
          if (j < 0) break;
          if (parse) JSON.parse(s.slice(i, j)); else s.slice(i, j);
          n++;
          i = j + 1;
        }
        carry = s.slice(i);
      }
      if (carry.trim()) { if (parse) JSON.parse(carry); n++; }
      postMessage({ ms: performance.now() - t0, n });
    }`;
    const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    const t0 = performance.now();
    const per = Math.ceil(file.size / workers);
    const results = await Promise.all(Array.from({ length: workers }, (_, k) => new Promise((ok, fail) => {
      const w = new Worker(url);
      w.onmessage = (e) => { w.terminate(); ok(e.data); };
      w.onerror = (e) => { w.terminate(); fail(new Error(e.message)); };
      w.postMessage({ file, start: k * per, end: Math.min(file.size, (k + 1) * per), parse });
    })));
    URL.revokeObjectURL(url);
    return { ms: performance.now() - t0, lines: results.reduce((a, r) => a + r.n, 0) };
  }, { parse, workers });
}

/** Time one query the way the dashboard runs it (pool worker → Arrow IPC → rows on the main thread). */
export async function timeQuery(page, sql) {
  return page.evaluate(async (q) => {
    const t0 = performance.now();
    const rows = await window.workbench.query(q);
    return { ms: performance.now() - t0, rows: rows.length };
  }, sql);
}

/**
 * Import the staged file while a notebook-sized query (a 1,000-row table) runs every 100 ms: the
 * latency of those queries says whether the pool stays responsive during an import.
 */
export async function importWithPings(page, { shards } = {}) {
  return page.evaluate(async (shards) => {
    await window.workbench.query('CREATE OR REPLACE TABLE bench_notes AS SELECT range AS i FROM range(1000)');
    const file = document.getElementById('__bench_file').files[0];
    const lat = [];
    let done = false;
    const t0 = performance.now();
    const imp = window.workbench.importFiles([file], shards ? { shards } : {}).then((x) => {
      done = true;
      return x;
    });
    while (!done) {
      const s = performance.now();
      await window.workbench.query('SELECT count(*) AS n, sum(i) AS s FROM bench_notes');
      lat.push({ at: s - t0, ms: performance.now() - s });
      await new Promise((r) => setTimeout(r, 100));
    }
    const [rep] = await imp;
    const ms = lat.map((x) => x.ms).sort((a, b) => a - b);
    const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
    const worst = lat.find((x) => x.ms === ms.at(-1));
    return { importMs: performance.now() - t0, status: rep.status, timings: rep.timings, queries: ms.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: ms.at(-1), worstAt: worst?.at ?? null };
  }, shards ?? null);
}

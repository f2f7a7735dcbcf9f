// Where a main-thread CPU profile (Chrome DevTools .cpuprofile) spends its time inside a window:
//   node bench/cpuprofile-top.mjs profile.cpuprofile [fromMs toMs]   (ms relative to the profile's start)
// Prints self time per function (url:line) and the heaviest stacks, so a long task can be attributed.
import { readFileSync } from 'node:fs';

export function topOfProfile(profile, from = 0, to = Infinity, n = 15) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parent = new Map();
  for (const x of profile.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const self = new Map();
  const stacks = new Map();
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += (profile.timeDeltas[i] ?? 0) / 1000;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (t < from || t > to) continue;
    const node = byId.get(profile.samples[i]);
    const f = node.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    const frames = [];
    for (let id = node.id; id !== undefined && frames.length < 8; id = parent.get(id)) {
      const c = byId.get(id).callFrame;
      if (c.functionName === '(root)') break;
      frames.push(`${c.functionName || '(anon)'}@${c.url.split('/').pop()}:${c.lineNumber + 1}`);
    }
    const sk = frames.join(' < ');
    stacks.set(sk, (stacks.get(sk) ?? 0) + dt);
  }
  const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, ms]) => ({ ms: Math.round(ms), at: k }));
  return { self: top(self), stacks: top(stacks) };
}

/** The longest stretch of consecutive busy (not idle) samples: [fromMs, toMs] relative to the profile's start. */
export function longestBusy(profile) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  let t = 0;
  let start = null;
  let best = [0, 0];
  for (let i = 0; i < profile.samples.length; i++) {
    t += (profile.timeDeltas[i] ?? 0) / 1000;
    const name = byId.get(profile.samples[i]).callFrame.functionName;
    const idle = name === '(idle)';
    if (!idle && start === null) start = t;
    if (idle && start !== null) {
      if (t - start > best[1] - best[0]) best = [start, t];
      start = null;
    }
  }
  if (start !== null && t - start > best[1] - best[0]) best = [start, t];
  return best;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const [from, to] = process.argv[3] ? [Number(process.argv[3]), Number(process.argv[4])] : longestBusy(p);
  const r = { window: [from, to], ...topOfProfile(p, from, to) };
  console.log(JSON.stringify(r, null, 1));
}

/**
 * References to files and folders of a Hugging Face Hub dataset, as users paste them: `hf://datasets/<owner>/<name>[@<revision>][/<path>]`
 * (huggingface_hub's HfFileSystem and DuckDB's httpfs spell them so; a revision holding `/` is URL-encoded,
 * `@refs%2Fconvert%2Fparquet`, and `@~parquet` names that branch) or a Hub page URL (`…/datasets/<owner>/<name>`,
 * `…/tree/<rev>/<path>`, `…/blob/<rev>/<path>`, `…/resolve/<rev>/<path>`). From a reference come the API's URLs on the
 * configured endpoint: the tree listing and a file's `resolve` URL.
 */

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

export interface HubRef {
  /** `<owner>/<name>`. */
  repo: string;
  /** Branch, tag or commit; `main` unless the reference names one. */
  revision: string;
  /** Path inside the repository, without leading or trailing `/`; '' for its root. */
  path: string;
  /** What the reference says it points at: a `blob` / `resolve` URL names a file, a `tree` URL a folder. */
  kind: 'file' | 'folder' | 'unknown';
}

export class HubRefError extends Error {
  override name = 'HubRefError';
}

/** The branch holding the Hub's own Parquet conversion of a dataset (`@~parquet` in DuckDB's spelling). */
const PARQUET_BRANCH = 'refs/convert/parquet';
/** Hosts whose dataset URLs are Hub references whatever endpoint is configured (requests still go to the endpoint). */
const HUB_HOSTS = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co']);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The endpoint as an origin plus optional base path, without a trailing `/` (`https://hf-mirror.example/hub`). */
export function normalizeEndpoint(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint.trim());
  } catch (e) {
    throw new HubRefError(`The Hub address ${JSON.stringify(endpoint)} is not a URL: give one such as ${DEFAULT_HUB_ENDPOINT}.`, { cause: e });
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new HubRefError(`The Hub address must be http(s), not ${u.protocol}`);
  if (u.username || u.password) throw new HubRefError('The Hub address must not carry a user name or password: give the token in the token field.');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function decodeRevision(raw: string): string {
  let rev: string;
  try {
    rev = decodeURIComponent(raw);
  } catch (e) {
    throw new HubRefError(`The revision ${JSON.stringify(raw)} is not valid URL encoding.`, { cause: e });
  }
  if (rev === '~parquet') return PARQUET_BRANCH;
  if (!rev || rev.includes('..') || /[\s\\]/.test(rev)) throw new HubRefError(`The revision ${JSON.stringify(rev)} is not a branch, tag or commit name.`);
  return rev;
}

function cleanPath(parts: string[]): string {
  const out: string[] = [];
  for (const raw of parts) {
    if (!raw) continue;
    let p: string;
    try {
      p = decodeURIComponent(raw);
    } catch (e) {
      throw new HubRefError(`The path part ${JSON.stringify(raw)} is not valid URL encoding.`, { cause: e });
    }
    // a path never climbs out of the repository, however it is spelled
    if (p === '.' || p === '..' || p.includes('/') || p.includes('\\')) throw new HubRefError(`The path part ${JSON.stringify(p)} is not allowed in a Hub reference.`);
    out.push(p);
  }
  return out.join('/');
}

function repoOf(owner: string | undefined, name: string | undefined, text: string): string {
  if (!owner || !name) throw new HubRefError(`${text} names no dataset: write hf://datasets/<owner>/<name>[/<path>].`);
  if (!NAME.test(owner) || !NAME.test(name) || name.endsWith('.git')) throw new HubRefError(`${JSON.stringify(`${owner}/${name}`)} is not a dataset id (<owner>/<name> of letters, digits, '-', '_', '.').`);
  return `${owner}/${name}`;
}

function fromHfScheme(text: string): HubRef {
  const rest = text.slice('hf://'.length).split(/[?#]/)[0];
  const parts = rest.split('/');
  const type = parts.shift();
  if (type !== 'datasets') throw new HubRefError(`${text}: only datasets can be imported (hf://datasets/<owner>/<name>/…), not ${type || 'this'}.`);
  const owner = parts.shift();
  let name = parts.shift();
  let revision = 'main';
  const at = name?.indexOf('@') ?? -1;
  if (name && at >= 0) {
    revision = decodeRevision(name.slice(at + 1));
    name = name.slice(0, at);
  }
  return { repo: repoOf(owner, name, text), revision, path: cleanPath(parts), kind: 'unknown' };
}

function fromHubUrl(u: URL, text: string): HubRef {
  const parts = u.pathname.split('/').slice(1);
  if (parts.shift() !== 'datasets') throw new HubRefError(`${text} is not a dataset page: it should start with /datasets/<owner>/<name>.`);
  const owner = parts.shift();
  let name = parts.shift();
  let revision = 'main';
  let kind: HubRef['kind'] = 'folder';
  const at = name?.indexOf('@') ?? -1;
  if (name && at >= 0) {
    revision = decodeRevision(name.slice(at + 1));
    name = name.slice(0, at);
  }
  const repo = repoOf(owner, name, text);
  const verb = parts.shift();
  if (verb === undefined || verb === '' || verb === 'viewer' || verb === 'discussions' || verb === 'commits') return { repo, revision, path: '', kind: 'folder' };
  if (verb !== 'tree' && verb !== 'blob' && verb !== 'resolve') throw new HubRefError(`${text}: a dataset URL names a folder (…/tree/<revision>/<path>) or a file (…/blob/ or …/resolve/<revision>/<path>), not …/${verb}/.`);
  const rev = parts.shift();
  if (!rev) throw new HubRefError(`${text} names no revision after /${verb}/.`);
  revision = decodeRevision(rev);
  kind = verb === 'tree' ? 'folder' : 'file';
  return { repo, revision, path: cleanPath(parts), kind };
}

/**
 * The Hub reference `text` spells, or null when it is not one (an ordinary URL). A Hub page URL counts when its
 * host is huggingface.co / hf.co or the configured endpoint's. Throws HubRefError for a reference that is malformed.
 */
export function parseHubRef(text: string, endpoint: string = DEFAULT_HUB_ENDPOINT): HubRef | null {
  const t = text.trim();
  if (/^hf:\/\//i.test(t)) return fromHfScheme(`hf://${t.slice(5)}`);
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const ep = new URL(normalizeEndpoint(endpoint));
  const onEndpoint = u.origin === ep.origin && u.pathname.startsWith(`${ep.pathname.replace(/\/$/, '')}/`);
  if (!HUB_HOSTS.has(u.hostname.toLowerCase()) && !onEndpoint) return null;
  if (onEndpoint && ep.pathname !== '/') u = new URL(u.pathname.slice(ep.pathname.replace(/\/$/, '').length) + u.search, u.origin);
  // the API's own URLs are not pages to import from
  if (u.pathname.startsWith('/api/')) return null;
  if (!u.pathname.startsWith('/datasets/')) return null;
  return fromHubUrl(u, t);
}

/** A path's segments URL-encoded, `/` kept between them. */
function encodePath(path: string): string {
  return path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

/** `hf://datasets/<owner>/<name>[@<revision>][/<path>]` — how reports and the journal name a Hub file. */
export function hubRefString(ref: Pick<HubRef, 'repo' | 'revision' | 'path'>): string {
  const rev = ref.revision === 'main' ? '' : `@${ref.revision === PARQUET_BRANCH ? '~parquet' : encodeURIComponent(ref.revision)}`;
  return `hf://datasets/${ref.repo}${rev}${ref.path ? `/${ref.path}` : ''}`;
}

/** The tree API's URL for a folder (huggingface_hub's list_repo_tree: `/api/datasets/<id>/tree/<revision>/<path>`). */
export function treeUrl(endpoint: string, ref: Pick<HubRef, 'repo' | 'revision' | 'path'>, opts: { recursive?: boolean } = {}): string {
  const path = encodePath(ref.path);
  const u = `${normalizeEndpoint(endpoint)}/api/datasets/${ref.repo}/tree/${encodeURIComponent(ref.revision)}${path ? `/${path}` : ''}`;
  return `${u}?recursive=${opts.recursive ? 'true' : 'false'}&expand=false`;
}

/** A file's download URL (`/datasets/<id>/resolve/<revision>/<path>`; the Hub redirects large files to its CDN). */
export function resolveUrl(endpoint: string, ref: Pick<HubRef, 'repo' | 'revision' | 'path'>): string {
  if (!ref.path) throw new HubRefError(`${hubRefString(ref)} names the dataset, not a file in it.`);
  return `${normalizeEndpoint(endpoint)}/datasets/${ref.repo}/resolve/${encodeURIComponent(ref.revision)}/${encodePath(ref.path)}`;
}

/**
 * Why a path a listing gave is no plain path in the repository, or null. A listing's paths are the repository's own
 * (not URL-encoded: `50%.jsonl` is that file), and one that climbs out (`..`, `.`, an empty part, `\\`) is the
 * listing's fault, never followed.
 */
export function repoPathProblem(repoPath: string): string | null {
  return repoPath.split('/').some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))
    ? `${JSON.stringify(repoPath)} is not a plain path in the repository: the listing is broken or hostile, so it was not downloaded`
    : null;
}

/** The same reference at a path the listing returned (a file or folder, by its path in the repository, as listed). */
export function childRef(ref: HubRef, repoPath: string, kind: HubRef['kind']): HubRef {
  const problem = repoPathProblem(repoPath);
  if (problem) throw new HubRefError(problem);
  return { repo: ref.repo, revision: ref.revision, path: repoPath, kind };
}

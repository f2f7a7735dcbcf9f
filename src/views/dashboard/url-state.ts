/**
 * The dashboard's state as address parameters (views/kit/route.ts): the sub-view, the filter, the sort, the
 * trajectory in the inspector, its step and the inspector's view. Defaults are left out, so a plain `#dashboard`
 * is the dashboard as it opens; values are only ever read back into the filter (never into SQL text).
 */
import type { CurationFilter, TrajectoryStatus } from '../../curation/filter';
import { DEFAULT_SORT, type Sort, TRAJECTORY_COLUMNS, type TrajectorySortColumn } from './queries';
import { INSPECTOR_VIEWS, type InspectorView } from '../inspector/views';

export type DashboardTab = 'overview' | 'review' | 'reference';

export interface DashboardUrlState {
  tab: DashboardTab;
  filter: CurationFilter;
  sort: Sort;
  trajectory: string | null;
  /** The inspector's step (index in the trajectory). */
  step: number;
  view: InspectorView;
}

const LISTS = [['agent', 'agents'], ['model', 'models'], ['source', 'dataSources'], ['channel', 'channels'], ['quality', 'quality'], ['tag', 'tags']] as const;
const STATUSES: readonly string[] = ['any', 'complete', 'open', 'error', 'ok'];
const SORTABLE: readonly string[] = [...TRAJECTORY_COLUMNS, 'cost_usd'];

export function dashboardRoute(s: DashboardUrlState): { sub: string; params: URLSearchParams } {
  const p = new URLSearchParams();
  const f = s.filter;
  for (const [key, field] of LISTS) for (const v of f[field] ?? []) if (v !== '') p.append(key, v);
  if (Number.isFinite(f.rewardMin)) p.set('rmin', String(f.rewardMin));
  if (Number.isFinite(f.rewardMax)) p.set('rmax', String(f.rewardMax));
  if (f.status && f.status !== 'any') p.set('status', f.status);
  if (f.trainable && f.trainable !== 'any') p.set('trainable', f.trainable);
  if (f.text?.trim()) p.set('q', f.text);
  if (s.sort.column !== DEFAULT_SORT.column || s.sort.descending !== DEFAULT_SORT.descending) p.set('sort', `${s.sort.descending ? '-' : ''}${s.sort.column}`);
  if (s.trajectory) p.set('traj', s.trajectory);
  if (s.trajectory && s.step > 0) p.set('step', String(s.step));
  if (s.view !== 'conversation') p.set('view', s.view);
  return { sub: s.tab === 'overview' ? '' : s.tab, params: p };
}

/** The state a dashboard address describes; what it does not say takes the default. Unknown values are ignored. */
export function readDashboardRoute(sub: string, p: URLSearchParams): DashboardUrlState {
  const filter: CurationFilter = {};
  for (const [key, field] of LISTS) {
    const vs = p.getAll(key).filter(Boolean);
    if (vs.length) filter[field] = vs;
  }
  const num = (k: string) => {
    const v = p.get(k);
    return v !== null && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
  };
  if (num('rmin') !== undefined) filter.rewardMin = num('rmin');
  if (num('rmax') !== undefined) filter.rewardMax = num('rmax');
  const status = p.get('status');
  if (status && STATUSES.includes(status)) filter.status = status as TrajectoryStatus;
  const trainable = p.get('trainable');
  if (trainable === 'yes' || trainable === 'no') filter.trainable = trainable;
  const q = p.get('q');
  if (q) filter.text = q;
  const sortText = p.get('sort') ?? '';
  const column = sortText.replace(/^-/, '');
  const sort: Sort = SORTABLE.includes(column) ? { column: column as TrajectorySortColumn, descending: sortText.startsWith('-') } : DEFAULT_SORT;
  const step = Number(p.get('step'));
  const view = p.get('view');
  return {
    tab: sub === 'review' || sub === 'reference' ? sub : 'overview',
    filter,
    sort,
    trajectory: p.get('traj') || null,
    step: Number.isInteger(step) && step > 0 ? step : 0,
    view: INSPECTOR_VIEWS.some((v) => v.id === view) ? (view as InspectorView) : 'conversation',
  };
}

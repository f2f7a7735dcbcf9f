// The address holds every view's state (issue 36 item 6): the dashboard's state survives a round trip through the
// address, defaults stay out of it, and values read back never become anything but filter values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardRoute, readDashboardRoute, type DashboardUrlState } from '../../src/views/dashboard/url-state';
import { formatRoute, parseRoute } from '../../src/views/kit/route';
import { DEFAULT_SORT } from '../../src/views/dashboard/queries';

const plain: DashboardUrlState = { tab: 'overview', filter: {}, sort: DEFAULT_SORT, trajectory: null, step: 0, view: 'conversation' };

describe('the address', () => {
  it('round-trips the dashboard state through #dashboard/…?…', () => {
    const states: DashboardUrlState[] = [
      plain,
      { ...plain, tab: 'review', filter: { agents: ['react-calculator', 'a&b=c'], rewardMin: 0.5, rewardMax: -1, status: 'error', trainable: 'no', text: 'hé #1 ?x' } },
      { ...plain, sort: { column: 'cost_usd', descending: true }, trajectory: 'traj/1?#', step: 3, view: 'timeline' },
      { ...plain, filter: { models: ['m'], dataSources: ['gsm8k'], channels: ['val'], quality: ['bad', 'good'], tags: ['x y'] }, sort: { column: 'reward_sum', descending: false } },
    ];
    for (const s of states) {
      const r = dashboardRoute(s);
      const hash = formatRoute({ tab: 'dashboard', ...r });
      const back = parseRoute(hash);
      assert.equal(back.tab, 'dashboard');
      assert.deepEqual(readDashboardRoute(back.sub, back.params), s, hash);
    }
  });

  it('leaves the defaults out: the dashboard as it opens is plain #dashboard', () => {
    assert.equal(formatRoute({ tab: 'dashboard', ...dashboardRoute(plain) }), '#dashboard');
    assert.equal(formatRoute({ tab: 'dashboard', ...dashboardRoute({ ...plain, step: 4 }) }), '#dashboard', 'a step without a trajectory says nothing');
  });

  it('ignores what it does not know: a sort column outside the list, a bad view or step, a non-number bound', () => {
    const s = readDashboardRoute('nope', new URLSearchParams('sort=-prompt;DROP&view=raw&step=-2&rmin=abc&status=weird&trainable=maybe'));
    assert.deepEqual(s, plain);
  });

  it('parses the old plain #tab addresses', () => {
    assert.deepEqual({ ...parseRoute('#gateway'), params: '' }, { tab: 'gateway', sub: '', params: '' });
    assert.equal(parseRoute('').tab, '');
  });
});

/**
 * Survivors of the first StrykerJS runs over the SQL builders (docs/testing.md), each killed by a case a user
 * can hit. Kept in their own file so an incremental run does not re-test what the other files already kill.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { datasetSql, LAYOUTS } from '../../src/export/layouts';
import { assistant, openTestPool, user } from './helpers/duck';

describe('export survivors', () => {
  it('a split name with a quote selects its rows (the literal is escaped, not stripped)', async () => {
    const pool = await openTestPool();
    const step = (id: string, channel: string) => ({
      step_id: id, trajectory_uid: id, prompt_uid: id, step_index: 0, is_last: true, channel, status: 'ok',
      messages: [user('hi')], response: assistant('hello'),
    });
    await pool.addSteps([step('a', "team's val"), step('b', 'teams val'), step('c', 'train')]);
    const ids = async (split: string) => (await pool.rows(datasetSql({ layout: 'steps', split }))).map((r) => r.step_id);
    assert.deepEqual(await ids("team's val"), ['a']);
    assert.deepEqual(await ids('teams val'), ['b']);
    pool.close();
  });

  it('every layout is described for the export dialog, each differently', () => {
    const text = Object.values(LAYOUTS);
    assert.equal(new Set(text).size, 5);
    for (const [k, v] of Object.entries(LAYOUTS)) assert.ok(v.length > 30, `${k}: ${v}`);
  });
});

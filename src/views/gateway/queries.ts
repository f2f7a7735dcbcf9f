/** The Gateway tab's call list: the captured calls the pool holds, newest first. */

/** How many captured calls the list shows. */
export const CALLS_LIMIT = 100;

export const CAPTURED_CALLS_SQL = `SELECT step_id, trajectory_uid, epoch_ms(started_at)::DOUBLE AS started, metadata['api'] AS api,
    metadata['http_status'] AS http_status, model, status, latency_ms, prompt_tokens, completion_tokens
  FROM steps WHERE source = 'capture' ORDER BY started_at DESC NULLS LAST, step_id DESC LIMIT ${CALLS_LIMIT}`;

/** SQL more than one screen runs. */

/** `n`: how many steps the pool holds (the dashboard and the Gateway tab show what to do first when it is 0). */
export const STEP_COUNT = 'SELECT count(*) AS n FROM steps';

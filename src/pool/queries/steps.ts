/** The selection every filtered query starts from: steps joined with their curation, under one predicate (curation/filter's). */

/** Steps `s` joined with their curation `c`, where the predicate holds (all of them for an empty one). */
export function filteredSteps(where: string, columns = 's.*'): string {
  return `SELECT ${columns} FROM steps s LEFT JOIN curation c USING (step_id)${where ? ` WHERE ${where}` : ''}`;
}

/** The trajectory ids with at least one step the predicate selects (every trajectory for an empty one). */
export function matchingTrajectories(where: string): string {
  return where ? filteredSteps(where, 'DISTINCT s.trajectory_uid') : 'SELECT trajectory_uid FROM steps';
}

/**
 * The predicate "the step is in this view" (`view` must already be a checked, plain or schema-qualified name). The
 * view's own `step_id`: a bare one would bind to the outer `s.step_id` for a view without it, and select every step.
 */
export function inView(view: string): string {
  return `s.step_id IN (SELECT v.step_id FROM ${view} AS v)`;
}

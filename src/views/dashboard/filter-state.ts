/**
 * The dashboard's current filter, shared with views mounted elsewhere (the export dialog offers
 * "the dashboard filter" as a source; the review queue ranks within it).
 */
import { type CurationFilter, filterWhere } from '../../curation/filter';

let current: CurationFilter = {};

export function dashboardFilter(): CurationFilter {
  return current;
}

export function dashboardWhere(): string {
  return filterWhere(current);
}

export function setDashboardFilter(f: CurationFilter): void {
  current = f;
}

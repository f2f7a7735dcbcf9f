/**
 * The dashboard suites in one page over one in-memory pool, emptied for each suite (helpers.ts emptyPagePool): each
 * was a file of its own with a pool boot and a page load of its own. Run one suite alone by putting `.only` on its
 * describe.
 */
import './dashboard-overview.suite';
import './dashboard-cost-compare.suite';

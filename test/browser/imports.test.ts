/**
 * The import suites in one page over one in-memory pool, emptied for each suite (helpers.ts emptyPagePool): each was a
 * file of its own with a pool boot and a page load of its own. formats-mapping saves mappings the importer then
 * applies, so it runs last. Run one suite alone by putting `.only` on its describe.
 */
import './import-panel.suite';
import './formats-every.suite';
import './formats-join.suite';
// exports of every fixture rendered with real chat templates (a file of its own before: a boot and a page load)
import './export-templates.suite';
import './formats-mapping.suite';

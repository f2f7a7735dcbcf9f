/**
 * The notebook's element suites in one page over one in-memory demo pool (notebook-demo.ts demoPool): each was a file
 * of its own with a pool boot and a page load of its own, which cost more than most of their tests. Each suite keeps
 * its own elements and its own notebook store; notebook-examples adds rows to the pool, so it runs last. The suites
 * without a pool (the SQL editor, Markdown cells, PoolQueryController) come first: each was a file (a page load) too.
 * Run one suite alone by putting `.only` on its describe.
 */
import './notebook-editor.suite';
import './notebook-markdown.suite';
import './pool-refresh.suite';
import './notebook-table.suite';
import './notebook-summary.suite';
import './notebook-sidebar.suite';
import './notebook-cells.suite';
// before examples: its chart's golden structure is drawn from the demo rows as they are
import './notebook-ui.suite';
import './notebook-examples.suite';

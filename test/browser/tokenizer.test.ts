/**
 * The tokenizer's suites in one page over the page's in-memory pool (helpers.ts emptyPagePool), emptied with the stored
 * profile for each suite (tokenizer-helpers.ts tokenizerPool); each suite disposes the services it made
 * (TokenizerService.dispose), so none counts the next suite's imports. Each suite was a file of its own with a pool
 * boot and a page load of its own. Run one suite alone by putting `.only` on its describe.
 */
import './tokenizer-loading.suite';
import './tokenizer-dispose.suite';
import './tokenizer-profiles.suite';
import './tokenizer-panel.suite';
import './tokenizer-audit.suite';
import './tokenizer-o200k.suite';
import './tokenizer-export.suite';

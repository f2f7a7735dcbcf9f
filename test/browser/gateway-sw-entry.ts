// The gateway service worker as the esbuild test server serves it (a module worker), scoped to test/browser/.
import '../../src/gateway/sw/sw';

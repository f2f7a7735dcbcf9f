/**
 * True in test builds only: `vite build --mode test` (what `npm test` builds for the e2e tests) and the
 * browser tests' esbuild server (no vite env at all). Fault-injection hooks exist only then.
 */
export const TEST_BUILD: boolean = !import.meta.env || import.meta.env.MODE === 'test';

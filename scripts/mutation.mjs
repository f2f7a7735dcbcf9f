// `npm run mutation`: StrykerJS over the node unit tests (config: stryker.config.json; reports in reports/mutation/).
// StrykerJS 10 declares node >= 22 and refuses to start on older versions with a guard at import time; the
// project's machines run node 20.20 (Debian's), on which the parts used here (core, instrumenter, tap runner)
// work: measured, see docs/testing.md. So this launcher shows the guard a node 22 version string while the CLI
// module loads, then puts the real one back before anything runs. Extra arguments go to `stryker run`.
const real = process.version;
const major = Number(real.slice(1).split('.')[0]);
if (major < 22) Object.defineProperty(process, 'version', { value: 'v22.0.0', configurable: true, writable: true });
const { StrykerCli } = await import('@stryker-mutator/core');
Object.defineProperty(process, 'version', { value: real, configurable: true, writable: true });
process.title = 'stryker';
new StrykerCli([process.argv[0], 'stryker', 'run', ...process.argv.slice(2)]).run();

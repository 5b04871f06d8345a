import { startService } from '../service.js';
import { installCrashPoint } from './crash-points.js';
import { FakeRuntime } from './fake-runtime.js';

/**
 * The service as a child process for crash tests (kill -9 needs a separate process):
 * `node --import tsx crash-child.ts <dataDir> <apiKey>`; prints `URL <url>` when listening.
 * BOX_CRASH_AT (crash-points.ts) makes it kill itself at a given point.
 */
const [dataDir, apiKey] = process.argv.slice(2);
installCrashPoint(process.env.BOX_CRASH_AT, process.env.BOX_CRASH_PATH);
const svc = await startService({ dataDir: dataDir!, apiKey, port: 0, runtime: (d) => new FakeRuntime(d), log: { info() {}, warn() {}, error: console.error } });
console.log(`URL ${svc.url}`);

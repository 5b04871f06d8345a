/**
 * `npx tsx bench/exec-probe.ts [--runs 50] [--tb 16]`: where an exec's time goes, at the
 * runtime layer (no HTTP): one VM, then p50s of
 *   - agent ping (transport only),
 *   - agent exec of argv ["true"] and ["/bin/sh", "-c", "true"] (spawn + process start),
 *   - agent exec of ["/nonexistent"]: the agent's spawn alone (vfork, failed execve, error),
 *   - the same commands timed in a loop inside the guest (what the guest itself costs),
 *   - the same spawn inside the guest after an idle or busy gap (what a command that is not
 *     back to back costs, with no host work involved).
 * Used to decide the exec hot path (docs/benchmarks-history.md, "Exec latency (this change)"); `--tb` overrides
 * TCG's translation-cache size (MiB) for the experiment.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { waitForAgent } from '../src-server/areas/runtime/agent-wait.js';
import { execText } from '../src-server/areas/runtime/exec-text.js';
import { boxFolder } from '../src-server/areas/runtime/box-folder.js';
import { testConfig, testDataDir, testImage } from '../src-server/areas/runtime/test-support/vm-image.js';
import { killVm, launchVm } from '../src-server/areas/runtime/qemu/vm.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 50);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;

const dataDir = testDataDir();
const image = await testImage(dataDir);
const folder = boxFolder(dataDir, 'probe');
mkdirSync(folder.dir, { recursive: true });
const tb = argv.includes('--tb') ? opt('--tb', 16) : undefined;
if (tb !== undefined) process.env.BOX_TCG_TB_SIZE = String(tb);
const vm = await launchVm(folder, testConfig(image));
const agent = await waitForAgent(folder, { timeoutMs: 120_000 });
try {
  // QEMU's CPU time (all threads) is what the guest work costs, whatever the host load.
  const cpuMs = () => {
    const f = readFileSync(`/proc/${vm.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  };
  const timeIt = async (label: string, fn: () => Promise<unknown>) => {
    for (let i = 0; i < 5; i++) await fn(); // warm the translation cache and page cache
    const xs: number[] = [];
    const c0 = cpuMs();
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await fn();
      xs.push(performance.now() - t);
    }
    return [label, { wall_p50: r2(med(xs)), qemu_cpu_per_op: r2((cpuMs() - c0) / RUNS) }] as const;
  };
  const run = async (a: string[]) => {
    const r = await execText(agent, a);
    if (r.exitCode !== 0) throw new Error(`${a.join(' ')}: ${r.exitCode} ${r.stderr}`);
  };
  // In-guest loop: the shell forks and execs the same command N times; date +%s%N around it.
  const inGuest = async (cmd: string) => {
    const script = `i=0; s=$(date +%s%N); while [ $i -lt ${RUNS} ]; do ${cmd}; i=$((i+1)); done; e=$(date +%s%N); echo $(( (e-s)/${RUNS} ))`;
    await execText(agent, ['/bin/sh', '-c', script]); // warm
    const xs: number[] = [];
    const c0 = cpuMs();
    for (let k = 0; k < 3; k++) xs.push(Number((await execText(agent, ['/bin/sh', '-c', script])).stdout.trim()) / 1e6);
    return { wall_per_op: r2(med(xs)), qemu_cpu_per_op: r2((cpuMs() - c0) / (3 * RUNS)) };
  };
  const measure = async () => ({
    agent: Object.fromEntries([
      await timeIt('ping', () => agent.ping()),
      await timeIt('exec ["true"]', () => run(['true'])),
      await timeIt('exec ["/bin/sh","-c","true"]', () => run(['/bin/sh', '-c', 'true'])),
      await timeIt('exec ["/nonexistent"] (spawn only)', () => execText(agent, ['/nonexistent']).catch(() => undefined)),
    ]),
    in_guest_loop: {
      '/bin/true': await inGuest('/bin/true'),
      '/bin/sh -c true': await inGuest('/bin/sh -c true'),
      '/nonexistent (fork, failed exec)': await inGuest('/nonexistent 2>/dev/null'),
    },
  });
  await run(['/bin/sh', '-c', 'echo 2 > /proc/sys/kernel/randomize_va_space']);
  const before = await measure();
  // Same VM, guest ASLR off: TCG keys translated code by virtual address, so randomized
  // mappings make every new process translate ld.so and libc again.
  await run(['/bin/sh', '-c', 'echo 0 > /proc/sys/kernel/randomize_va_space']);
  const norand = await measure();
  // What the same spawn costs inside the guest when it is not back to back: python3 in the
  // guest starts `/bin/sh -c true` (posix_spawn + waitpid) after an idle gap or after a busy
  // one. No host work is involved; this is what TCG (and the host's caches) charge a command
  // that arrives now and then, as API requests do, over the warm loop above.
  const GAP = `
import os, time, statistics, json
def spin(d):
    e = time.perf_counter() + d
    while time.perf_counter() < e: pass
def run(gap, busy):
    xs = []
    for i in range(${RUNS}):
        if gap: spin(gap) if busy else time.sleep(gap)
        t = time.perf_counter()
        os.waitpid(os.posix_spawn('/bin/sh', ['/bin/sh', '-c', 'true'], os.environ), 0)
        xs.append((time.perf_counter() - t) * 1e3)
    return round(statistics.median(xs), 2)
run(0, 0)
print(json.dumps({k: run(g, b) for k, g, b in (('back to back', 0, 0), ('after 1 ms idle', 0.001, 0), ('after 5 ms idle', 0.005, 0), ('after 5 ms busy', 0.005, 1), ('back to back again', 0, 0))}))`;
  const gaps = JSON.parse((await execText(agent, ['python3', '-c', GAP])).stdout) as Record<string, number>;
  console.log(
    JSON.stringify({ runs: RUNS, tb_size_mib: tb ?? 'default', aslr_on: before, aslr_off: norand, 'in-guest spawn of sh -c true, p50 ms': gaps }, null, 2),
  );
} finally {
  agent.close();
  await killVm(vm);
  rmSync(dataDir, { recursive: true, force: true });
}

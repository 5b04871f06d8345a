"""In the box, as the user E2B runs commands as: spawn cost of /bin/true, bash -c, bash -l -c (the
E2B SDK's commands.run), p50 of argv[1] rounds."""
import subprocess, time, sys
env = {"HOME": "/home/user", "PATH": "/usr/local/bin:/usr/bin:/bin", "USER": "user"}
cmds = {"/bin/true": ["/bin/true"], "bash -c true": ["/bin/bash", "-c", "true"], "bash -l -c true": ["/bin/bash", "-l", "-c", "true"], "bash --noprofile --norc -c true": ["/bin/bash", "--noprofile", "--norc", "-c", "true"]}
res = {k: [] for k in cmds}
N = int(sys.argv[1])
for i in range(N):
    for k, c in cmds.items():
        t = time.perf_counter(); subprocess.run(c, env=env, cwd="/home/user"); res[k].append(time.perf_counter() - t)
for k, v in res.items(): print("spawn %-32s p50 %.1f ms" % (k, sorted(v)[N // 2] * 1000))

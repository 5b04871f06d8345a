"""In the box: a `1+1` cell's round trip to pyrun.py kernels (no daemon), alternating between the
kernels of the given dirs (argv[1], comma-separated), argv[2] cells each; p50 per dir."""
import os, sys, json, subprocess, time
sys.path.insert(0, "/run/box-code")
import boxcode
dirs = sys.argv[1].split(",")
N = int(sys.argv[2])
def start(d):
    r, w = os.pipe(); ri, wi = os.pipe()
    env = dict(os.environ, BOX_CODE_FD=str(w), BOX_CODE_IN=str(ri), HOME="/tmp/cs2h", MPLCONFIGDIR="/tmp/cs2h")
    p = subprocess.Popen([sys.executable, d + "/pyrun.py"], pass_fds=[w, ri], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/tmp")
    os.close(w); os.close(ri)
    return p, os.fdopen(r, "rb"), os.fdopen(wi, "wb")
ks = {d: start(d) for d in dirs}
def cell(k, code, silent=False):
    p, ev, req = k
    t = time.perf_counter()
    req.write((json.dumps({"code": code, "env": {}, "silent": silent}) + "\n").encode()); req.flush()
    while True:
        e = json.loads(ev.readline())
        if e["type"] == "end": return (time.perf_counter() - t) * 1000
for k in ks.values(): cell(k, boxcode.WARM_CODE, True); cell(k, "1+1"); cell(k, "1+1")
ts = {d: [] for d in ks}
for i in range(N):
    for d, k in ks.items(): ts[d].append(cell(k, "1+1"))
for d in ks: print("kernel round trip 1+1 (%s) p50 %.1f ms" % (d, sorted(ts[d])[N // 2]))

"""In the box: a matplotlib line chart's phases (the inline backend's PNG path), p50 of argv[1] runs."""
import time, io, sys
import matplotlib
matplotlib.use("agg")
import matplotlib.pyplot as plt
from PIL import Image
from IPython.core.pylabtools import print_figure
now = time.perf_counter
rows = {}
def add(k, v): rows.setdefault(k, []).append(v * 1000)
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
    t0 = now(); fig = plt.figure(); t1 = now(); plt.plot(range(100), [i * i for i in range(100)]); t2 = now()
    r = fig.canvas.get_renderer()
    with r._draw_disabled(): fig.draw(r)
    t3 = now(); fig.get_tightbbox(r); t4 = now()
    fig.canvas.draw(); t5 = now()
    a = fig.canvas.buffer_rgba()
    im = Image.frombuffer("RGBA", (a.shape[1], a.shape[0]), a, "raw", "RGBA", 0, 1)
    b = io.BytesIO(); im.save(b, "png"); t6 = now()
    b = io.BytesIO(); im.save(b, "png", compress_level=1); t7 = now()
    plt.close(fig)
    fig = plt.figure(); plt.plot(range(100), [i * i for i in range(100)]); t8 = now()
    png = print_figure(fig, "png", bbox_inches="tight"); t9 = now(); plt.close(fig)
    for k, v in (("figure()", t1 - t0), ("plot()", t2 - t1), ("dry draw (tight bbox)", t3 - t2), ("get_tightbbox", t4 - t3), ("Agg draw", t5 - t4), ("PNG encode zlib 6", t6 - t5), ("PNG encode zlib 1", t7 - t6), ("inline print_figure (tight) total", t9 - t8)):
        add(k, v)
for k, v in rows.items():
    print("%-36s p50 %8.1f ms" % (k, sorted(v)[len(v) // 2]))

"""A timeline of what each CPU ran, from a kernel history, with
matplotlib: one row per CPU, one bar per interval of its current thread,
coloured by the thread's process (the busiest ones named; idle blank).
One 2D query at the figure's resolution gives every bar.

    python3 plot_cpus.py mt.sht out.png [T1 T2]
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import sht  # noqa: E402
from analyses import processes  # noqa: E402


def plot(h, t1, t2, out, width_px=1600, named=8):
    cpus = h.attributes("CPUs/*/Current_thread")
    cpus.sort(key=lambda p: int(p.split("/")[1]))
    df = h.intervals(cpus, t1, t2, resolution=max(1, (t2 - t1) // width_px)).to_pandas()
    df = df[(df["value"] > 0).fillna(False)]
    pid, names = processes(h)
    df["process"] = df["value"].astype(int).astype(str).map(lambda t: pid.get(t, t))
    df["s"] = (df["start"].clip(lower=t1) - t1) / 1e6
    df["w"] = (df["end"].clip(upper=t2) - df["start"].clip(lower=t1) + 1) / 1e6
    busiest = df.groupby("process")["w"].sum().sort_values(ascending=False).index[:named]
    colors = dict(zip(busiest, plt.get_cmap("tab10").colors))
    fig, ax = plt.subplots(figsize=(width_px / 100, 0.45 * len(cpus) + 1.2), dpi=100)
    for row, path in enumerate(cpus):
        mine = df[df["path"].astype(str) == path]
        for p, g in mine.groupby("process"):
            ax.broken_barh(list(zip(g["s"], g["w"])), (row - 0.4, 0.8),
                           color=colors.get(p, "0.6"), linewidth=0)
    ax.set_yticks(range(len(cpus)), ["CPU %s" % p.split("/")[1] for p in cpus])
    ax.set_ylim(len(cpus) - 0.5, -0.5)
    ax.set_xlim(0, (t2 - t1) / 1e6)
    ax.set_xlabel("ms from %d ns" % t1)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[p]) for p in busiest]
    labels = ["%s (%s)" % (names.get(p, "?"), p) for p in busiest]
    ax.legend(handles + [plt.Rectangle((0, 0), 1, 1, color="0.6")], labels + ["others"],
              loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=5, frameon=False)
    ax.set_title("What each CPU ran (%s)" % h.file)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return len(df)


def main(argv):
    h = sht.open(argv[1])
    if len(argv) > 4:
        t1, t2 = int(argv[3]), int(argv[4])
    else:
        t1, t2 = h.start, h.end
    print("%d bars" % plot(h, t1, t2, argv[2]))


if __name__ == "__main__":
    main(sys.argv)

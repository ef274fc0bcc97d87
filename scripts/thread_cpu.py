#!/usr/bin/env python3
"""thread_cpu.py: run a command and report the CPU time of every thread of
it and its descendants (from /proc/PID/task/TID/stat, sampled every
INTERVAL s), so that a saturated thread shows: a thread near 100 % of one
core over its busy windows is the limit of whatever it drives. gshmem names
its engine thread gshmem-engine and the ofi progress thread gshmem-ofi.

    python3 scripts/thread_cpu.py [-i 0.25] [-o out.csv] -- CMD ARGS...

Prints one line per thread that used >= 1 % of the run: the process and
thread names, CPU seconds, the mean utilisation over the run and the
largest utilisation over any one-second window. The command's exit status
is returned.
"""
import argparse
import os
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def children(root):
    """root and every descendant PID (from /proc/*/stat's parent field)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read()
                parent[int(d)] = int(st[st.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    out, todo = {root}, [root]
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def sample(pids):
    """{(pid, tid): (process name, thread name, cpu ticks)}"""
    res = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                pname = f.read().strip()
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            tname = st[st.index("(") + 1:st.rindex(")")]
            fields = st[st.rindex(")") + 2:].split()
            res[(pid, int(tid))] = (pname, tname, int(fields[11]) + int(fields[12]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", type=float, default=0.25, help="sampling interval (s)")
    ap.add_argument("-o", help="CSV of the per-thread totals")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd)
    history = []   # (time, {key: ticks})
    names = {}
    pids = {proc.pid}
    n = 0
    while proc.poll() is None:
        if n % 8 == 0:
            pids = children(proc.pid)
        n += 1
        s = sample(pids)
        for k, (pn, tn, _) in s.items():
            names[k] = (pn, tn)
        history.append((time.monotonic(), {k: v[2] for k, v in s.items()}))
        time.sleep(a.i)
    wall = time.monotonic() - t0
    first, last, peak = {}, {}, {}
    for t, snap in history:
        for k, v in snap.items():
            first.setdefault(k, (t, v))
            last[k] = (t, v)
    # largest use over any window of >= 1 s between samples
    for k in last:
        pts = [(t, snap[k]) for t, snap in history if k in snap]
        j = 0
        for i in range(len(pts)):
            while j < i and pts[i][0] - pts[j + 1][0] >= 1.0:
                j += 1
            dt = pts[i][0] - pts[j][0]
            if dt >= 1.0:
                u = (pts[i][1] - pts[j][1]) / HZ / dt
                peak[k] = max(peak.get(k, 0.0), u)
    rows = []
    for k in last:
        cpu = (last[k][1] - first[k][1]) / HZ
        if cpu >= 0.01 * wall:
            rows.append((cpu, k))
    rows.sort(reverse=True)
    print(f"# thread_cpu: {wall:.1f} s wall, {len(last)} threads seen; threads using >= 1 %:")
    print("# pid,tid,process,thread,cpu_s,mean_util,peak_util_1s")
    lines = []
    for cpu, k in rows:
        pn, tn = names[k]
        line = f"{k[0]},{k[1]},{pn},{tn},{cpu:.2f},{cpu / wall:.2f},{peak.get(k, 0.0):.2f}"
        lines.append(line)
        print(line)
    if a.o:
        with open(a.o, "w") as f:
            f.write("pid,tid,process,thread,cpu_s,mean_util,peak_util_1s\n")
            f.write("".join(l + "\n" for l in lines))
    sys.stdout.flush()
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())

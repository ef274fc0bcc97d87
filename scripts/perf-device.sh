#!/usr/bin/env bash
# perf-device.sh: gshmem's device benchmarks beside NVSHMEM's on the same 2
# GPUs, one after the other, and the ratio table of BENCHMARKS.md section 1.
#
#   scripts/perf-device.sh OUTDIR
#
# Runs on a GPU machine, from the repository root, over a CUDA build of
# gshmem. Environment: BUILD (gshmem build, default ./build), NVBUILD
# (where NVSHMEM's programs get built, default ./build-nvshmem),
# GSHMEM_NVSHMEM_ROOT (NVSHMEM's include/ and lib/; default: found in the
# Python environment, nvidia/nvshmem), TIMEOUT (seconds per run, default
# 300), per-benchmark flags LAT_FLAGS, BW_FLAGS, BW_OCC_FLAGS, PP_FLAGS,
# QL_FLAGS, QR_FLAGS, SP_FLAGS (replace the defaults below), and ONLY (a
# space list of steps to run, default all: put-latency put-bw put-bw-occ
# signal-pingpong queue-latency queue-rate stream-put stream-put-graph;
# NVSHMEM is built only when a step beside it is run). Without NVSHMEM the
# NVSHMEM columns stay empty. ROUNDS (default 1) runs every step that many
# times, gshmem first in odd rounds and NVSHMEM first in even ones, and
# the tables show each column's median over the rounds, their ratios the
# ratio of the medians: one pair of runs moves 1-2 % at the NVLink limit
# (docs/results/device-perf-2026-11-27-s17), so a >= 1 at that scale wants
# 5 or more. Writes OUTDIR/{gshmem,nvshmem}-<step>.{csv,log} (ROUNDS > 1:
# -<step>.r<k>.{csv,log}), OUTDIR/machine.txt and OUTDIR/summary.md (also
# printed). Exits non-zero if a run failed (a failed data check included).
set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -lt 1 ] && exit 2 || exit 0
fi
out=$1
root_dir=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root_dir/build}
nvbuild=${NVBUILD:-$root_dir/build-nvshmem}
timeout_s=${TIMEOUT:-300}
run=$build/tools/gshmemrun/gshmemrun
dev=$build/apps/perf/device
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

# Paths and the machine's rules (no NVLink multicast, loopback only).
. "$root_dir/scripts/gpu-env.sh" "$build"

LAT_FLAGS=${LAT_FLAGS:--b 8 -e 64K -n 30 -w 3 -r 50}
BW_FLAGS=${BW_FLAGS:--b 4K -e 256M -n 20 -w 3}
# the grid at the co-resident maximum of 512-thread blocks (-B 0)
BW_OCC_FLAGS=${BW_OCC_FLAGS:--b 1M -e 256M -n 20 -w 3 -B 0 -T 512}
PP_FLAGS=${PP_FLAGS:--b 8 -e 8 -n 50 -w 5 -r 1000}
QL_FLAGS=${QL_FLAGS:--b 8 -e 8 -n 50 -w 5 -r 100}
QR_FLAGS=${QR_FLAGS:--b 8 -e 8 -W 128 -p 64 -n 20 -w 2}
# on-stream put: copy engines / SM stores / the run's threshold / memcpyPeer
SP_FLAGS=${SP_FLAGS:--b 4K -e 256M -n 20 -w 3}
ROUNDS=${ROUNDS:-1}
case $ROUNDS in ''|*[!0-9]*|0) echo "perf-device.sh: ROUNDS='$ROUNDS': want a count of 1 or more" >&2; exit 2 ;; esac
ONLY=${ONLY:-put-latency put-bw put-bw-occ signal-pingpong queue-latency queue-rate stream-put stream-put-graph}
want() {   # step -> 0 when ONLY names it
    case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

for f in "$run" "$dev/gshmem-perf-dev-put-latency"; do
    if [ ! -x "$f" ]; then
        echo "perf-device.sh: $f not found (set BUILD=<CUDA build of gshmem>)" >&2
        exit 2
    fi
done

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(hostname)"
    echo "commit: $(git -C "$root_dir" rev-parse --verify -q HEAD 2>/dev/null || echo "unknown (no git here)")"
    nvidia-smi -L 2>&1
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
    nvidia-smi topo -m 2>&1
} >"$out/machine.txt"
cat "$out/machine.txt"

# ---- NVSHMEM: find it, build its programs ----------------------------------
nv_root=$gpu_env_nvshmem   # scripts/gpu-env.sh: GSHMEM_NVSHMEM_ROOT, else the Python env's
have_nv=0
need_nv=0
for step in put-latency put-bw put-bw-occ signal-pingpong; do
    want $step && need_nv=1
done
if [ $need_nv = 0 ]; then
    echo "perf-device.sh: no step beside NVSHMEM selected (ONLY='$ONLY'): NVSHMEM not built" |
        tee "$out/nvshmem-build.log"
elif [ -n "$nv_root" ] && [ -f "$nv_root/include/nvshmem.h" ] && command -v mpirun >/dev/null; then
    echo "== building NVSHMEM's programs ($nv_root) in $nvbuild"
    if cmake -S "$root_dir/apps/perf/nvshmem" -B "$nvbuild" -DGSHMEM_NVSHMEM_ROOT="$nv_root" \
            -DCMAKE_BUILD_TYPE=Release >"$out/nvshmem-build.log" 2>&1 &&
       cmake --build "$nvbuild" -j 16 >>"$out/nvshmem-build.log" 2>&1; then
        have_nv=1
    else
        echo "perf-device.sh: NVSHMEM build FAILED (see $out/nvshmem-build.log):" >&2
        tail -30 "$out/nvshmem-build.log" >&2
    fi
else
    echo "perf-device.sh: NVSHMEM not found (GSHMEM_NVSHMEM_ROOT='$nv_root', mpirun" \
         "$(command -v mpirun || echo missing)): gshmem only" | tee "$out/nvshmem-build.log"
fi

# ---- runs ----------------------------------------------------------------------
failed=""
round=1
sfx=""   # ROUNDS > 1: .r<round>
run_gshmem() {   # tag bench flags... -> OUTDIR/gshmem-<tag><sfx>.{csv,log}
    local tag=$1 b=$2 f=$out/gshmem-$1$sfx
    shift 2
    want "$tag" || return 0
    echo "=== gshmem $tag$sfx: $*"
    # shellcheck disable=SC2068
    if ! env GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p timeout "$timeout_s" \
            "$run" -n 2 --timeout "$timeout_s" "$dev/gshmem-perf-dev-$b" \
            -o "$f.csv" $@ >"$f.log" 2>&1; then
        failed="$failed gshmem/$tag$sfx"
        echo "perf-device.sh: gshmem $tag$sfx FAILED" >&2
    fi
    cat "$f.log"
}

run_nvshmem() {   # tag bench flags... -> OUTDIR/nvshmem-<tag><sfx>.{csv,log}
    local tag=$1 b=$2 f=$out/nvshmem-$1$sfx
    shift 2
    [ $have_nv = 1 ] && want "$tag" || return 0
    echo "=== NVSHMEM $tag$sfx: $*"
    # shellcheck disable=SC2068
    if ! LD_LIBRARY_PATH=$nv_root/lib:${LD_LIBRARY_PATH:-} timeout "$timeout_s" \
            "${gpu_nvshmem_mpirun[@]}" "$nvbuild/nvshmem-perf-$b" -o "$f.csv" $@ \
            >"$f.log" 2>&1; then
        failed="$failed nvshmem/$tag$sfx"
        echo "perf-device.sh: NVSHMEM $tag$sfx FAILED" >&2
    fi
    cat "$f.log"
}

both() {   # tag bench flags...: gshmem first in odd rounds, NVSHMEM first in even
    if [ $((round % 2)) = 1 ]; then
        run_gshmem "$@"
        run_nvshmem "$@"
    else
        run_nvshmem "$@"
        run_gshmem "$@"
    fi
}

for round in $(seq 1 "$ROUNDS"); do
    [ "$ROUNDS" -gt 1 ] && sfx=.r$round
    both put-latency put-latency $LAT_FLAGS
    both put-bw put-bw $BW_FLAGS
    both put-bw-occ put-bw $BW_OCC_FLAGS
    both signal-pingpong signal-pingpong $PP_FLAGS
    run_gshmem queue-latency queue-latency $QL_FLAGS
    run_gshmem queue-rate queue-rate $QR_FLAGS
    run_gshmem stream-put stream-put $SP_FLAGS
    run_gshmem stream-put-graph stream-put $SP_FLAGS -g
done

# ---- the ratio table ---------------------------------------------------------------
python3 - "$out" "$ROUNDS" >"$out/summary.md" <<'EOF'
import csv, glob, math, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])

def load1(p):
    rows = {}
    with open(p) as f:
        for r in csv.DictReader(f):
            key = int(float(r[next(iter(r))]))
            rows.setdefault(key, []).append({k: float(v) for k, v in r.items()})
    return rows

def med(vals):
    """the median; of whole numbers (flags, counts) one of them"""
    vals = [v for v in vals if not math.isnan(v)]
    if not vals:
        return float("nan")
    return statistics.median_low(vals) if all(v == int(v) for v in vals) else statistics.median(vals)

def load(name):
    """{size: [row]}; with rounds, each column's median over the rounds
    (the k-th row of a size with the k-th of the others)"""
    paths = sorted(glob.glob(os.path.join(out, name + ".r*.csv"))) if rounds > 1 else \
        [p for p in [os.path.join(out, name + ".csv")] if os.path.exists(p)]
    runs = [load1(p) for p in paths]
    if not runs:
        return {}
    rows = {}
    for s, first in runs[0].items():
        rows[s] = [{k: med([r[s][i][k] for r in runs if s in r and i < len(r[s])]) for k in row}
                   for i, row in enumerate(first)]
    return rows

def size(s):
    for u, n in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if s >= n and s % n == 0:
            return "%d %siB" % (s // n, u)
    return "%d B" % s

def num(v, d=2):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else "%.*f" % (d, v)

def get(rows, s, col):
    r = rows.get(s)
    return r[0].get(col) if r else None

misses = []
def table(title, unit, gs, ns, col, lower_better, goal_txt, goal, extra=()):
    """extra: (label, column) pairs of the gshmem CSV shown as references"""
    print("\n### %s\n" % title)
    print("| size | gshmem (%s) | NVSHMEM (%s) | gshmem/NVSHMEM | goal | met? |%s" % (unit, unit, "".join(" %s |" % l for l, _ in extra)))
    print("|---|---|---|---|---|---|" + "---|" * len(extra))
    for s in sorted(gs):
        g, n = get(gs, s, col), get(ns, s, col)
        ratio = g / n if g is not None and n else None
        met = "n/a" if ratio is None else ("yes" if (ratio <= goal if lower_better else ratio >= goal) else "NO")
        if met == "NO":
            misses.append("%s at %s: gshmem %s vs NVSHMEM %s %s (ratio %.2f, goal %s)" % (title.split(":")[0], size(s), num(g), num(n), unit, ratio, goal_txt))
        print("| %s | %s | %s | %s | %s | %s |%s" % (size(s), num(g, 3), num(n, 3), num(ratio), goal_txt, met,
              "".join(" %s |" % num(get(gs, s, c), 3) for _, c in extra)))

machine = open(os.path.join(out, "machine.txt")).read().strip().splitlines()
print("# Device microbenchmarks: gshmem vs NVSHMEM (BENCHMARKS.md section 1)\n")
print("```\n" + "\n".join(machine[:8]) + "\n```")
if rounds > 1:
    print("\n%d rounds (gshmem first in odd rounds, NVSHMEM first in even ones); every value is the median "
          "over the rounds, every ratio the ratio of the medians." % rounds)

lat_g, lat_n = load("gshmem-put-latency"), load("nvshmem-put-latency")
table("put_latency: one thread, putmem + quiet (median us, lower is better)", "us",
      lat_g, lat_n, "median(us)", True, "<= 1.00", 1.0,
      (("raw stores + fence.sc.sys (us)", "raw_sc(us)"), ("raw stores + fence.acq_rel.sys (us)", "raw_acqrel(us)")))
bw_g, bw_n = load("gshmem-put-bw"), load("nvshmem-put-bw")
table("put_bw, one block: putmem_nbi_block (median GB/s, higher is better)", "GB/s",
      bw_g, bw_n, "block(GB/s)", False, ">= 1.00", 1.0)
table("put_bw, full grid: putmem_nbi_block (median GB/s, higher is better)", "GB/s",
      bw_g, bw_n, "grid(GB/s)", False, ">= 1.00", 1.0)

def vs_memcpy(title, bw_g, bw_n):
    print("\n### %s\n" % title)
    print("| size | gshmem grid (GB/s) | memcpyPeer (GB/s) | gshmem/memcpyPeer | NVSHMEM grid/its memcpyPeer | met? |")
    print("|---|---|---|---|---|---|")
    for s in sorted(bw_g):
        g, m = get(bw_g, s, "grid(GB/s)"), get(bw_g, s, "memcpyPeer(GB/s)")
        ng, nm = get(bw_n, s, "grid(GB/s)"), get(bw_n, s, "memcpyPeer(GB/s)")
        r = g / m if g is not None and m and not math.isnan(m) else None
        nr = ng / nm if ng is not None and nm and not math.isnan(nm) else None
        met = "-" if s < (1 << 20) or r is None else ("yes" if r >= 0.95 else "NO")
        if met == "NO":
            misses.append("%s at %s: %.1f%% (gshmem %.1f GB/s, memcpyPeer %.1f GB/s; goal 95%%)" % (title.split(":")[0], size(s), 100 * r, g, m))
        print("| %s | %s | %s | %s | %s | %s |" % (size(s), num(g), num(m), "-" if r is None else "%.1f%%" % (100 * r),
                                                   "-" if nr is None else "%.1f%%" % (100 * nr), met))

def shape(name):
    p = os.path.join(out, name + (".r1.log" if rounds > 1 else ".log"))
    if os.path.exists(p):
        for line in open(p):
            if line.startswith("# PE 0 -> PE 1; grid"):
                return line[2:].strip()
    return "?"

print("\nGrid shapes: gshmem: %s; NVSHMEM: %s" % (shape("gshmem-put-bw"), shape("nvshmem-put-bw")))
vs_memcpy("put_bw grid (1 block per SM x 1024 threads) vs cudaMemcpyPeerAsync in the same run: goal >= 95% at >= 1 MiB", bw_g, bw_n)

occ_g, occ_n = load("gshmem-put-bw-occ"), load("nvshmem-put-bw-occ")
if occ_g:
    print("\nOccupancy-max grid: gshmem: %s; NVSHMEM: %s" % (shape("gshmem-put-bw-occ"), shape("nvshmem-put-bw-occ")))
    table("put_bw occ-max grid: putmem_nbi_block, co-resident max of 512-thread blocks (median GB/s)", "GB/s",
          occ_g, occ_n, "grid(GB/s)", False, ">= 1.00", 1.0)
    vs_memcpy("put_bw occ-max grid vs cudaMemcpyPeerAsync in the same run: goal >= 95% at >= 1 MiB", occ_g, occ_n)

table("signal_pingpong: putmem_signal_nbi + signal_wait_until round trip (median us, max over PEs)", "us",
      load("gshmem-signal-pingpong"), load("nvshmem-signal-pingpong"), "median(us)", True, "<= 1.00", 1.0)

ql = load("gshmem-queue-latency")
print("\n### queue_latency: 8 B put + quiet through the queue path vs the host-mapped doorbell round trip (same run)\n")
print("| size | queue put (us) | doorbell RT (us) | queue/doorbell | goal | met? |")
print("|---|---|---|---|---|---|")
for s in sorted(ql):
    q, d = get(ql, s, "queue_put(us)"), get(ql, s, "doorbell_rt(us)")
    r = q / d if q is not None and d and not math.isnan(q) else None
    met = "n/a (queue path not measured)" if r is None else ("yes" if r <= 2.0 else "NO")
    if met == "NO":
        misses.append("queue_latency at %s: %.2f us vs doorbell %.2f us (%.2fx, goal <= 2x)" % (size(s), q, d, r))
    print("| %s | %s | %s | %s | <= 2.00 | %s |" % (size(s), num(q, 3), num(d, 3), num(r), met))

qr = load("gshmem-queue-rate")
print("\n### queue_rate: 8 B putmem_nbi through one engine (report)\n")
if not qr:
    print("queue path not measured (see gshmem-queue-rate.log)")
else:
    print("| size | producer warps | puts per kernel | median (us) | Mput/s |")
    print("|---|---|---|---|---|")
    for s in sorted(qr):
        for r in qr[s]:
            print("| %s | %d | %d | %.2f | %.3f |" % (size(s), r["warps"], r["puts"], r["median(us)"], r["Mput/s"]))

def stream_put(tag, how):
    sp = load("gshmem-" + tag)
    if not sp:
        return
    print("\n### on-stream put (%s): gshmemx_putmem_on_stream vs cudaMemcpyPeerAsync in the same run (median GB/s); goal: auto >= 95%% of memcpyPeer at >= 1 MiB\n" % how)
    print("| size | CE | SM | auto | memcpyPeer | CE/memcpy | auto/memcpy | auto path | SM blocks | met? |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for s in sorted(sp):
        ce, sm, au, mp = (get(sp, s, k) for k in ("ce(GB/s)", "sm(GB/s)", "auto(GB/s)", "memcpyPeer(GB/s)"))
        ok = mp is not None and not math.isnan(mp) and mp > 0
        r = au / mp if ok else None
        met = "-" if s < (1 << 20) or r is None else ("yes" if r >= 0.95 else "NO")
        if met == "NO":
            misses.append("on-stream put (%s) at %s: %.1f%% of memcpyPeer (auto %.1f GB/s, memcpyPeer %.1f GB/s; goal 95%%)" % (how, size(s), 100 * r, au, mp))
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s |" % (size(s), num(ce), num(sm), num(au), num(mp),
              "-" if not ok else "%.1f%%" % (100 * ce / mp), "-" if r is None else "%.1f%%" % (100 * r),
              "CE" if get(sp, s, "auto_is_ce") else "SM", get(sp, s, "sm_blocks"), met))
    # the crossover: the smallest size from which CE is at least as fast as SM at every larger size
    sizes = sorted(sp)
    cross = None
    for i, s in enumerate(sizes):
        if all(get(sp, t, "ce(GB/s)") >= get(sp, t, "sm(GB/s)") for t in sizes[i:]):
            cross = s
            break
    print("\nCrossover (%s): %s" % (how, "copy engines at least as fast as SM stores from %s on (GSHMEM_STREAM_CE_MIN=%d)" % (size(cross), cross) if cross is not None else "SM stores faster at the largest size measured"))

stream_put("stream-put", "eager")
stream_put("stream-put-graph", "CUDA graph")

print("\n### Goals missed\n")
print("\n".join("- " + m for m in misses) if misses else "none")
EOF
cat "$out/summary.md"

if [ -n "$failed" ]; then
    echo "perf-device.sh: failed runs:$failed" >&2
    exit 1
fi
echo "perf-device.sh: CSV files and summary.md in $out"

#!/usr/bin/env python3
"""fuzz-args.py: the apps' command lines and the GSHMEM_* settings, fuzzed.

  scripts/fuzz-args.py [--build build-h2] [--seed 1] [--sets 300]
                       [--out docs/results/hardening-2026-12-02] [--only args|env]
                       [--valgrind]

1. --sets argument sets (seeded: the same seed gives the same sets) over the
   apps built under BUILD/apps, each a few valid options (small values, so a
   valid set runs in about a second) with, in most sets, one garbage item: nan,
   inf, -1, 0, overflow, 1e3, abc, empty, a missing value, an unknown option, a
   duplicated option, a 5000-character value, a bad list, a value out of
   range. Each set runs under gshmemrun (1 or 2 PEs, shm; gshmem-perf-ofi-rate
   and gshmem-perf-coll-mpi alone), 20 s at most. A small model of each
   option's documented grammar (its --help, apps/common/app_args.h,
   apps/perf/common/perf_driver.h) says whether the set is valid.
   Verdicts: crash (a signal, a sanitizer or valgrind report), hang (the time
   limit), silent (garbage, yet status 0), unnamed (garbage refused, but no
   message names the option or the value), refused (garbage refused with the
   option or value named), valid (a valid set ran, status 0), valid-refused (a
   valid set failed: the model or the app is wrong; read the log).
2. 112 bad settings: each GSHMEM_* variable of src/base/util/config_table.h
   with garbage values for its type and range (and unknown names, e.g.
   GSHMEM_SYMETRIC_SIZE), against tests/pe/pe_kill (init, barriers, finalize)
   at 2 PEs. Verdicts: refused (status != 0 and a message names the
   variable), warned (an unknown name: status 0 and a warning names it),
   silent (status 0, no word of it), unnamed (refused without naming it),
   crash, hang. Empty values are also run, apart (documented: empty = unset).

Writes OUT/fuzz-args.csv, OUT/fuzz-env.csv and OUT/fuzz-logs.txt (the output
of every set whose verdict is not refused/valid/warned), prints the summaries;
exit status 1 when any set was crash, hang, silent, unnamed or valid-refused.
--valgrind: the garbage argument sets also run alone under valgrind memcheck
(parsing happens before gshmem_init, so alone is the same path).
"""
import argparse
import csv
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LONG_DIGITS = "9" * 5000
LONG_ALPHA = "a" * 5000
FMT = "%n%s%x%n"

# ---- value grammars (what each option documents) ----------------------------

NUM_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def num_value(v, whole):
    """app_args.h: a decimal or exponent form, k/K/M on whole numbers."""
    mult = 1
    if whole and v[-1:] in ("k", "K", "M"):
        mult = 1e6 if v[-1] == "M" else 1e3
        v = v[:-1]
    if not NUM_RE.match(v):
        return None
    d = float(v) * mult
    return d if d == d and abs(d) != float("inf") else None


def g_app_int(lo, hi, mult=1):
    def ok(v):
        d = num_value(v, True)
        return d is not None and d == int(d) and lo <= d <= hi and int(d) % mult == 0
    return ok


def g_app_real(lo, hi):
    def ok(v):
        d = num_value(v, False)
        return d is not None and lo < d <= hi
    return ok


def g_list(item_ok, maxn=8):
    def ok(v):
        items = v.split(",")
        return 0 < len(items) <= maxn and all(i != "" and len(i) < 64 and item_ok(i)
                                              for i in items)
    return ok


def g_words(words, case=False):
    def ok(v):
        return (v.lower() in [w.lower() for w in words]) if not case else v in words
    return ok


def g_word_list(words, maxn=8, extra=(), case=True):
    def ok(v):
        if v.lower() in extra:
            return True
        items = v.split(",")
        known = words if case else [w.lower() for w in words]
        return 0 < len(items) <= maxn and all((i if case else i.lower()) in known
                                              for i in items)
    return ok


def g_strtol(lo, hi):
    """perf_driver's integers: optional sign and digits (strtol)."""
    def ok(v):
        return re.match(r"^[+-]?\d{1,30}$", v) is not None and lo <= int(v) <= hi
    return ok


def g_size(v):
    """perf_parse_size: digits, an optional k/m/g, an optional B; > 0."""
    m = re.match(r"^(\d{1,30})([kKmMgG]?)[bB]?$", v)
    if not m:
        return False
    n = int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    return 0 < n < 1 << 64


def g_bool(v):
    return v.lower() in ("0", "1", "on", "off", "yes", "no", "true", "false")


def g_path(v):
    """a file to write: not empty, a name the system takes, a folder that exists"""
    return v != "" and len(v) < 256 and not v.startswith("/nonexistent")


def size_bytes(v):
    m = re.match(r"^(\d+)([kKmMgG]?)", v)
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]


# ---- the apps: options, their grammar and small valid values ------------------
# Each option: (flag, grammar or None for a flag without value, valid values).

PERF_COMMON = [
    ("-n", g_strtol(1, 10**9), ["20", "21", "25", "5"]),   # 5: raised to 20, a note
    ("-w", g_strtol(0, 10**9), ["0", "1", "2"]),
    ("-f", g_strtol(2, 10**9), ["2", "4", "8"]),
    ("-c", g_bool, ["0", "1", "on", "off", "yes", "no"]),
    ("-o", g_path, ["@TMP/perf.csv"]),
]
COLL_OPS = ["barrier", "sync", "broadcast", "fcollect", "alltoall", "sum_reduce"]


def perf_app(name, path, pes, base, sizes_b, sizes_e, extra=()):
    return {
        "name": name, "path": path, "pes": pes, "base": base, "kind": "perf",
        "opts": [("-b", g_size, sizes_b), ("-e", g_size, sizes_e)] + PERF_COMMON + list(extra),
        "unknown": ["-Z", "--bogus", "-x"],
    }


APPS = [
    perf_app("gshmem-perf-put-latency", "apps/perf/host/gshmem-perf-put-latency", 2,
             ["-e", "1K", "-n", "20", "-w", "1"], ["8", "64", "1K"], ["1K", "2K"]),
    perf_app("gshmem-perf-put-bw", "apps/perf/host/gshmem-perf-put-bw", 2,
             ["-b", "4K", "-e", "8K", "-n", "20", "-w", "1"], ["4K", "8K"], ["8K", "16K"],
             [("-W", g_strtol(1, 1 << 20), ["1", "8", "64"]), ("-d", None, [])]),
    perf_app("gshmem-perf-coll", "apps/perf/host/gshmem-perf-coll", 2,
             ["-e", "64", "-n", "20", "-w", "1"], ["8", "16", "64"], ["64", "128"],
             [("-O", g_word_list(COLL_OPS, 99, ("all",)), ["all", "barrier", "sync,broadcast",
                                                           "sum_reduce,alltoall"])]),
    perf_app("gshmem-perf-queue-host", "apps/perf/host/gshmem-perf-queue-host", 2,
             ["-n", "20", "-w", "1", "-r", "10", "-p", "10", "-T", "1"], ["8"], ["8"],
             [("-r", g_strtol(1, 10**6), ["5", "10"]), ("-T", g_strtol(1, 64), ["1", "2"]),
              ("-p", g_strtol(1, 10**6), ["5", "10"])]),
    perf_app("gshmem-perf-coll-mpi", "apps/perf/host/gshmem-perf-coll-mpi", 0,
                  ["-e", "64", "-n", "20", "-w", "1"], ["8", "64"], ["64", "128"],
                  [("-O", g_word_list(COLL_OPS, 99, ("all",)), ["all", "barrier"])]),
    {"name": "gshmem-perf-ofi-rate", "path": "apps/perf/host/gshmem-perf-ofi-rate", "pes": 0,
     "kind": "getopt", "base": ["-p", "shm", "-n", "2000", "-r", "1"],
     "opts": [("-p", g_words(["shm"], True), ["shm"]),
              ("-s", g_strtol(8, 1 << 20), ["8", "64"]),
              ("-n", g_strtol(1, 10**12), ["1000", "2000"]),
              ("-W", g_strtol(1, 1 << 20), ["16", "64"]),
              ("-r", g_strtol(1, 10**6), ["1", "2"])],
     "unknown": ["-Z", "-x"]},
    {"name": "gshmem-dlrm", "path": "apps/dlrm/gshmem-dlrm", "pes": 2, "kind": "long",
     "base": ["--iters", "1", "--warmup", "0", "--device", "cpu"],
     "opts": [("--config", g_words(["W", "S", "G", "N", "tiny", "custom"]), ["tiny"]),
              ("--mode", g_word_list(["baseline", "fused", "compute_only"], 99, ("all",),
                                     case=False),
               ["all", "fused", "baseline,compute_only"]),
              ("--tables", g_app_int(1, 1 << 20), ["2", "4", "6"]),
              ("--tables-per-pe", g_list(g_app_int(1, 1 << 16)), ["1", "2,3"]),
              ("--rows", g_app_int(1, 1 << 32), ["100", "1k", "500"]),
              ("--dim", g_app_int(4, 4096, 4), ["4", "8", "16"]),
              ("--batch", g_list(g_app_int(1, 1 << 26)), ["32", "64,96", "2e1"]),
              ("--lmax", g_app_int(1, 1 << 20), ["1", "4", "8"]),
              ("--fixed-l", None, []),
              ("--slice", g_list(g_app_int(1, 1 << 20)), ["1", "4", "4,8"]),
              ("--item-rows", g_app_int(0, 1 << 20), ["0", "2"]),
              ("--schedule", g_words(["aware", "oblivious"]), ["aware", "oblivious"]),
              ("--order", g_words(["table", "slice"]), ["table", "slice"]),
              ("--dtype", g_words(["fp32", "fp16", "bf16"]), ["fp32", "fp16", "bf16"]),
              ("--iters", g_app_int(1, 100000), ["1", "2"]),
              ("--warmup", g_app_int(0, 100000), ["0", "1"]),
              ("--check", None, []),
              ("--csv", g_path, ["@TMP/dlrm.csv"]),
              ("--trace", g_path, ["@TMP/dlrm-trace.csv"]),
              ("--dump-inputs", g_path, ["@TMP/dlrm.in"]),
              ("--device", g_words(["auto", "cpu"]), ["cpu", "auto"]),
              ("--threads", g_app_int(1, 1024), ["1", "2"]),
              ("--seed", g_app_int(0, 0xffffffff), ["0", "7", "4294967295"]),
              ("--quiet", None, [])],
     "unknown": ["--bogus", "-Z", "--Check", "--iter"]},
    {"name": "gshmem-sparse-allreduce", "path": "apps/sparse_allreduce/gshmem-sparse-allreduce",
     "pes": 2, "kind": "long",
     "base": ["-N", "1000", "-d", "4", "--density", "0.01", "--dist", "uniform", "-n", "1",
              "-w", "0", "--cpu"],
     "opts": [("-N", g_app_int(1, 1 << 40), ["1000", "2k", "5e3"]),
              ("-d", g_list(g_app_int(1, 1 << 16)), ["4", "8,16"]),
              ("--density", g_list(g_app_real(0, 1)), ["0.01", "0.1,1", "1e-2"]),
              ("--dist", g_word_list(["uniform", "zipf"]), ["uniform", "zipf", "uniform,zipf"]),
              ("--zipf-s", g_app_real(1, 100), ["1.1", "2"]),
              ("--modes", g_word_list(["gshmem", "gshmem-owner", "dense", "union", "allgather"],
                                      99), ["gshmem", "dense,union"]),
              ("-n", g_app_int(1, 10**6), ["1", "2"]),
              ("-w", g_app_int(0, 10**6), ["0", "1"]),
              ("--recv-frac", g_app_real(0, 1), ["1"]),
              ("--timeout", g_app_real(0, 1e9), ["30", "1e2"]),
              ("--csv", g_path, ["@TMP/sar.csv"]),
              ("--md", g_path, ["@TMP/sar.md"]),
              ("--bench", None, []), ("--no-link-bw", None, []), ("--phases", None, []),
              ("--cpu", None, []), ("--quiet", None, [])],
     "unknown": ["--bogus", "-Z", "--gpus", "--check=1"]},
    {"name": "gshmem-demo", "path": "apps/demo/gshmem-demo", "pes": 2, "kind": "none",
     "base": [], "opts": [], "unknown": ["--bogus", "-n", "4", "extra-arg", "--help=1"]},
]

GARBAGE = ["nan", "inf", "-inf", "-1", "0", "99999999999999999999", "1e30", "1e3", "abc",
           "", "12abc", "1.5", "0x10", LONG_DIGITS, LONG_ALPHA, "-0", "1,,2", ",", "--", FMT,
           "1e-400", "2.5e3", "  5", "5 ", " -5"]


def value_ok(app, flag, v):
    for f, gram, _ in app["opts"]:
        if f == flag:
            return gram(v) if gram else True
    return False


def gen_set(rng, app, tmp):
    """One argument set: (argv, what, expect, keys): expect 'good' or 'bad';
    keys: the words a refusal should name (the option, the value)."""
    items, what, bad, keys = [], [], False, []
    opts = app["opts"]
    for _ in range(rng.randint(0, 3) if opts else 0):   # valid options first
        f, gram, vals = rng.choice(opts)
        if gram is None:
            items.append([f])
        elif vals:
            items.append([f, rng.choice(vals).replace("@TMP", tmp)])
    r = rng.random()
    kinds = ["value"] * 6 + ["missing", "unknown", "dup", "positional"]
    kind = rng.choice(kinds) if r < 0.8 or not opts else "none"
    if not opts and kind in ("value", "missing", "dup"):
        kind = "unknown"
    valued = [o for o in opts if o[1] is not None]
    if kind == "value":
        f, gram, vals = rng.choice(valued)
        pool = GARBAGE + (["/nonexistent/dir/x.csv", "", "-o"] if gram is g_path else [])
        v = rng.choice(pool)
        items.append([f, v])
        what.append("%s %s" % (f, show(v)))
        keys += [f, v[:30]]
    elif kind == "missing":
        f, _, _ = rng.choice(valued)
        what.append("%s (no value)" % f)
        keys.append(f)
        items.append([f])   # last: no value follows
        bad = True
    elif kind == "unknown":
        u = rng.choice(app["unknown"])
        what.append("unknown %s" % u)
        keys.append(u)
        items.insert(rng.randint(0, len(items)), [u])
        bad = True
    elif kind == "dup":
        f, gram, vals = rng.choice([o for o in valued if o[2]])
        a, b = rng.choice(vals), rng.choice(GARBAGE + vals)
        items += [[f, a.replace("@TMP", tmp)], [f, b.replace("@TMP", tmp)]]
        what.append("dup %s %s %s" % (f, show(a), show(b)))
        keys += [f, b[:30]]
    elif kind == "positional":
        what.append("positional junk")
        keys.append("junk")
        items.append(["junk"])
        bad = True
    argv = list(app["base"]) + [x for it in items for x in it]
    if not bad:
        bad = not argv_ok(app, argv)
    return argv, "; ".join(what) or "valid only", "bad" if bad else "good", keys


def show(v):
    return ("'%s'" % v) if len(v) < 40 else "<%d chars %s...>" % (len(v), v[:3])


def argv_ok(app, argv):
    """The whole command line under the app's grammar (the last value wins;
    getopt and the long-option parsers alike take the next word as the
    value, even one that starts with '-')."""
    i, seen = 0, {}
    flags = {f: g for f, g, _ in app["opts"]}
    while i < len(argv):
        a = argv[i]
        if a not in flags:
            return False
        if flags[a] is None:
            i += 1
            continue
        if i + 1 >= len(argv) or not flags[a](argv[i + 1]):
            return False
        seen[a] = argv[i + 1]
        i += 2
    if app["kind"] == "perf":   # -b at most -e (perf_opts_parse)
        dflt_b = {"gshmem-perf-put-bw": 4096}.get(app["name"], 8)
        b = size_bytes(seen["-b"]) if "-b" in seen else dflt_b
        if "-e" in seen and b > size_bytes(seen["-e"]):
            return False
    return True


# ---- running -------------------------------------------------------------------

CRASH_RE = re.compile(r"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                      r"Segmentation fault|core dumped|stack smashing|double free|"
                      r"malloc\(\): |free\(\): |Assertion .* failed|was killed by signal|"
                      r"Invalid (read|write)|uninitialised|definitely lost", re.I)


def run(cmd, env, timeout, cwd):
    """cwd: a scratch folder (a garbage file name is written there, if at all)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, cwd=cwd)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "timeout"
    return rc, out, time.monotonic() - t0


def base_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GSHMEM_")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               FI_TCP_IFACE="lo", OMPI_MCA_btl_tcp_if_include="lo",
               OMPI_MCA_oob_tcp_if_include="lo", GSHMEM_TRANSPORTS="shm")
    return env


def names_it(out, keys):
    """Does a message line (not the indented lines of a usage text) name the
    option or the value? An empty value counts by its option."""
    lines = [l for l in out.splitlines() if l and not l[0].isspace()
             and not l.startswith("usage:")]
    return any(k and (len(k) >= 2 and k in l or "'%s'" % k in l) for k in keys for l in lines)


def classify(expect, rc, out, keys, is_launched):
    sig = rc != "timeout" and (rc < 0 or (rc >= 128 and rc != 124 and is_launched)
                               or (rc >= 128 and not is_launched))
    if rc == "timeout" or rc == 124:
        return "hang"
    if sig or CRASH_RE.search(out):
        return "crash"
    if expect == "good":
        return "valid" if rc == 0 else "valid-refused"
    if rc == 0:
        return "silent"
    return "refused" if names_it(out, keys) else "unnamed"


def fuzz_args(a, build, tmp, logs):
    rng = random.Random(a.seed)
    env = base_env()
    launcher = os.path.join(build, "tools/gshmemrun/gshmemrun")
    rows = []
    apps = [x for x in APPS if os.path.exists(os.path.join(build, x["path"]))]
    missing = [x["name"] for x in APPS if x not in apps]
    if missing:
        print("fuzz-args: not built (skipped): %s" % ", ".join(missing))
    for k in range(a.sets):
        app = apps[k % len(apps)]
        argv, what, expect, keys = gen_set(rng, app, tmp)
        prog = os.path.join(build, app["path"])
        if app["pes"]:
            cmd = [launcher, "-n", str(app["pes"]), "--timeout", "20", prog] + argv
        else:
            cmd = [prog] + argv
        rc, out, secs = run(cmd, env, 30, tmp)
        verdict = classify(expect, rc, out, keys, bool(app["pes"]))
        vg = ""
        if a.valgrind and expect == "bad":
            vrc, vout, _ = run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=no",
                                prog] + argv, env, 60, tmp)
            vg = "valgrind-error" if vrc == 99 or "Invalid" in vout else "clean"
            if vg != "clean":
                verdict = "crash"
                out += "\n--- valgrind:\n" + vout
        first = next((l for l in out.splitlines() if l.strip()), "")[:160]
        rows.append([k, app["name"], app["pes"], expect, what, rc, verdict, vg, "%.2f" % secs,
                     first, " ".join(show(x) if len(x) > 40 else x for x in argv)[:300]])
        if verdict not in ("refused", "valid"):
            logs.write("== args %d %s [%s] expect=%s rc=%s verdict=%s\n$ %s\n%s\n" % (
                k, app["name"], what, expect, rc, verdict,
                " ".join(show(x) if len(x) > 40 else x for x in argv), out[-3000:]))
    return rows


# ---- settings -----------------------------------------------------------------

def table_settings():
    rows = []
    pat = re.compile(r"GSHMEMI_CFG\((\w+),\s*(\w+),")
    with open(os.path.join(ROOT, "src/base/util/config_table.h")) as f:
        for m in pat.finditer(f.read()):
            rows.append((m.group(1), m.group(2)))
    return rows


INT_RANGE = {"TIMEOUT": (0, None), "IDLE_SPIN_US": (0, 10000000), "IDLE_NAP_US": (1, 1000000),
             "OFI_AM_RAILS": (1, 8), "AGG_BUFS": (1, 64), "AGG_WAIT_US": (0, 10000000),
             "STOPPED_TIMEOUT": (0, None)}
WORDS = {"DEBUG": ["LOUD", "WARN,INFO", "3"], "DEBUG_SUBSYS": ["FOO", "INIT,,HEAP", ","],
         "BOOTSTRAP": ["slurm", "local,mpi"], "TRANSPORTS": ["tcp", "shm,shm", "shm,"],
         "HEAP": ["gpu", "hosts"], "OFI_PROVIDER": ["nosuchprov", "tcp;nosuchutil"],
         "SYMMETRIC_LIBS": ["libnosuch.so.9", ",,"], "TRACE": ["/nonexistent/dir/trace"]}
UNKNOWN = ["GSHMEM_SYMETRIC_SIZE", "GSHMEM_TRANSPORT", "GSHMEM_DEBUG_LEVEL", "GSHMEM_HEAP_SIZE",
           "GSHMEM_OFI_PROVIDERS", "GSHMEM_TIMEOUT_S", "GSHMEM_INFOO", "GSHMEM_"]


def bad_values(typ, name):
    """Garbage for one setting: its own limits first, then its type's."""
    if typ == "size":
        v = {"SYMMETRIC_SIZE": ["1T", "0"], "OFI_AM_CHUNK": ["1K", "1T", "0"],
             "AGG_BYTES": ["1T", "0", "12"]}.get(name, [])
        return v + ["abc", "-1", "1.5M", "10X", "99999999999999999999", " 1M", "1MM", "0x100",
                    "16777216T"]
    if typ == "bool":
        return ["2", "yess", "-1", "enable", "1 "]
    if typ == "int":   # a setting not in INT_RANGE (new): its type's garbage only
        lo, hi = INT_RANGE.get(name, (None, None))
        v = [str(lo - 1)] if lo is not None else []
        v += [str(hi + 1)] if hi is not None else []
        return v + ["abc", "1.5", "1e3", "99999999999999999999", "0x10", "5 "]
    return list(WORDS.get(name, [])) + ["x" * 300]


def env_cases(n_bad):
    """n_bad cases: the unknown names, then the settings' garbage taken in
    rounds (every setting's first value, then every second one, ...)."""
    lists = [[("GSHMEM_" + name, v, "bad", typ) for v in bad_values(typ, name)]
             for typ, name in table_settings()]
    cases = [(u, "1", "unknown", "unknown") for u in UNKNOWN]
    for rnd in range(max(len(l) for l in lists)):
        for l in lists:
            if rnd < len(l) and len(cases) < n_bad:
                cases.append(l[rnd])
    return cases


def env_run(name, value, extra, build, tmp):
    env = base_env()
    env.update(extra)
    env[name] = value
    cmd = [os.path.join(build, "tools/gshmemrun/gshmemrun"), "-n", "2", "--timeout", "20",
           os.path.join(build, "tests/pe/pe_kill"), "none", "0", "3", "barrier"]
    return run(cmd, env, 30, tmp)


def env_classify(kind, name, rc, out):
    if rc == "timeout" or rc == 124:
        return "hang"
    if (rc != "timeout" and (rc < 0 or rc >= 128)) or CRASH_RE.search(out):
        return "crash"
    named = name in out
    if kind == "unknown":
        if rc == 0:
            return "warned" if named and "unknown" in out else "silent"
        return "refused" if named else "unnamed"
    if kind == "empty":
        return "default" if rc == 0 else ("refused" if named else "unnamed")
    if rc == 0:
        return "silent"
    return "refused" if named else "unnamed"


def fuzz_env(a, build, tmp, logs):
    rows = []
    cases = env_cases(a.settings)
    for typ, name in table_settings()[:6]:
        cases.append(("GSHMEM_" + name, "", "empty", typ))
    for k, (name, value, kind, typ) in enumerate(cases):
        extra = {}
        if name.startswith("GSHMEM_OFI") or (name == "GSHMEM_TRANSPORTS"):
            extra = {"GSHMEM_TRANSPORTS": "ofi", "GSHMEM_OFI_PROVIDER": "shm"}
            if name == "GSHMEM_TRANSPORTS":
                extra = {}
            if name.startswith("GSHMEM_OFI_AM_") and name != "GSHMEM_OFI_AM":
                extra["GSHMEM_OFI_AM"] = "1"
        rc, out, secs = env_run(name, value, extra, build, tmp)
        verdict = env_classify(kind, name, rc, out)
        first = next((l for l in out.splitlines() if name in l),
                     next((l for l in out.splitlines() if l.strip()), ""))[:200]
        rows.append([k, name, show(value), typ, kind, rc, verdict, "%.2f" % secs, first])
        if verdict not in ("refused", "warned", "default"):
            logs.write("== env %d %s=%s kind=%s rc=%s verdict=%s\n%s\n" % (
                k, name, show(value), kind, rc, verdict, out[-2000:]))
    return rows


def summary(rows, col, label):
    counts = {}
    for r in rows:
        counts[r[col]] = counts.get(r[col], 0) + 1
    return "%s: %d sets: %s" % (label, len(rows), ", ".join(
        "%s %d" % (k, counts[k]) for k in sorted(counts)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build-h2")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sets", type=int, default=300)
    p.add_argument("--settings", type=int, default=112)
    p.add_argument("--out", default="docs/results/hardening-2026-12-02")
    p.add_argument("--only", choices=["args", "env"])
    p.add_argument("--valgrind", action="store_true")
    a = p.parse_args()
    build = os.path.abspath(os.path.join(ROOT, a.build))
    out = os.path.join(ROOT, a.out)
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="fuzz-args.")
    bad = 0
    with open(os.path.join(out, "fuzz-logs.txt"), "w") as logs:
        if a.only != "env":
            rows = fuzz_args(a, build, tmp, logs)
            with open(os.path.join(out, "fuzz-args.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["set", "app", "pes", "expect", "garbage", "rc", "verdict",
                            "valgrind", "seconds", "first_line", "argv"])
                w.writerows(rows)
            print(summary(rows, 6, "fuzz-args: arguments (seed %d)" % a.seed))
            for name in sorted({r[1] for r in rows}):
                print(summary([r for r in rows if r[1] == name], 6, "  " + name))
            bad += sum(r[6] in ("crash", "hang", "silent", "unnamed", "valid-refused")
                       for r in rows)
        if a.only != "args":
            rows = fuzz_env(a, build, tmp, logs)
            with open(os.path.join(out, "fuzz-env.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["case", "variable", "value", "type", "kind", "rc", "verdict",
                            "seconds", "message"])
                w.writerows(rows)
            main_rows = [r for r in rows if r[4] != "empty"]
            print(summary(main_rows, 6, "fuzz-args: settings"))
            print(summary([r for r in rows if r[4] == "empty"], 6,
                          "fuzz-args: empty values (documented: empty = unset)"))
            bad += sum(r[6] in ("crash", "hang", "silent", "unnamed") for r in main_rows)
    shutil.rmtree(tmp, ignore_errors=True)
    print("fuzz-args: CSV and logs in %s" % a.out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

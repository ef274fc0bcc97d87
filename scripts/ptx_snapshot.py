#!/usr/bin/env python3
"""ptx-snapshot.py BUILD OUTDIR: the PTX of every CUDA source of a build (from
its compile_commands.json: configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON),
one file each, named by target and source file name, so two trees whose
sources moved can be compared with diff -r."""
import json, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

build, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
jobs = []
for c in json.load(open(os.path.join(build, "compile_commands.json"))):
    if not c["file"].endswith(".cu"):
        continue
    argv, new, i = shlex.split(c["command"]), [], 0
    obj = ""
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "-MF", "-MT"):
            obj = argv[i + 1] if a == "-o" else obj
            i += 2
            continue
        if a not in ("-c", "-MD", "-MMD", c["file"]) and not a.startswith("--generate-code"):
            new.append(a)
        i += 1
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
    name = f"{m.group(1) if m else 'x'}__{os.path.basename(c['file'])[:-3]}.ptx"
    jobs.append((c["directory"], new + ["-arch=compute_90", "-ptx", c["file"], "-o",
                                        os.path.join(os.path.abspath(out), name)], name))

def run(job):
    d, argv, name = job
    r = subprocess.run(argv, cwd=d, capture_output=True, text=True)
    return name, r.returncode, r.stderr[-800:]

failed = 0
with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
    for name, rc, err in ex.map(run, jobs):
        if rc:
            failed += 1
            print("FAILED", name, err)
print(f"{len(jobs) - failed} PTX files in {out}")
sys.exit(1 if failed else 0)

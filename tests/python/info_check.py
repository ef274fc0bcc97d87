"""info_check.py TOOL: `python -m gshmem.info` (this interpreter's package)
prints what the gshmem-info program TOOL prints, for every flag set (the
same bytes; --json output parses and the objects are equal), and a bad
flag gives status 2 and the usage line for both. Run by
tests/multipe/test_python.c; the last line is "info_check: OK"."""
import json
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def fail(fmt, *args):
    print("info_check: FAILED: " + fmt % args, flush=True)
    sys.exit(1)


def main(tool):
    py = [sys.executable, "-m", "gshmem.info"]
    for flags in ([], ["--all"], ["--json"], ["--all", "--json"], ["-a"]):
        (s1, o1, e1), (s2, o2, e2) = run(py + flags), run([tool] + flags)
        if s1 != 0 or s2 != 0 or not o1:
            fail("%s: status %d (python), %d (tool): %s%s", flags, s1, s2, e1, e2)
        if "--json" in flags and json.loads(o1) != json.loads(o2):
            fail("%s: the JSON objects differ", flags)
        if o1 != o2:
            fail("%s: the outputs differ:\n%s\n---- tool:\n%s", flags, o1, o2)
    for who, cmd in (("python", py), ("tool", [tool])):
        s, o, e = run(cmd + ["--bogus"])
        if s != 2 or "usage: " not in e or "--bogus" not in e:
            fail("%s --bogus: status %d, stderr %r", who, s, e)
    print("info_check: OK")


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""check_layers.py: the layer check behind scripts/check-layers.sh.

The folders are layers (src/CMakeLists.txt), each using only those below it:
  0 include/          public headers, impl/, ring/, agg/ (header-only)
  1 src/base/         util, bootstrap, heap
  2 src/transports/   transport.h/.c (the ops table) and shm/, ofi/, p2p/
  3 src/engine/       the queue path's proxy engine
  4 src/api/          core, agg, stream, stage (api/gshmemi.h: global state)
  5 tools/            standalone programs: include/ and src/base only (one
                     that links libgshmem may call its public API)
Transport rules: a transport folder (src/transports/<t>/) uses only its own
folder, src/transports/transport.h and the layers below; outside
src/transports only transports/transport.h (and, at link level, the symbols
of src/transports/transport.c) may be used: a transport is reached through
its ops table (gshmemi_transport_lookup), never by name.

Three checks:
  includes  every #include "..." (and <...> that resolves in the tree) of
            every .c/.h/.cu/.cuh under include/, src/, tools/, resolved
            relative to the file, then include/, then src/;
  calls     nm of the objects of the gshmem target (and of tools/): an
            object's undefined symbols must not be defined only by objects
            that the rules above forbid it to use;
  names     no comparison of a transport's ops->name, and no transport name
            literal ("shm", "ofi", "p2p") in a string comparison or a
            transport lookup outside src/transports and the settings parsing
            (src/base/util/config.c, src/api/core/select.c).
Exit status: 0 clean, 1 violations, 2 could not check.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

LAYERS = {0: "include", 1: "base", 2: "transports", 3: "engine", 4: "api", 5: "tools", 6: "top"}
SRC_LAYERS = {"base": 1, "transports": 2, "engine": 3, "api": 4}
EXTS = (".c", ".h", ".cu", ".cuh")
# The settings parsing: the user's GSHMEM_TRANSPORTS names are matched here.
NAME_PARSERS = ("src/base/util/config.c", "src/api/core/select.c")
TOOLS_MAY_USE = (0, 1, 5)
# A tool linking the library (gshmem-info) may call its public API, as any
# program may: the names include/ declares for users.
PUBLIC_API = re.compile(r"^(gshmem|gshmemx|shmem|pshmem)_")


class Unit:
    """Where a file sits: its layer and, under src/transports/<t>/, t."""

    def __init__(self, layer, transport=None, where=None):
        self.layer, self.transport, self.where = layer, transport, where

    def __str__(self):
        if self.layer == 2 and self.transport:
            return "layer 2: transports/%s" % self.transport
        return "layer %d: %s" % (self.layer, LAYERS[self.layer])


def unit_of(rel):
    """rel: a path relative to the source root ('/' separated)."""
    parts = rel.split("/")
    if parts[0] == "include":
        return Unit(0)
    if parts[0] == "tools":
        return Unit(5)
    if parts[0] == "src":
        if len(parts) > 2 and parts[1] in SRC_LAYERS:
            layer = SRC_LAYERS[parts[1]]
            t = parts[2] if layer == 2 and len(parts) > 3 else None
            return Unit(layer, t)
        return None  # in src/ but in no layer folder
    return Unit(6)  # apps/, tests/, the root: above every layer


def forbidden(frm, to, to_rel):
    """Why frm may not use to (a file at to_rel), or None when it may."""
    if frm.layer == 5 and to.layer not in TOOLS_MAY_USE:
        return "tools may use include/ and src/base only"
    if to.layer > frm.layer:
        return "higher layer"
    if to.layer == 2 and frm.layer == 2:
        if frm.transport and to.transport and frm.transport != to.transport:
            return "another transport"
        if (frm.transport and not to.transport and to_rel.endswith(".h")
                and to_rel != "src/transports/transport.h"):
            return "a transport folder uses only its own folder and transports/transport.h"
        return None
    if to.layer == 2 and frm.layer != 2:
        if to.transport:
            return "a transport by name; use transports/transport.h's ops table"
        if to_rel.endswith(".h") and to_rel != "src/transports/transport.h":
            return "only transports/transport.h may be used above src/transports"
    return None


# ---- C text ------------------------------------------------------------------

def blank_comments(text):
    """text with comments replaced by spaces (newlines kept), strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(root):
    for top in ("include", "src", "tools"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTS):
                    p = os.path.join(d, f)
                    yield os.path.relpath(p, root).replace(os.sep, "/")


INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def resolve(root, rel, target, quoted):
    here = os.path.dirname(rel)
    cands = ([os.path.join(here, target)] if quoted else []) + [
        os.path.join("include", target), os.path.join("src", target)]
    for c in cands:
        c = os.path.normpath(c).replace(os.sep, "/")
        if not c.startswith("../") and os.path.isfile(os.path.join(root, c)):
            return c
    return None


def check_includes(root, out):
    n_bad = n_inc = 0
    notes = []
    for rel in source_files(root):
        frm = unit_of(rel)
        if frm is None:
            out.append("%s:1: is in no layer (src/ holds only %s/)" %
                       (rel, ", ".join(sorted(SRC_LAYERS))))
            n_bad += 1
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            text = blank_comments(f.read())
        for m in INCLUDE_RE.finditer(text):
            quoted, target = m.group(1) == '"', m.group(2).strip()
            line = text.count("\n", 0, m.start()) + 1
            to_rel = resolve(root, rel, target, quoted)
            if to_rel is None:
                if quoted:
                    notes.append("%s:%d: note: \"%s\" is not in the tree" % (rel, line, target))
                continue
            n_inc += 1
            to = unit_of(to_rel)
            if to is None:
                to = Unit(6)
            why = forbidden(frm, to, to_rel)
            if why:
                out.append("%s:%d: includes %s (%s) from %s: %s" %
                           (rel, line, to_rel, to, frm, why))
                n_bad += 1
    return n_bad, n_inc, notes


# ---- names -----------------------------------------------------------------

CMP_RE = re.compile(r"\b(strn?cmp|strn?casecmp|strstr|strcasestr|gshmemi_transport_lookup)\s*\(")
OPS_NAME_RE = re.compile(r"\bops\b(\s*\[[^\]]*\])?\s*(->|\.)\s*name\b")
OPS_NAME_EQ_RE = re.compile(r'\bops\b(\s*\[[^\]]*\])?\s*(->|\.)\s*name\s*[=!]=\s*"')


def call_args(text, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren."""
    depth, args, cur, i = 0, [], [], open_paren
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "(":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    return args, i


def transport_names(root):
    d = os.path.join(root, "src", "transports")
    if not os.path.isdir(d):
        return []
    return sorted(x for x in os.listdir(d) if os.path.isdir(os.path.join(d, x)))


def check_names(root, out):
    names = transport_names(root)
    lit_re = re.compile(r'^"(%s)([/:;,][^"]*)?"$' % "|".join(map(re.escape, names)),
                        re.I) if names else None
    n_bad = 0
    for rel in source_files(root):
        if rel.startswith("src/transports/"):
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            text = blank_comments(f.read())
        hits = []
        for m in CMP_RE.finditer(text):
            args, end = call_args(text, m.end() - 1)
            call = re.sub(r"\s+", " ", text[m.start():end + 1])
            ops = [a for a in args if OPS_NAME_RE.search(a) and "boot" not in a]
            if ops and m.group(1) != "gshmemi_transport_lookup":
                hits.append((m.start(), "compares a transport's ops->name: " + call))
            elif lit_re and rel not in NAME_PARSERS and any(lit_re.match(a) for a in args):
                what = ("looks up a transport by name" if m.group(1) == "gshmemi_transport_lookup"
                        else "compares a transport name")
                hits.append((m.start(), "%s: %s" % (what, call)))
        for m in OPS_NAME_EQ_RE.finditer(text):
            hits.append((m.start(), "compares a transport's ops->name: " +
                         text[m.start():m.end()]))
        for pos, msg in sorted(hits):
            out.append("%s:%d: %s (outside src/transports)" %
                       (rel, text.count("\n", 0, pos) + 1, msg))
            n_bad += 1
    return n_bad


# ---- calls (nm) ----------------------------------------------------------------

def target_objects(build, tdir):
    """The objects linked into the target of CMakeFiles dir tdir."""
    objs = []
    lists = sorted(f for f in os.listdir(tdir) if re.match(r"objects\d*(\.rsp)?$", f))
    base = os.path.dirname(os.path.dirname(tdir))  # the folder the link runs in
    for f in lists:
        with open(os.path.join(tdir, f)) as fh:
            objs += fh.read().split()
    if not lists and os.path.isfile(os.path.join(tdir, "link.txt")):
        with open(os.path.join(tdir, "link.txt")) as fh:
            objs = [t for t in fh.read().split() if t.endswith(".o") and not t.startswith("-")]
    if objs:
        return [os.path.normpath(os.path.join(base, o)) for o in objs if o.endswith(".o")]
    found = []  # another generator (Ninja): every object under the folder
    for d, _, files in os.walk(tdir):
        found += [os.path.join(d, f) for f in files if f.endswith(".o")]
    return sorted(found)


def source_of(root, build, tdir, obj):
    """The source file (relative to root) that object obj was compiled from."""
    src_dir = os.path.relpath(os.path.dirname(os.path.dirname(tdir)), build)
    rel = os.path.relpath(obj, tdir)[:-2]  # strip .o
    rel = "/".join(".." if p == "__" else p for p in rel.split(os.sep))
    return os.path.normpath(os.path.join(src_dir, rel)).replace(os.sep, "/")


def nm(objs, *flags):
    """{object: [(symbol, type)]} from nm -A -P flags objs."""
    res = {o: [] for o in objs}
    for i in range(0, len(objs), 200):
        chunk = objs[i:i + 200]
        p = subprocess.run(["nm", "-A", "-P", *flags, *chunk], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("nm failed: " + p.stderr.strip())
        for line in p.stdout.splitlines():
            head, _, rest = line.partition(": ")
            f = rest.split()
            if len(f) >= 2 and head in res:
                res[head].append((f[0], f[1]))
    return res


def check_calls(root, build, out):
    gdir = os.path.join(build, "CMakeFiles", "gshmem.dir")
    if not os.path.isdir(gdir):
        raise RuntimeError("%s not found: build first (scripts/build.sh %s)" % (gdir, build))
    targets = [gdir]
    tools = os.path.join(build, "tools")
    for d, dirs, _ in os.walk(tools):
        if os.path.basename(d) == "CMakeFiles":
            targets += sorted(os.path.join(d, x) for x in dirs if x.endswith(".dir"))
            dirs[:] = []
    objs = {}  # object -> (target dir, source rel, unit)
    for t in targets:
        for o in target_objects(build, t):
            if not os.path.isfile(o):
                raise RuntimeError("%s is missing: build first" % o)
            rel = source_of(root, build, t, o)
            if not os.path.isfile(os.path.join(root, rel)):
                continue  # not compiled from a source here (a device link step)
            objs[o] = (t, rel, unit_of(rel) or Unit(6))
    lib = [o for o in objs if objs[o][0] == gdir]
    if not lib:
        raise RuntimeError("no objects of the gshmem target in %s: build first" % build)
    defs = nm(sorted(objs), "-g", "--defined-only")
    undefs = nm(sorted(objs), "-u")
    defined_by = {}  # symbol -> [(object, type)], the library's objects only
    for o in lib:
        for s, ty in defs[o]:
            defined_by.setdefault(s, []).append((o, ty))
    n_bad = n_refs = 0
    for o in sorted(objs, key=lambda x: objs[x][1]):
        t, rel, frm = objs[o]
        own = set()
        if t != gdir:  # a tool: what its own program defines is its own
            own = {s for x in objs if objs[x][0] == t for s, _ in defs[x]}
        for s, _ in sorted(set(undefs[o])):
            if s in own or s not in defined_by:
                continue
            if frm.layer == 5 and PUBLIC_API.match(s):
                continue
            n_refs += 1
            ds = [(d, ty) for d, ty in defined_by[s] if d != o]
            if not ds:
                continue
            why = [(forbidden(frm, objs[d][2], objs[d][1]), d, ty) for d, ty in ds]
            if any(w is None for w, _, _ in why):
                continue
            w, d, ty = why[0]
            verb = "calls" if ty.upper() in "TWI" else "uses"
            if w == "higher layer":
                where = "higher layer %s (%s > %s)" % (objs[d][1], objs[d][2], frm)
            else:
                where = "%s (%s; %s)" % (objs[d][1], objs[d][2], w)
            out.append("%s.o: %s %s defined in %s" % (rel, verb, s, where))
            n_bad += 1
    return n_bad, len(objs), n_refs


# ---- the self-test -----------------------------------------------------------------

SELF_TEST_FILES = {
    "include/pub.h": '#include "pub2.h"\n',
    "include/pub2.h": "int pub2;\n",
    "src/base/b.h": '#include "pub.h"\n',
    "src/base/b.c": '#include "b.h"\n#include "api/a.h"\nint api_fn(void);\n'
                    'int base_fn(void) { return api_fn(); }\n',
    "src/transports/transport.h": '#include "base/b.h"\n',
    "src/transports/transport.c": '#include "transport.h"\n#include "p2p/p2p.h"\n'
                                  'extern int p2p_fn(void);\nint tp_lookup(void) { return p2p_fn(); }\n',
    "src/transports/p2p/p2p.h": '#include "transports/transport.h"\n',
    "src/transports/p2p/p2p.c": '#include "p2p.h"\n#include "../ofi/ofi.h"\n'
                                'int p2p_fn(void) { return 0; }\n',
    "src/transports/ofi/ofi.h": '#include "transports/transport.h"\n',
    "src/engine/e.c": '#include <string.h>\n#include "transports/transport.h"\n'
                      '#include "transports/p2p/p2p.h"\n'
                      'struct ops { const char *name; };\nstruct tp { const struct ops *ops; };\n'
                      'int tp_lookup(void);\nint eng_fn(const struct tp *tp) {\n'
                      '    /* strcmp(tp->ops->name, "p2p") in a comment is fine */\n'
                      '    return tp_lookup() + !strcmp(tp->ops->name,\n        "p2p");\n}\n',
    "src/api/a.h": '#include "base/b.h"\n',
    "src/api/a.c": '#include <string.h>\n#include "a.h"\nint p2p_fn(void);\nint eng_fn(const void *);\n'
                   'int api_fn(void) { return p2p_fn() + eng_fn(0) + !strcmp("x", "ofi"); }\n',
    "src/base/util/config.c": '#include <string.h>\nint cfg(const char *t) { return !strcmp(t, "shm"); }\n',
    "tools/t/t.c": '#include "base/b.h"\n#include "engine/e.c"\n',
}
# What the checks must report on SELF_TEST_FILES:
SELF_TEST_WANT = {
    "include": ["src/base/b.c:2: includes src/api/a.h (layer 4: api)",
                "src/transports/p2p/p2p.c:2: includes src/transports/ofi/ofi.h",
                "src/engine/e.c:3: includes src/transports/p2p/p2p.h",
                "tools/t/t.c:2: includes src/engine/e.c"],
    "call": ["src/base/b.c.o: calls api_fn defined in higher layer src/api/a.c",
             "src/api/a.c.o: calls p2p_fn defined in src/transports/p2p/p2p.c"],
    "name": ["src/engine/e.c:9: compares a transport's ops->name",
             "src/api/a.c:5: compares a transport name"],
}


def self_test(keep=False):
    tmp = tempfile.mkdtemp(prefix="check-layers-selftest-")
    ok = True
    try:
        root, build = os.path.join(tmp, "tree"), os.path.join(tmp, "tree", "build")
        for rel, text in SELF_TEST_FILES.items():
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        # A fake build folder laid out as CMake's: objects + the objects1 list.
        gdir = os.path.join(build, "CMakeFiles", "gshmem.dir")
        cc = os.environ.get("CC", "cc")
        lst = []
        for rel in SELF_TEST_FILES:
            if rel.startswith("src/") and rel.endswith(".c"):
                o = os.path.join(gdir, rel + ".o")
                os.makedirs(os.path.dirname(o), exist_ok=True)
                subprocess.run([cc, "-c", "-I", os.path.join(root, "include"), "-I",
                                os.path.join(root, "src"), "-o", o, os.path.join(root, rel)],
                               check=True)
                lst.append(os.path.relpath(o, build))
        with open(os.path.join(gdir, "objects1"), "w") as f:
            f.write(" ".join(lst) + "\n")
        out = []
        counts = {"include": check_includes(root, out)[0], "call": check_calls(root, build, out)[0],
                  "name": check_names(root, out)}
        for kind, wants in SELF_TEST_WANT.items():
            if counts[kind] != len(wants):
                print("self-test: %d %s violation(s), expected %d" % (counts[kind], kind, len(wants)))
                ok = False
            for w in wants:
                if not any(line.startswith(w) for line in out):
                    print("self-test: missing: " + w)
                    ok = False
        if not ok:
            print("self-test: the check printed:\n  " + "\n  ".join(out))
        # The fixed tree must pass: drop the bad lines, rebuild, re-check.
        fixes = {"src/base/b.c": ('#include "api/a.h"\n', ""), "src/base/b.c#2": ("api_fn()", "0"),
                 "src/transports/p2p/p2p.c": ('#include "../ofi/ofi.h"\n', ""),
                 "src/engine/e.c": ('#include "transports/p2p/p2p.h"\n', ""),
                 "src/engine/e.c#2": ('!strcmp(tp->ops->name,\n        "p2p")', '(tp->ops != 0)'),
                 "src/api/a.c": ('p2p_fn() + ', 'tp_lookup() + '),
                 "src/api/a.c#2": ('!strcmp("x", "ofi")', '0'),
                 "src/api/a.c#3": ('int p2p_fn(void);', 'int tp_lookup(void);'),
                 "tools/t/t.c": ('#include "engine/e.c"\n', "")}
        for key, (a, b) in fixes.items():
            p = os.path.join(root, key.split("#")[0])
            with open(p) as f:
                text = f.read()
            assert a in text, (key, a)
            with open(p, "w") as f:
                f.write(text.replace(a, b))
        for line in lst:
            rel = os.path.relpath(os.path.join(build, line), gdir)[:-2]
            subprocess.run([cc, "-c", "-I", os.path.join(root, "include"), "-I",
                            os.path.join(root, "src"), "-o", os.path.join(build, line),
                            os.path.join(root, rel)], check=True)
        out2 = []
        n2 = (check_includes(root, out2)[0] + check_calls(root, build, out2)[0] +
              check_names(root, out2))
        if n2:
            print("self-test: the fixed tree still fails:\n  " + "\n  ".join(out2))
            ok = False
        # This repository's own sources, with one upward include planted.
        real = os.path.join(tmp, "real")
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for top in ("include", "src", "tools"):
            shutil.copytree(os.path.join(here, top), os.path.join(real, top))
        before = check_includes(real, [])[0]
        victim = "src/base/util/log.c"
        with open(os.path.join(real, victim), "a") as f:
            f.write('#include "engine/proxy.h"\n')
        out3 = []
        after = check_includes(real, out3)[0]
        planted = [x for x in out3 if x.startswith(victim + ":") and "engine/proxy.h" in x]
        if after != before + 1 or not planted:
            print("self-test: an upward include planted in %s gave %d -> %d violation(s)" %
                  (victim, before, after))
            ok = False
        total = sum(counts.values())
        print("check-layers self-test: planted violations found:\n  " +
              "\n  ".join(out + planted))
        print("check-layers self-test: %s (%d planted violation(s) found: %d include, %d call, "
              "%d name; the fixed tree passes: %s; the real tree plus one upward include: %d -> %d)"
              % ("OK" if ok else "FAILED", total, counts["include"], counts["call"],
                 counts["name"], "yes" if not n2 else "no", before, after))
    finally:
        if keep:
            print("self-test tree kept in " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default="build", help="the build folder (default build)")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--sources-only", action="store_true", help="skip the nm check")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--keep", action="store_true", help="self-test: keep the temporary tree")
    ap.add_argument("--notes", action="store_true", help="list includes not found in the tree")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.keep)
    root = os.path.abspath(a.root)
    build = a.build if os.path.isabs(a.build) else os.path.join(root, a.build)
    out = []
    n_inc, n_includes, notes = check_includes(root, out)
    n_call = n_objs = n_refs = 0
    if not a.sources_only:
        try:
            n_call, n_objs, n_refs = check_calls(root, build, out)
        except (RuntimeError, OSError) as e:
            for line in out:
                print(line)
            print("check-layers: FAILED (could not check calls: %s)" % e)
            return 2
    n_name = check_names(root, out)
    for line in out:
        print(line)
    if a.notes:
        for line in notes:
            print(line)
    if n_inc or n_call or n_name:
        print("check-layers: %d include, %d call, %d name violation(s)" % (n_inc, n_call, n_name))
        return 1
    print("check-layers: OK (0 violations: %d includes, %s, transport names)" %
          (n_includes, "calls not checked (--sources-only)" if a.sources_only else
           "%d objects' %d references into the library" % (n_objs, n_refs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

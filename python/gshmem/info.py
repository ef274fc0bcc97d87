"""info.py: python3 -m gshmem.info [--all] [--json] prints what the
gshmem-info tool prints (the library's gshmemx_info text: version, build,
settings), from the library this package loaded. No job needed.
"""
import ctypes
import sys

from . import _lib

USAGE = ("usage: python3 -m gshmem.info [--all] [--json]\n"
         "  --all   also each setting's type and meaning\n"
         "  --json  everything as one JSON object\n")
# include/gshmem.h; the tool's flags (tools/info)
INFO_ALL, INFO_JSON = 1, 2
_FLAGS = {"--all": INFO_ALL, "-a": INFO_ALL, "--json": INFO_JSON}


def text(flags=0):
    """gshmemx_info(flags) as a str (flags: INFO_ALL | INFO_JSON)."""
    if not _lib.has_info_api:
        raise _lib.GshmemError("gshmem.info: the libgshmem in %s has no gshmemx_info (older "
                               "than this package)" % (_lib.lib_dir or "the loader's path"))
    p = _lib.lib.gshmemx_info(flags)
    if not p:
        raise _lib.GshmemError("gshmem.info: gshmemx_info(%d) failed" % flags)
    try:
        return ctypes.string_at(p).decode()
    finally:
        _lib.lib.gshmemx_info_free(p)


def main(argv):
    """The tool's command line: status 0, 1 (no text), 2 (a bad argument)."""
    flags = 0
    for arg in argv:
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if arg not in _FLAGS:
            sys.stderr.write("gshmem.info: unknown argument '%s'\n%s" % (arg, USAGE))
            return 2
        flags |= _FLAGS[arg]
    try:
        out = text(flags)
    except _lib.GshmemError as e:
        print(e, file=sys.stderr)
        return 1
    sys.stdout.write(out)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

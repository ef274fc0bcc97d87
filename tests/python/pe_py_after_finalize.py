"""pe_py_after_finalize.py: arrays over the host heap (an array, a slice, a
peer view) used after gshmem.finalize() raise GshmemError, where a plain
ndarray over the unmapped heap killed the interpreter with SIGSEGV; so do
they after a new init (another heap); a copy made before stays usable.
Run: gshmemrun -n 1 python3 pe_py_after_finalize.py (PYTHONPATH: the
package)."""
import sys

import numpy as np

import gshmem
from gshmem import GshmemError


def expect_gone(what, fn):
    try:
        fn()
    except GshmemError as e:
        if "after gshmem.finalize()" in str(e):
            return
        print("FAILED: %s: GshmemError without 'after gshmem.finalize()': %s" % (what, e))
    else:
        print("FAILED: %s after finalize did not raise GshmemError" % what)
    sys.exit(1)


gshmem.init(heap="host")
a = gshmem.zeros(8, "int64")
a[:] = 7
part, peer, keep = a[2:5], gshmem.peer_array(a, 0), a.copy()
gshmem.finalize()

uses = [("a[0]", lambda: a[0]), ("a[0] = 1", lambda: a.__setitem__(0, 1)),
        ("repr(a)", lambda: repr(a)), ("str(a)", lambda: str(a)), ("a.sum()", lambda: a.sum()),
        ("np.sum(a)", lambda: np.sum(a)), ("a + 1", lambda: a + 1), ("list(a)", lambda: list(a)),
        ("a.tolist()", lambda: a.tolist()), ("a.copy()", lambda: a.copy()),
        ("np.concatenate", lambda: np.concatenate([keep, a])), ("a.fill(0)", lambda: a.fill(0)),
        ("part[0]", lambda: part[0]), ("float(part[:1])", lambda: float(part[:1])),
        ("peer[0]", lambda: peer[0]), ("a[1:3]", lambda: a[1:3])]
for what, fn in uses:
    expect_gone(what, fn)
if not (isinstance(keep, np.ndarray) and (keep == 7).all()):
    print("FAILED: the copy made before finalize: %r" % (keep,))
    sys.exit(1)

gshmem.init(heap="host")     # another heap: the old arrays still may not be used
expect_gone("a[0] after a new init", lambda: a[0])
b = gshmem.zeros(4, "int32")
b[1] = 5
if int(b.sum()) != 5:
    print("FAILED: an array of the new heap: %r" % (b,))
    sys.exit(1)
del b
gshmem.finalize()
print("pe_py_after_finalize: OK")

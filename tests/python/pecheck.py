"""pecheck.py: what the Python PE programs of tests/python share: checks
that name the PE and end the run with status 1, the expected-error check,
the final OK line the Criterion driver (tests/multipe/test_python.c)
looks for, and the import of apps/dlrm's generator and reference
(apps/dlrm/torch_baseline.py)."""
import os
import sys

import gshmem

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check(cond, fmt, *args):
    if not cond:
        print("PE %d: FAILED: %s" % (gshmem.my_pe(), fmt % args), flush=True)
        sys.exit(1)


def expect_error(exc_type, words, fn, *args, **kw):
    """fn(*args, **kw) must raise exc_type with every one of words in its
    message (the call, the PE, the value: what a user needs to see)."""
    try:
        fn(*args, **kw)
    except exc_type as e:
        missing = [w for w in words if w not in str(e)]
        check(not missing, "%s: message lacks %s: %s", exc_type.__name__, missing, e)
        return
    check(False, "%s(...) did not raise %s (expected: %s)", getattr(fn, "__name__", fn),
          exc_type.__name__, words)


def ok(name):
    """Ends a PE program: every PE passed (a barrier), PE 0 prints the line."""
    gshmem.barrier_all()
    if gshmem.my_pe() == 0:
        print("%s: OK" % name, flush=True)


def torch_baseline():
    """apps/dlrm/torch_baseline.py as a module (its generator and reference)."""
    sys.path.insert(0, os.path.join(SRC, "apps", "dlrm"))
    import torch_baseline
    return torch_baseline

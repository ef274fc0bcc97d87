"""pe_py_torchrun.py: the gshmem package under torchrun (one node, host
heap), through gshmemrun --serve (python/gshmem/_torchrun.py).
Modes (argv[1]):
  ok    the PE is torchrun's RANK, the PE count WORLD_SIZE; the private
        directory is 0700 under XDG_RUNTIME_DIR (when set), its name random
        (gshmem-<uid>-rdv-<16 hex>); puts around the
        ring; a second init/finalize cycle (the server stays: --keep)
  die   RANK 1 exits with status 3 right after init while the others wait
        in a barrier: gshmemrun --serve tells them, the job ends
  hang  RANK 1 exits with status 3 while the others wait for a signal that
        never comes: the server's notice (or torchrun) ends them
  init  init and finalize twice, printing "PE i of n" each time; a
        GshmemError is printed ("GshmemError: ...") and the status is 5
        (for runs that set torchrun's variables by hand)
Run: torchrun --nproc_per_node N pe_py_torchrun.py MODE (PYTHONPATH: the
package and tests/python)."""
import os
import stat
import sys

import numpy as np

import gshmem
from gshmem import GshmemError
from gshmem._lib import lib
from pecheck import check, ok

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
if mode == "init":
    for _ in range(2):
        try:
            gshmem.init(heap="host")
        except GshmemError as e:
            print("pe_py_torchrun: GshmemError: %s" % e, flush=True)
            sys.exit(5)
        print("pe_py_torchrun: PE %d of %d" % (gshmem.my_pe(), gshmem.n_pes()), flush=True)
        gshmem.finalize()
    sys.exit(0)
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])

gshmem.init(heap="host")
me, n = gshmem.my_pe(), gshmem.n_pes()
check(me == rank and n == world, "PE %d of %d, torchrun's RANK %d of WORLD_SIZE %d", me, n,
      rank, world)
if mode in ("die", "hang"):
    flag = gshmem.zeros(1, "uint64")
    gshmem.barrier_all()
    if me == 1:
        print("pe_py_torchrun: RANK 1 exits with status 3", flush=True)
        os._exit(3)
    if mode == "die":
        gshmem.barrier_all()    # gshmemrun --serve ends it with an error
    else:                       # a wait of this PE alone: only torchrun can end it
        lib.gshmem_signal_wait_until(flag.__array_interface__["data"][0], 3, 1)   # GE 1
    check(False, "a wait for RANK 1 returned")

d = os.environ["GSHMEMRUN_DIR"]
st = os.lstat(d)
check(stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700, "%s: mode %o", d,
      st.st_mode)
name = os.path.basename(d)
prefix = "gshmem-%d-rdv-" % os.getuid()
check(name.startswith(prefix) and len(name) == len(prefix) + 16 and
      all(c in "0123456789abcdef" for c in name[len(prefix):]),
      "%s: not a random name (gshmem-<uid>-rdv-<16 hex>)" % d)
runtime = os.environ.get("XDG_RUNTIME_DIR")
check(not runtime or os.path.dirname(d) == runtime, "%s is not in XDG_RUNTIME_DIR=%s", d,
      runtime)
check(os.environ["GSHMEMRUN_SOCKET"] == os.path.join(d, "rdv.sock"), "GSHMEMRUN_SOCKET=%s",
      os.environ["GSHMEMRUN_SOCKET"])

for cycle in range(2):
    if cycle:
        gshmem.init(heap="host")     # the same server: it outlives the first finalize
    a = gshmem.zeros(4, "int64")
    gshmem.barrier_all()
    gshmem.put(a, np.full(4, 10 * cycle + me, np.int64), (me + 1) % n)
    gshmem.barrier_all()
    check((a == 10 * cycle + (me + n - 1) % n).all(), "cycle %d: put from the left PE: %r",
          cycle, a)
    del a
    if cycle:
        ok("pe_py_torchrun")
    gshmem.finalize()

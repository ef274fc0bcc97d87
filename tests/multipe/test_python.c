/* test_python.c: the Python package pip-installed into a venv (the build's
 * copy, <build>/python, which carries the build's libraries: see
 * python/gshmem/_lib.py) run by gshmemrun: the PE programs of tests/python
 * at 2 and 4 PEs on host heaps (NumPy arrays, CPU tensors, the DLRM op's
 * CPU path against an fp64 reference, apps/dlrm/torch_example.py), arrays
 * used after finalize (1 PE), the package's import without NumPy and
 * torch, its import under gshmemrun from the venv, `python -m gshmem.info`
 * against gshmem-info, the source tree's package (python/) pip-installed
 * into another venv, and on GPU machines the same programs on CUDA heaps
 * plus stream order and CUDA graphs (pe_py_cuda.py). The cmake --install
 * package: test_install.c.
 *
 * The venvs: <build>/python-venv and <build>/python-venv-src, made by
 * tests/python/make_venv.sh (offline, pip --no-build-isolation, Debian's
 * site-packages visible: NumPy, torch) when missing or older than the
 * package, under a lock (tests run side by side). No PYTHONPATH: the
 * package is the venv's. A test whose modules the venv lacks, or without
 * an interpreter that can make a venv, is skipped, naming them. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define PY_DIR GSHMEM_SOURCE_DIR "/tests/python"
/* A command's start: no PYTHONPATH (the package is the venv's). */
#define PY_ENV "env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "
#define PY_TIMEOUT 240
/* The venvs (test_run expands %B), each with its package's folder. */
#define VENV_BUILD "%B/python-venv"
#define VENV_SRC "%B/python-venv-src"

/* The python of venv with the package at pkg pip-installed (make_venv.sh
 * under venv.lock), once it imports mods; else skips the calling test. */
static const char *venv_python(const char *venv, const char *pkg, const char *mods)
{
    static char py[256];
    char cmd[1024];

    test_skip_if_sanitized();
    snprintf(cmd, sizeof cmd, "flock %s.lock sh " PY_DIR "/make_venv.sh %s %s", venv, venv,
             pkg);
    test_require_cmd(cmd, 120, "no venv: ");
    snprintf(py, sizeof py, "%s/bin/python", venv);
    snprintf(cmd, sizeof cmd, "%s -c 'import %s' || { echo 'SKIP: the venv %s lacks %s "
             "(Debian: python3-numpy, python3-torch)'; exit 77; }", py, mods, venv, mods);
    test_require_cmd(cmd, 120, "");
    return py;
}

/* The python of the venv with the build's package (pip install <build>/python). */
static const char *build_python(const char *mods)
{
    return venv_python(VENV_BUILD, "%B/python", mods);
}

/* gshmemrun -n n <python> tests/python/<prog> args: status 0 and
 * "<prog>: OK" (PE 0's last line); the output, for more checks. */
static test_run_t run_pe_py_ok(const char *mods, const char *env, int n, const char *prog,
                               const char *args)
{
    const char *py = build_python(mods);
    char cmd[1024], name[64];
    snprintf(cmd, sizeof cmd, PY_ENV "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %s "
             "%s/%s.py %s", n, PY_TIMEOUT - 20, py, PY_DIR, prog, args);
    snprintf(name, sizeof name, "%s: OK", prog);
    test_run_t r = test_run(env, cmd, PY_TIMEOUT);
    cr_assert_eq(r.status, 0, "%s at %d PEs (%s): status %d:\n%s", prog, n, py, r.status,
                 test_tail(&r));
    cr_assert(strstr(r.output, name), "%s at %d PEs: no '%s' line:\n%s", prog, n, name,
              test_tail(&r));
    return r;
}

/* The same, and no block was left alive at finalize. */
static void run_pe_py(const char *mods, const char *env, int n, const char *prog,
                      const char *args)
{
    test_run_t r = run_pe_py_ok(mods, env, n, prog, args);
    cr_assert_null(strstr(r.output, "still alive"), "%s: blocks left at finalize:\n%s", prog,
                   test_tail(&r));
    test_run_free(&r);
}

typedef struct py_n {
    int n;
} py_n_t;

ParameterizedTestParameters(python, basic)
{
    static py_n_t ns[] = {{2}, {4}};
    return cr_make_param_array(py_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* NumPy arrays in the host heap, put/get, peer views, collective frees. */
ParameterizedTest(py_n_t *p, python, basic, .timeout = PY_TIMEOUT)
{
    run_pe_py("numpy", NULL, p->n, "pe_py_basic", "");
}

/* Arrays over the heap used after finalize raise GshmemError (a plain
 * ndarray there was a SIGSEGV); finalize warns about them. One PE. */
Test(python, heap_array_after_finalize, .timeout = PY_TIMEOUT)
{
    test_run_t r = run_pe_py_ok("numpy", NULL, 1, "pe_py_after_finalize", "");
    cr_assert(strstr(r.output, "1 symmetric array(s)/tensor(s) still alive"),
              "finalize did not warn about the live array:\n%s", test_tail(&r));
    test_run_free(&r);
}

ParameterizedTestParameters(python, torch_cpu)
{
    static py_n_t ns[] = {{2}, {4}};
    return cr_make_param_array(py_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* CPU tensors: every dtype, put / put_signal / signal_wait, peer_tensor. */
ParameterizedTest(py_n_t *p, python, torch_cpu, .timeout = PY_TIMEOUT)
{
    run_pe_py("numpy, torch", NULL, p->n, "pe_py_torch", "host");
}

ParameterizedTestParameters(python, dlrm_op_cpu)
{
    static py_n_t ns[] = {{2}, {4}};
    return cr_make_param_array(py_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* The op's CPU path against the fp64 reference; its errors. */
ParameterizedTest(py_n_t *p, python, dlrm_op_cpu, .timeout = PY_TIMEOUT)
{
    run_pe_py("numpy, torch", NULL, p->n, "pe_py_dlrm", "host");
}

/* The README's example on CPU PEs: both ways agree (and with the fp64
 * reference), both times printed. */
Test(python, torch_example_cpu, .timeout = PY_TIMEOUT)
{
    const char *py = build_python("numpy, torch");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PY_ENV "%%B/tools/gshmemrun/gshmemrun -n 4 --timeout %d %s "
             GSHMEM_SOURCE_DIR "/apps/dlrm/torch_example.py --config tiny --check --iters 20 "
             "--warmup 2", PY_TIMEOUT - 20, py);
    test_run_t r = test_run("GSHMEM_HEAP=host", cmd, PY_TIMEOUT);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "    torch    gshmem      x"), "no table header:\n%s",
              test_tail(&r));
    cr_assert(strstr(r.output, "speedup torch / gshmem over 1 point: wall geomean "),
              "no speedup summary (CPU PEs: the wall timing only):\n%s", test_tail(&r));
    cr_assert_eq(test_count_of(r.output, " OK+ref\n"), 1, "expected one checked row:\n%s",
                 test_tail(&r));
    cr_assert(strstr(r.output, "torch_example: OK"), "%s", test_tail(&r));
    test_run_free(&r);
}

/* The package imports without NumPy and torch; what needs them says so. */
Test(python, import_without_numpy_and_torch)
{
    const char *py = build_python("sys");
    char cmd[512];
    snprintf(cmd, sizeof cmd, PY_ENV "%s -c \"import sys; sys.modules['numpy'] = None; "
             "sys.modules['torch'] = None\nimport gshmem\ntry:\n    gshmem.empty(4)\n"
             "except ImportError as e: print(e)\ntry:\n    import gshmem.torch\n"
             "except ImportError as e: print(e)\"", py);
    test_run_t r = test_run(NULL, cmd, 60);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "gshmem.empty needs NumPy"), "%s", test_tail(&r));
    cr_assert(strstr(r.output, "gshmem.torch needs PyTorch"), "%s", test_tail(&r));
    test_run_free(&r);
}

/* The goal of the pip install: under gshmemrun -n 2, the venv's python
 * imports the venv's package (no PYTHONPATH), which loads its own copy of
 * libgshmem (gshmem/_libs) ahead of GSHMEM_LIB and finds its gshmemrun. */
Test(python, pip_import_under_gshmemrun, .timeout = 120)
{
    const char *py = build_python("sys");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PY_ENV "GSHMEM_LIB=/nonexistent %%B/tools/gshmemrun/gshmemrun -n 2 "
             "--timeout 60 %s -c \"import sys, os, gshmem, gshmem._lib as l\n"
             "own = os.path.join(sys.prefix, 'lib')\n"
             "assert gshmem.__file__.startswith(own), gshmem.__file__\n"
             "assert l.lib_dir.startswith(own) and l.lib_dir.endswith('gshmem/_libs'), l.lib_dir\n"
             "assert l.gshmemrun_candidates()[0] == os.path.join(l.lib_dir, 'gshmemrun')\n"
             "gshmem.init(heap='host'); l.op_lib()\n"
             "os.write(1, ('PE %%d of %%d version %%s\\\\n' %% (gshmem.my_pe(), gshmem.n_pes(), "
             "gshmem.__version__)).encode())\n"
             "gshmem.finalize()\"", py);
    test_run_t r = test_run(NULL, cmd, 100);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "PE 0 of 2 version 0.1.0") &&
                  strstr(r.output, "PE 1 of 2 version 0.1.0"), "%s", test_tail(&r));
    test_run_free(&r);
}

/* python -m gshmem.info prints what gshmem-info prints, flag for flag
 * (--json parses, the same object); a bad flag: status 2 and the usage. */
Test(python, info_matches_gshmem_info, .timeout = 120)
{
    const char *py = build_python("json");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PY_ENV "%s " PY_DIR "/info_check.py %%B/tools/info/gshmem-info",
             py);
    test_run_t r = test_run(NULL, cmd, 100);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    cr_assert(strstr(r.output, "info_check: OK"), "%s", test_tail(&r));
    test_run_free(&r);
}

/* The source tree's package (pip install python/: no libraries of its
 * own) under gshmemrun -n 2 loads the library GSHMEM_LIB names. */
Test(python, pip_source_tree_gshmem_lib, .timeout = 120)
{
    const char *py = venv_python(VENV_SRC, GSHMEM_SOURCE_DIR "/python", "sys");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PY_ENV "GSHMEM_LIB=%%B %%B/tools/gshmemrun/gshmemrun -n 2 "
             "--timeout 60 %s -c \"import os, sys, gshmem, gshmem._lib as l\n"
             "assert gshmem.__file__.startswith(sys.prefix), gshmem.__file__\n"
             "gshmem.init(heap='host')\n"
             "os.write(1, ('PE %%d lib %%s\\\\n' %% (gshmem.my_pe(), l.lib_dir)).encode())\n"
             "gshmem.finalize()\"", py);
    test_run_t r = test_run(NULL, cmd, 100);
    cr_assert_eq(r.status, 0, "status %d:\n%s", r.status, test_tail(&r));
    for (int pe = 0; pe < 2; pe++) {
        char want[512];
        snprintf(want, sizeof want, "PE %d lib %s\n", pe, test_build_dir());
        cr_assert(strstr(r.output, want), "no '%s':\n%s", want, test_tail(&r));
    }
    test_run_free(&r);
}

/* The source tree's package without a library to find: an ImportError
 * naming what it tried and GSHMEM_LIB. */
Test(python, library_not_found, .timeout = 120)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, PY_ENV "GSHMEM_LIB=/nonexistent LD_LIBRARY_PATH= %s -c "
             "'import gshmem'", venv_python(VENV_SRC, GSHMEM_SOURCE_DIR "/python", "sys"));
    test_run_t r = test_run(NULL, cmd, 60);
    cr_assert_neq(r.status, 0, "%s", test_tail(&r));
    cr_assert(strstr(r.output, "cannot load libgshmem.so.0") &&
                  strstr(r.output, "/nonexistent (") &&
                  strstr(r.output, "GSHMEM_LIB"),
              "%s", test_tail(&r));
    test_run_free(&r);
}

/* ---- GPU PEs (CUDA heaps): skipped without a CUDA build and GPUs ------------ */

/* Skips unless torch sees a GPU and this is a CUDA build. Fewer GPUs than
 * PEs is fine: the PEs share them (the heap's device is the local rank
 * modulo the count), as on the one-GPU machine kind. */
static void require_gpus(void)
{
    test_require_built("tests/pe/pe_dev_rma");
    const char *py = build_python("numpy, torch");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c \"import sys, torch\nk = torch.cuda.device_count() if "
             "torch.cuda.is_available() else 0\nprint('SKIP: torch', torch.__version__, "
             "'sees no GPU') if k < 1 else None\nsys.exit(77 if k < 1 else 0)\"", py);
    test_require_cmd(cmd, 120, "no GPU: ");
}

ParameterizedTestParameters(python, gpu)
{
    static py_n_t ns[] = {{2}, {4}};
    return cr_make_param_array(py_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* Symmetric CUDA tensors, stream order, CUDA graphs, the op on GPUs. */
ParameterizedTest(py_n_t *p, python, gpu, .timeout = 3 * PY_TIMEOUT)
{
    require_gpus();
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_torch", "cuda");
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_cuda", "");
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_dlrm", "cuda");
}

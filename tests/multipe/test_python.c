/* test_python.c: the Python package (python/gshmem, loaded from
 * <build>/python) run by gshmemrun: the PE programs of tests/python at 2
 * and 4 PEs on host heaps (NumPy arrays, CPU tensors, the DLRM op's CPU
 * path against an fp64 reference, apps/dlrm/torch_example.py), arrays
 * used after finalize (1 PE), the package's import without NumPy and
 * torch, and on GPU machines the same programs on CUDA heaps plus stream
 * order and CUDA graphs (pe_py_cuda.py). The installed package:
 * test_install.c.
 *
 * The interpreter: the first of "python3" (PATH) and /usr/bin/python3 that
 * imports what the test needs (Debian's python3-numpy / python3-torch go
 * to /usr/bin/python3, a pyenv python3 on PATH may lack them); a test
 * whose modules no interpreter has is skipped, naming them. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define PY_DIR GSHMEM_SOURCE_DIR "/tests/python"
/* A command's start, as a format (%%B: the build folder, which test_run
 * expands in commands only): the package from the build, the PE
 * programs' helpers beside them. */
#define PY_ENV "env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=%%B/python:" PY_DIR " "
#define PY_TIMEOUT 240

/* gshmemrun -n n <python> tests/python/<prog> args: status 0 and
 * "<prog>: OK" (PE 0's last line); the output, for more checks. */
static test_run_t run_pe_py_ok(const char *mods, const char *env, int n, const char *prog,
                               const char *args)
{
    const char *py = test_python_with(mods);
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
    const char *py = test_python_with("numpy, torch");
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
    const char *py = test_python_with("sys");
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

/* The package without a build or install to come from: an ImportError
 * naming what it tried and GSHMEM_LIB. */
Test(python, library_not_found)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s -c 'import gshmem'", test_python_with("sys"));
    test_run_t r = test_run("PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=" GSHMEM_SOURCE_DIR "/python "
                            "GSHMEM_LIB=/nonexistent LD_LIBRARY_PATH=", cmd, 60);
    cr_assert_neq(r.status, 0, "%s", test_tail(&r));
    cr_assert(strstr(r.output, "cannot load libgshmem.so.0") &&
                  strstr(r.output, "/nonexistent (") &&
                  strstr(r.output, "GSHMEM_LIB"),
              "%s", test_tail(&r));
    test_run_free(&r);
}

/* ---- GPU PEs (CUDA heaps): skipped without a CUDA build and GPUs ------------ */

/* Skips unless torch sees n GPUs (the interpreter with torch) and this is
 * a CUDA build. */
static void require_gpus(int n)
{
    test_require_built("tests/pe/pe_dev_rma");
    const char *py = test_python_with("numpy, torch");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c \"import sys, torch\nk = torch.cuda.device_count() if "
             "torch.cuda.is_available() else 0\nprint('SKIP: torch', torch.__version__, 'sees', "
             "k, 'GPU(s), the test needs %d') if k < %d else None\nsys.exit(77 if k < %d else "
             "0)\"", py, n, n, n);
    test_require_cmd(cmd, 120, "not enough GPUs: ");
}

ParameterizedTestParameters(python, gpu)
{
    static py_n_t ns[] = {{2}, {4}};
    return cr_make_param_array(py_n_t, ns, sizeof ns / sizeof ns[0]);
}

/* Symmetric CUDA tensors, stream order, CUDA graphs, the op on GPUs. */
ParameterizedTest(py_n_t *p, python, gpu, .timeout = 3 * PY_TIMEOUT)
{
    require_gpus(p->n);
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_torch", "cuda");
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_cuda", "");
    run_pe_py("numpy, torch", "GSHMEM_HEAP=cuda", p->n, "pe_py_dlrm", "cuda");
}

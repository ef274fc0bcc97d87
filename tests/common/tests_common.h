/* tests_common.h: helpers of the Criterion drivers that launch PE programs. */
#ifndef GSHMEM_TESTS_COMMON_H
#define GSHMEM_TESTS_COMMON_H

#include <stddef.h>
#include <stdio.h>

typedef struct test_run {
    int status;        /* exit status (0..255), or 128+signal, -1: not run */
    double seconds;    /* wall time */
    char *output;      /* stdout and stderr together, NUL-terminated (malloc) */
} test_run_t;

/* Run a shell command line with extra environment "A=1 B=2 ..." (may be
 * NULL), killing it after timeout_s. Returns its status, output and time.
 * Paths: "%B" in cmd is replaced by the build directory. The suite's
 * programs are host programs: unless env or cmd names GSHMEM_HEAP, the
 * command runs with GSHMEM_HEAP=host (auto would give a CUDA heap on a GPU
 * machine). */
/* The build folder the tests run (GSHMEM_TEST_BUILD_DIR, else CMake's). */
const char *test_build_dir(void);
/* cmd with every %B spelled out as test_build_dir() (malloc'd). */
char *test_expand_build(const char *cmd);
test_run_t test_run(const char *env, const char *cmd, int timeout_s);
/* The same with no GSHMEM_* variable but those of env: the caller's are
 * unset and GSHMEM_HEAP gets no default (what a user's shell gives). */
test_run_t test_run_bare(const char *env, const char *cmd, int timeout_s);
void test_run_free(test_run_t *r);

/* The last TEST_TAIL_MAX bytes of r's output, for assertion messages:
 * Criterion's runner hangs on very large messages, and the end of a log
 * is where the cause is. */
#define TEST_TAIL_MAX 3000
const char *test_tail(const test_run_t *r);

/* gshmemrun -n n <build>/tests/pe/<prog> args, under the transport
 * settings of tp: "shm", "ofi-shm" (ofi, provider shm), "ofi-tcp"
 * (ofi, tcp;ofi_rxm on loopback). */
test_run_t test_run_pes(const char *tp, int n, const char *prog, const char *args,
                        int timeout_s);
/* The same under the environment env (may be NULL). */
test_run_t test_run_env_pes(const char *env, int n, const char *prog, const char *args,
                            int timeout_s);
/* A conformance run of prog at n PEs passes when it exited 0 and its
 * output holds "<prog>: OK" (PE 0's last line) and, unless NULL, must_have:
 * Criterion expectations naming prog, what (e.g. the transport) and n,
 * with the end of the output. Frees r's output. */
void test_expect_ok(test_run_t *r, const char *prog, const char *what, int n,
                    const char *must_have);
/* prog at 2 and 4 PEs under env: test_expect_ok on each run. */
void test_expect_ok_2_4(const char *env, const char *what, const char *prog, int timeout_s);

/* pe_api_mem's exhaustion case asks for 1 TiB: its log names the size. */
#define TEST_API_MEM_LOG "1099511627776"
/* Iterations of pe_api_order's litmus tests over tp (test_tp_env's
 * names): many over shm, fewer over ofi. */
const char *test_order_iters(const char *tp);
/* pe_api_ctx's mode over tp: "isolated" where the transport gives each
 * context a channel of its own (ofi's RMA path), else "shared". */
const char *test_ctx_mode(const char *tp);

/* Host-heap runs of ofi's active messages (GSHMEM_OFI_AM): 256 KiB
 * messages, not the default 1 MiB. ofi_rxm keeps eager buffers of one
 * message each: at 1 MiB a PE of a 4-PE run peaks at 5.4 GB (1.4 GB at
 * 256 KiB), and two such tests at once were OOM-killed on a 23 GB machine.
 * GPU runs keep the default. */
#define TEST_AM_HOST_CHUNK "GSHMEM_OFI_AM_CHUNK=256K"
/* ofi's active messages over tcp;ofi_rxm on loopback, for host heaps. */
#define TEST_AM_HOST_ENV "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_AM=1 "                 \
                         "GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=lo "     \
                         TEST_AM_HOST_CHUNK

/* 1 when the mpi / pmix bootstrap is built in. */
#ifdef GSHMEM_HAVE_MPI
#define TEST_HAVE_MPI 1
#else
#define TEST_HAVE_MPI 0
#endif
#ifdef GSHMEM_HAVE_PMIX
#define TEST_HAVE_PMIX 1
#else
#define TEST_HAVE_PMIX 0
#endif

/* <mpiexec> -np n <build>/tests/pe/<prog> args on loopback, with each
 * "VAR=value" of xenv (space-separated, no spaces in values) passed as
 * -x 'VAR=value'; single quotes in xenv are dropped, so that
 * test_tp_env(tp) may be part of it. Skips the calling test when no
 * mpiexec was found at configure time. */
test_run_t test_run_mpirun(int n, const char *xenv, const char *prog, const char *args,
                           int timeout_s);
/* The same with each rank started through via (a command line ahead of the
 * program, e.g. "env -u VAR"; "" for none). */
test_run_t test_run_mpirun_via(int n, const char *xenv, const char *via, const char *prog,
                               const char *args, int timeout_s);

/* Environment for a transport variant (static string). */
const char *test_tp_env(const char *tp);

/* How many times needle occurs in hay (non-overlapping). */
int test_count_of(const char *hay, const char *needle);

/* ---- Criterion helpers (skip or fail the calling test) ---------------- */

/* A note in the test's output (a retry, a relaxed bound on a loaded
 * machine): "[NOTE] <text>" on stderr, one line. Not cr_log_warn: every
 * Criterion warning makes the run exit non-zero with all tests passing. */
void test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Skips the calling test, "no CUDA build: <path> does not exist (configure
 * with -DGSHMEM_ENABLE_CUDA=ON)", when <build>/<rel> was not built. */
void test_require_built(const char *rel);

/* Skips the calling test in a sanitizer build: python3 cannot load an
 * ASan libgshmem (the ASan runtime must come first). */
void test_skip_if_sanitized(void);
/* Skips in sanitizer builds, saying why (CI's time: the run repeats, with
 * more PEs or another launcher, what other tests run under the sanitizers). */
void test_skip_in_sanitizer(const char *why);

/* The first python3 (PATH, then /usr/bin) that imports mods ("numpy",
 * "numpy, torch"), or skips the calling test naming them; skips in a
 * sanitizer build too. */
const char *test_python_with(const char *mods);

/* Runs cmd (test_run's form, %B the build folder) as a probe: status 77
 * skips the calling test with skip_prefix and the reason the command
 * printed after "SKIP: "; any other status but 0 fails it. */
void test_require_cmd(const char *cmd, int timeout_s, const char *skip_prefix);

/* Runs "<build>/<rel> <args>" (a probe that decides in its own process,
 * so the test driver never starts CUDA itself): status 77 skips the
 * calling test with skip_prefix and the reason the program printed after
 * "SKIP: "; any other status but 0 fails it. */
void test_require_probe(const char *rel, const char *args, const char *skip_prefix);

/* Both for <build>/<rel>: skips without a CUDA build, then
 * "no CUDA device: <reason>" when "<rel> <probe_args>" exits 77. */
void test_require_gpu_at(const char *rel, const char *probe_args);

/* test_require_gpu_at("tests/pe/<probe_prog>", probe_args). */
void test_require_gpu(const char *probe_prog, const char *probe_args);

/* Capture of what is written to fd 2 between test_cap_start and
 * test_cap_end (which returns it, NUL-terminated, malloc'd). */
typedef struct test_cap {
    int saved;
    FILE *f;
} test_cap_t;
void test_cap_start(test_cap_t *c);
char *test_cap_end(test_cap_t *c);

#endif

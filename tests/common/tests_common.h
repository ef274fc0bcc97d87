/* tests_common.h: helpers of the Criterion drivers that launch PE programs. */
#ifndef GSHMEM_TESTS_COMMON_H
#define GSHMEM_TESTS_COMMON_H

#include <stddef.h>

typedef struct test_run {
    int status;        /* exit status (0..255), or 128+signal, -1: not run */
    double seconds;    /* wall time */
    char *output;      /* stdout and stderr together, NUL-terminated (malloc) */
} test_run_t;

/* Run a shell command line with extra environment "A=1 B=2 ..." (may be
 * NULL), killing it after timeout_s. Returns its status, output and time.
 * Paths: "%B" in cmd is replaced by the build directory. */
test_run_t test_run(const char *env, const char *cmd, int timeout_s);
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

/* Environment for a transport variant (static string). */
const char *test_tp_env(const char *tp);

#endif

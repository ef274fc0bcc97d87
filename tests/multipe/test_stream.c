/* test_stream: the host on-stream API (gshmemx.h) through the PE programs
 * of tests/gpu (pe_stream, pe_stream_static, pe_stream_c, pe_stream_ce:
 * the copy-engine / SM-store paths, also over the queue path) under gshmemrun
 * with GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p. Skipped, with the reason,
 * when gshmem was built without CUDA (the programs do not exist) or the
 * machine has no GPU ("<prog> probe" decides in its own process: this
 * driver never starts CUDA itself). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define STREAM_TIMEOUT_S 240
#define STREAM_ENV "GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p"

/* Runs prog at n PEs; every PE must print "<okname>: OK (PE ". */
static test_run_t stream_run(const char *prog, const char *okname, int n)
{
    char cmd[512], ok[128];

    test_require_gpu(prog, "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/tests/pe/%s",
             n, STREAM_TIMEOUT_S, prog);
    test_run_t r = test_run(STREAM_ENV, cmd, STREAM_TIMEOUT_S + 15);
    snprintf(ok, sizeof ok, "%s: OK (PE ", okname);
    cr_assert(r.status == 0 && test_count_of(r.output, ok) == n,
              "%s at %d PEs: status %d after %.1f s, %d of %d OK lines; output (end):\n%s", prog,
              n, r.status, r.seconds, test_count_of(r.output, ok), n, test_tail(&r));
    return r;
}

/* pe_stream: also the refused collective launch, logged with the numbers
 * the program announced ("want-log: <phrase>"). */
static void stream_full(const char *prog, int n)
{
    test_run_t r = stream_run(prog, "pe_stream", n);
    const char *w = strstr(r.output, "want-log: ");
    cr_assert(w != NULL, "%s: no want-log line; output (end):\n%s", prog, test_tail(&r));
    char phrase[256];
    snprintf(phrase, sizeof phrase, "%s", w + strlen("want-log: "));
    phrase[strcspn(phrase, "\n")] = '\0';
    /* every PE announces it and logs it */
    cr_assert(test_count_of(r.output, phrase) >= 2 * n,
              "%s: \"%s\" appears %d times, want the log line besides each announcement; "
              "output (end):\n%s", prog, phrase, test_count_of(r.output, phrase), test_tail(&r));
    cr_assert(strstr(r.output, "graph: ") != NULL, "%s: no graph line:\n%s", prog, test_tail(&r));
    test_run_free(&r);
}

/* pe_stream_ce (the copy-engine and SM-store paths on both sides of the
 * threshold) in mode p2p or queue at n PEs under env; the INFO line of the
 * paths (GSHMEM_INFO=1 in env) must hold info on every PE. */
static void stream_ce(const char *env, const char *mode, int n, const char *info)
{
    char cmd[512], full[512];

    test_require_gpu("pe_stream_ce", "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/tests/pe/pe_stream_ce %s", n, STREAM_TIMEOUT_S, mode);
    snprintf(full, sizeof full, "%s GSHMEM_INFO=1", env);
    test_run_t r = test_run(full, cmd, STREAM_TIMEOUT_S + 15);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_stream_ce: OK (PE ") == n,
              "pe_stream_ce %s at %d PEs: status %d after %.1f s, %d of %d OK lines; output "
              "(end):\n%s", mode, n, r.status, r.seconds,
              test_count_of(r.output, "pe_stream_ce: OK (PE "), n, test_tail(&r));
    cr_assert(test_count_of(r.output, info) == n,
              "pe_stream_ce %s: \"%s\" appears %d times, want once per PE (%d); output "
              "(end):\n%s", mode, info, test_count_of(r.output, info), n, test_tail(&r));
    test_run_free(&r);
}

/* every PE mapped: copies from 1M (the program also forces 0, 1 and 64K) */
Test(gpu_stream, ce_paths_n2)
{
    stream_ce(STREAM_ENV " GSHMEM_STREAM_CE_MIN=1M", "p2p", 2,
              "to the 2 of 2 PEs mapped here (P2P peers, this PE) copy engines "
              "(cudaMemcpyAsync) from 1048576 bytes");
}
Test(gpu_stream, ce_paths_n4)
{
    stream_ce(STREAM_ENV " GSHMEM_STREAM_CE_MIN=0", "p2p", 4,
              "to the 4 of 4 PEs mapped here (P2P peers, this PE) copy engines "
              "(cudaMemcpyAsync) never (GSHMEM_STREAM_CE_MIN=0)");
}
/* P2P off: the other PE takes the device queue path (engine, ofi over shm),
 * whatever the threshold */
Test(gpu_stream, ce_paths_queue_n2)
{
    stream_ce("GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi "
              "GSHMEM_OFI_PROVIDER=shm GSHMEM_TIMEOUT=200", "queue", 2,
              "PEs mapped here (P2P peers, this PE) copy engines (cudaMemcpyAsync) from "
              "262144 bytes");
}

/* A misuse must fail the run and print want and want2 (NULL: only want).
 * no_init and host_heap fail before any CUDA call: they need no GPU. */
static void stream_misuse(const char *mode, const char *env, const char *want, const char *want2)
{
    char cmd[512];

    if (strcmp(mode, "no_init") == 0 || strcmp(mode, "host_heap") == 0)
        test_require_built("tests/pe/pe_stream_c");
    else
        test_require_gpu("pe_stream_c", "probe");
    if (strcmp(mode, "no_init") == 0)
        snprintf(cmd, sizeof cmd, "%%B/tests/pe/pe_stream_c %s", mode);
    else
        snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n 2 --timeout 60 "
                 "%%B/tests/pe/pe_stream_c %s", mode);
    test_run_t r = test_run(env, cmd, 75);
    cr_assert(r.status != 0 && strstr(r.output, want) != NULL &&
              (want2 == NULL || strstr(r.output, want2) != NULL),
              "pe_stream_c %s: status %d (want non-zero) and \"%s\" / \"%s\" in the "
              "output:\n%s", mode, r.status, want, want2 ? want2 : "", test_tail(&r));
    test_run_free(&r);
}

Test(gpu_stream, full_n2) { stream_full("pe_stream", 2); }
Test(gpu_stream, full_n4) { stream_full("pe_stream", 4); }
Test(gpu_stream, static_cudart_n2) { stream_full("pe_stream_static", 2); }

Test(gpu_stream, c_program_n2)
{
    test_run_t r = stream_run("pe_stream_c", "pe_stream_c", 2);
    test_run_free(&r);
}

Test(gpu_stream, err_no_init)
{
    stream_misuse("no_init", STREAM_ENV, "gshmemx_quiet_on_stream: called before gshmem_init",
                  NULL);
}
Test(gpu_stream, err_bad_pe)
{
    stream_misuse("bad_pe", STREAM_ENV, "gshmemx_putmem_on_stream: invalid PE 2 (n_pes 2)", NULL);
}
Test(gpu_stream, err_bad_addr)
{
    /* cudaMalloc'd memory: named as GPU memory outside the heap (issue 19) */
    stream_misuse("bad_addr", STREAM_ENV, "gshmemx_putmem_on_stream: dest ",
                  "(8 bytes) is GPU memory outside the symmetric heap");
}
Test(gpu_stream, err_bad_cmp)
{
    stream_misuse("bad_cmp", STREAM_ENV, "gshmemx_signal_wait_until_on_stream: invalid cmp 99",
                  NULL);
}
Test(gpu_stream, err_bad_sig_op)
{
    stream_misuse("bad_sig_op", STREAM_ENV, "gshmemx_putmem_signal_on_stream: invalid sig_op 7",
                  NULL);
}
/* P2P off: PE 0's host puts to and gets from its own heap while its legacy
 * default stream waits for PE 1's signal over the queue path (the self
 * copies were synchronous copies on the legacy stream: they waited for that
 * stream and held back the engine's copies, a hang) */
Test(gpu_stream, legacy_self_copies_queue_n2)
{
    test_require_gpu("pe_stream_c", "probe");
    test_run_t r = test_run("GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi "
                            "GSHMEM_OFI_PROVIDER=shm",
                            "%B/tools/gshmemrun/gshmemrun -n 2 --timeout 30 "
                            "%B/tests/pe/pe_stream_c legacy_self", 45);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_stream_c legacy_self: OK (PE ") == 2,
              "status %d after %.1f s; output (end):\n%s", r.status, r.seconds, test_tail(&r));
    test_run_free(&r);
}

/* P2P off: the 64-byte put from cudaMalloc'd memory is delivered (it travels
 * in its queue entry), the 65-byte one is refused with the source named */
Test(gpu_stream, err_queue_source)
{
    stream_misuse("queue_src", "GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 "
                  "GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm",
                  "queue_src: 64-byte put from cudaMalloc'd memory delivered",
                  "(65 bytes) is neither symmetric nor registered");
}
Test(gpu_stream, err_host_heap)
{
    stream_misuse("host_heap", "GSHMEM_HEAP=host",
                  "gshmemx_barrier_all_on_stream: needs a CUDA heap", NULL);
}

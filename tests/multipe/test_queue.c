/* test_queue: the device API's queue path and its proxy engine (src/engine).
 *
 * queue/host_*: the engine over host-memory channels, driven by host threads
 * (tests/multipe/pe_queue_host.c) on a host heap over shm: runs everywhere
 * (host_globals: entries on global and static variables).
 * queue/gpu_*: the real thing (tests/gpu/pe_queue.cu) with GSHMEM_HEAP=cuda
 * GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1 (every remote device
 * call takes the queue path; the engine issues it through p2p), several
 * PEs on one GPU. Skipped, with the reason, without a CUDA build or GPU
 * ("pe_queue probe" decides in its own process).
 * queue/host_exit_without_finalize_ofi and gpu_exit_without_finalize_ofi:
 * the PEs call exit(0) without gshmem_finalize while the engine and ofi's
 * threads are busy (host: the host engine over ofi; gpu: a CUDA heap, the
 * queue path over ofi). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define Q_TIMEOUT_S 240
/* GSHMEM_TIMEOUT above the default 60 s: PE 0 times the queue path alone
 * while the others wait in a barrier, and on a GPU time-sliced with other
 * test programs (2-GPU machines, parallel jobs) that took over 60 s. */
#define Q_HEAP "GSHMEM_SYMMETRIC_SIZE=16M GSHMEM_TIMEOUT=200"
/* 16M - 8: where the malformed entries of the bad modes start */
#define Q_BAD_OFFSET "offset 16777208, size/value 16"
#define Q_GPU_ENV "GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1 " Q_HEAP
/* The network path as on a multi-node job: P2P off, the engine executes
 * through ofi, which stages the CUDA heap through host buffers. */
#define Q_OFI_ENV "GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi " Q_HEAP
#define Q_OFI_SHM_ENV Q_OFI_ENV " GSHMEM_OFI_PROVIDER=shm"
#define Q_OFI_TCP_ENV Q_OFI_ENV " GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=lo"

/* prog mode at n PEs under env; every PE prints "<prog>: OK (PE ". */
static test_run_t q_run(const char *env, const char *prog, const char *mode, int n)
{
    char cmd[512], ok[64];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/tests/pe/%s %s", n, Q_TIMEOUT_S, prog, mode);
    test_run_t r = test_run(env, cmd, Q_TIMEOUT_S + 15);
    snprintf(ok, sizeof ok, "%s: OK (PE ", prog);
    cr_assert(r.status == 0 && test_count_of(r.output, ok) == n,
              "%s %s at %d PEs: status %d after %.1f s, %d of %d OK lines; output (end):\n%s",
              prog, mode, n, r.status, r.seconds, test_count_of(r.output, ok), n, test_tail(&r));
    return r;
}

/* ---- host engine -------------------------------------------------------------- */

static void host_ops(int n)
{
    test_run_t r = q_run("GSHMEM_TRANSPORTS=shm " Q_HEAP, "pe_queue_host", "ops", n);
    test_run_free(&r);
}

Test(queue, host_ops_n2) { host_ops(2); }
Test(queue, host_ops_n4) { host_ops(4); }

/* The same over ofi's active messages on the host heap (what a CUDA heap
 * takes over the network, run without a GPU): puts sharing messages and
 * the engine's quiets that do not wait (quiet marks). */
#define Q_AM_ENV "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_AM=1 GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' " \
                 "FI_TCP_IFACE=lo " TEST_AM_HOST_CHUNK " " Q_HEAP
Test(queue, host_ops_ofi_am_n2)
{
    test_run_t r = q_run(Q_AM_ENV, "pe_queue_host", "ops", 2);
    test_run_free(&r);
}

Test(queue, host_ops_ofi_am_n4)
{
    test_run_t r = q_run(Q_AM_ENV, "pe_queue_host", "ops", 4);
    test_run_free(&r);
}

/* Entries on global and static variables: the engine accepts their window
 * offsets as remote ranges and the segments as local buffers. */
static void host_globals(int n)
{
    test_run_t r = q_run("GSHMEM_TRANSPORTS=shm " Q_HEAP, "pe_queue_host", "globals", n);
    test_run_free(&r);
}

Test(queue, host_globals_n2) { host_globals(2); }
Test(queue, host_globals_n4) { host_globals(4); }

/* Without the data segments the window is the 16 MiB heap alone. */
Test(queue, host_malformed_entry)
{
    test_run_t r = q_run("GSHMEM_TRANSPORTS=shm GSHMEM_SYMMETRIC_DATA=0 " Q_HEAP,
                         "pe_queue_host", "bad", 2);
    cr_assert(strstr(r.output, "rejected malformed entry on channel 0 slot 0 (entry 0): PUT "
                     "to PE 1, " Q_BAD_OFFSET) != NULL &&
              strstr(r.output, "is outside the 16777216-byte symmetric heap") != NULL &&
              strstr(r.output, "engine status -5 seen") != NULL,
              "no error line naming the entry, or no status seen:\n%s", test_tail(&r));
    test_run_free(&r);
}

Test(queue, host_drain_at_stop)
{
    test_run_t r = q_run("GSHMEM_TRANSPORTS=shm " Q_HEAP, "pe_queue_host", "drain", 3);
    test_run_free(&r);
}

/* ---- exit without gshmem_finalize ------------------------------------------------ */

/* prog's "exit" mode at n PEs under env: each PE calls exit(0) without
 * gshmem_finalize while the engine and the transport's threads are busy.
 * gshmemrun ends such a job (status 1, naming a PE that left without
 * finalize) and sends the PEs still running SIGTERM; a shell around each
 * PE that ignores SIGTERM (the PE itself keeps the default) reports the
 * PE's own exit status. Every PE must exit 0, say at DEBUG that its threads
 * were stopped at exit (the engine's among them, none still running), and
 * nothing may look like a crash; strict: nor like an error (where no PE's
 * traffic is in flight to another PE at exit: a PE whose puts go to a
 * peer that exits first may rightly report them failed). Without the
 * shell, as users run it: gshmemrun's status and message as for any PE
 * that leaves without finalize, and still no crash report. */
#define Q_EXIT_TIMEOUT_S 60
#define Q_EXIT_DEBUG "GSHMEM_DEBUG=DEBUG GSHMEM_DEBUG_SUBSYS=INIT,PROXY "
static const char *const q_exit_crash[] = {"check failed", "Segmentation fault", "core dumped",
                                           "Aborted", "driver shutting down",
                                           "was killed by signal", "still running", NULL};
static const char *const q_exit_error[] = {" gshmem ERROR ", " gshmem WARN ", NULL};

static void q_exit_expect_clean(const test_run_t *r, const char *what, int strict)
{
    for (const char *const *b = q_exit_crash; *b; b++)
        cr_expect(strstr(r->output, *b) == NULL, "%s: '%s' in the output (end):\n%s", what, *b,
                  test_tail(r));
    for (const char *const *b = q_exit_error; strict && *b; b++)
        cr_expect(strstr(r->output, *b) == NULL, "%s: '%s' in the output (end):\n%s", what, *b,
                  test_tail(r));
}

static void q_exit_run(const char *env, const char *prog, int n, int strict)
{
    char cmd[768], what[256];
    snprintf(what, sizeof what, "%s exit at %d PEs under %s", prog, n, env);
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d /bin/sh -c "
             "'trap : TERM; \"$0\" exit; echo \"q_exit: PE $GSHMEMRUN_PE exited with status $?\"' "
             "%%B/tests/pe/%s", n, Q_EXIT_TIMEOUT_S, prog);
    test_run_t r = test_run(env, cmd, Q_EXIT_TIMEOUT_S + 15);
    cr_expect(r.status == 1 && strstr(r.output, "without gshmem_finalize") != NULL,
              "%s: gshmemrun status %d after %.1f s (want 1, naming a PE that left without "
              "gshmem_finalize); output (end):\n%s", what, r.status, r.seconds, test_tail(&r));
    cr_expect(test_count_of(r.output, "exited with status 0") == n,
              "%s: %d of %d PEs exited with status 0; output (end):\n%s", what,
              test_count_of(r.output, "exited with status 0"), n, test_tail(&r));
    cr_expect(test_count_of(r.output, "threads stopped at exit: ") == n &&
              test_count_of(r.output, "engine thread stopped at exit") == n,
              "%s: %d and %d of %d PEs say their threads and their engine thread were stopped "
              "at exit; output (end):\n%s", what,
              test_count_of(r.output, "threads stopped at exit: "),
              test_count_of(r.output, "engine thread stopped at exit"), n, test_tail(&r));
    q_exit_expect_clean(&r, what, strict);
    test_run_free(&r);

    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/tests/pe/%s exit", n, Q_EXIT_TIMEOUT_S, prog);
    r = test_run(env, cmd, Q_EXIT_TIMEOUT_S + 15);
    cr_expect(r.status == 1 && strstr(r.output, "without gshmem_finalize") != NULL,
              "%s, no shell: gshmemrun status %d (want 1, naming a PE that left without "
              "gshmem_finalize); output (end):\n%s", what, r.status, test_tail(&r));
    q_exit_expect_clean(&r, what, strict);
    test_run_free(&r);
}

/* The host engine over ofi (host heap, loopback): its thread and ofi's
 * progress thread at work when the PEs call exit(0). */
Test(queue, host_exit_without_finalize_ofi, .timeout = 4 * Q_EXIT_TIMEOUT_S + 60)
{
    q_exit_run(Q_EXIT_DEBUG "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' "
               "FI_TCP_IFACE=lo " Q_HEAP, "pe_queue_host", 2, 1);
    q_exit_run(Q_EXIT_DEBUG "GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm " Q_HEAP,
               "pe_queue_host", 3, 1);
}

/* ---- GPU ------------------------------------------------------------------------- */

static void gpu_ops_with(const char *env, int n)
{
    test_require_gpu("pe_queue", "probe");
    test_run_t r = q_run(env, "pe_queue", "ops", n);
    cr_assert(test_count_of(r.output, "0 violations") == 4 * n, "litmus lines missing:\n%s",
              test_tail(&r));
    const char *perf = strstr(r.output, "pe_queue: perf");
    if (perf != NULL)
        cr_log_info("%.*s", (int)strcspn(perf, "\n"), perf);
    test_run_free(&r);
}

static void gpu_ops(int n)
{
    gpu_ops_with(Q_GPU_ENV, n);
}

Test(queue, gpu_ops_n2, .timeout = Q_TIMEOUT_S + 30) { gpu_ops(2); }
Test(queue, gpu_ops_n4, .timeout = Q_TIMEOUT_S + 30) { gpu_ops(4); }
Test(queue, gpu_ops_ofi_shm_n2, .timeout = Q_TIMEOUT_S + 30) { gpu_ops_with(Q_OFI_SHM_ENV, 2); }
Test(queue, gpu_ops_ofi_shm_n4, .timeout = Q_TIMEOUT_S + 30) { gpu_ops_with(Q_OFI_SHM_ENV, 4); }
Test(queue, gpu_ops_ofi_tcp_n2, .timeout = Q_TIMEOUT_S + 30) { gpu_ops_with(Q_OFI_TCP_ENV, 2); }

/* Atomics from PE 0 alone, all to PE 1 (what compute-sanitizer runs of
 * them: scripts/gpu-queue.sh): totals and fetched values checked. */
Test(queue, gpu_amo1_ofi, .timeout = 2 * Q_TIMEOUT_S + 30)
{
    test_require_gpu("pe_queue", "probe");
    const char *envs[] = {Q_OFI_SHM_ENV, Q_OFI_TCP_ENV, Q_GPU_ENV};
    for (int i = 0; i < 3; i++) {
        test_run_t r = q_run(envs[i], "pe_queue", "amo1", 2);
        cr_assert(test_count_of(r.output, "amo1 passed") == 2, "amo1 lines missing (%s):\n%s",
                  envs[i], test_tail(&r));
        test_run_free(&r);
    }
}

Test(queue, gpu_malformed_entry, .timeout = Q_TIMEOUT_S + 30)
{
    test_require_gpu("pe_queue", "probe");
    test_run_t r = q_run(Q_GPU_ENV, "pe_queue", "bad", 2);
    cr_assert(strstr(r.output, "rejected malformed entry on channel 0 slot 0 (entry 0): PUT "
                     "to PE 1, " Q_BAD_OFFSET) != NULL &&
              strstr(r.output, "device saw queue status -5") != NULL,
              "no error line naming the entry, or the device did not see the status:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* The queue path over ofi as on a multi-node job (P2P off, ofi alone:
 * active messages with their rail threads, the engine, the aggregator's
 * service thread), a CUDA heap: the PEs call exit(0) with puts to their
 * right neighbour in flight (not strict: that neighbour may exit first).
 * Before the fix a thread called into the CUDA runtime while its exit
 * handler tore it down ("driver shutting down" from cudaGetDevice, then a
 * crash). Three times over each provider: that crash did not come every
 * time. */
#define Q_EXIT_GPU_ENV Q_EXIT_DEBUG "GSHMEM_HEAP=cuda GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=ofi " \
                       Q_HEAP
Test(queue, gpu_exit_without_finalize_ofi, .timeout = 12 * Q_EXIT_TIMEOUT_S + 60)
{
    test_require_gpu("pe_queue", "probe");
    for (int i = 0; i < 3; i++) {
        q_exit_run(Q_EXIT_GPU_ENV " GSHMEM_OFI_PROVIDER=shm", "pe_queue", 2, 0);
        q_exit_run(Q_EXIT_GPU_ENV " GSHMEM_OFI_PROVIDER='tcp;ofi_rxm' FI_TCP_IFACE=lo",
                   "pe_queue", 2, 0);
    }
}

Test(queue, gpu_drain_at_finalize, .timeout = Q_TIMEOUT_S + 30)
{
    test_require_gpu("pe_queue", "probe");
    test_run_t r = q_run(Q_GPU_ENV, "pe_queue", "drain", 2);
    test_run_free(&r);
}

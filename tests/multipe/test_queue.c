/* test_queue: the device API's queue path and its proxy engine (src/engine).
 *
 * queue/host_*: the engine over host-memory channels, driven by host threads
 * (tests/multipe/pe_queue_host.c) on a host heap over shm: runs everywhere
 * (host_globals: entries on global and static variables).
 * queue/gpu_*: the real thing (tests/gpu/pe_queue.cu) with GSHMEM_HEAP=cuda
 * GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1 (every remote device
 * call takes the queue path; the engine issues it through p2p), several
 * PEs on one GPU. Skipped, with the reason, without a CUDA build or GPU
 * ("pe_queue probe" decides in its own process). */
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

Test(queue, gpu_drain_at_finalize, .timeout = Q_TIMEOUT_S + 30)
{
    test_require_gpu("pe_queue", "probe");
    test_run_t r = q_run(Q_GPU_ENV, "pe_queue", "drain", 2);
    test_run_free(&r);
}

/* test_agg_gpu: the aggregator from kernels (tests/gpu/pe_agg.cu) over the
 * queue path (GSHMEM_DEVICE_QUEUE_ONLY=1: device SQ -> engine -> p2p
 * copies; and P2P off: the engine through ofi, as between nodes), and with
 * direct stores to P2P peers (the default bypass). Skipped, with the
 * reason, without a CUDA build or GPU ("pe_agg probe" decides in its own
 * process). scripts/gpu-agg.sh runs the same programs on the GPU machine. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define AG_TIMEOUT_S 180
/* GSHMEM_TIMEOUT above the default 60 s: at 4 PEs on a 2-GPU machine two
 * processes share each GPU and a back-pressure round takes about 35 s. */
#define AG_HEAP "GSHMEM_HEAP=cuda GSHMEM_SYMMETRIC_SIZE=512M GSHMEM_TIMEOUT=150 "
#define AG_QUEUE AG_HEAP "GSHMEM_TRANSPORTS=p2p GSHMEM_DEVICE_QUEUE_ONLY=1"
#define AG_OFI AG_HEAP "GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm"
#define AG_P2P AG_HEAP "GSHMEM_TRANSPORTS=p2p"

static test_run_t ag_run(const char *env, const char *args, int n, int want_ok)
{
    char cmd[512];
    test_require_gpu("pe_agg", "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/tests/pe/pe_agg "
             "%s", n, AG_TIMEOUT_S, args);
    test_run_t r = test_run(env, cmd, AG_TIMEOUT_S + 15);
    if (want_ok)
        cr_assert(r.status == 0 && test_count_of(r.output, "pe_agg: OK (PE ") == n,
                  "pe_agg %s at %d PEs: status %d after %.1f s; output (end):\n%s", args, n,
                  r.status, r.seconds, test_tail(&r));
    return r;
}

static void ag_stress(const char *env, const char *args, int n)
{
    test_run_t r = ag_run(env, args, n, 1);
    cr_expect(test_count_of(r.output, "checked") == 2 * n, "round lines missing:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* 64 blocks x 128 threads x 64 records of 4..256 B, random PEs, 2 rounds. */
#define AG_STRESS "stress 64 128 64 16384 4 0"
Test(agg_gpu, stress_queue_n2, .timeout = AG_TIMEOUT_S + 30) { ag_stress(AG_QUEUE, AG_STRESS, 2); }
Test(agg_gpu, stress_queue_n4, .timeout = AG_TIMEOUT_S + 30) { ag_stress(AG_QUEUE, AG_STRESS, 4); }
/* the warp form in half the blocks; small buffers, one per destination */
Test(agg_gpu, warp_back_pressure_n4, .timeout = AG_TIMEOUT_S + 30)
{
    ag_stress(AG_QUEUE, "stress 16 128 32 1024 1 1", 4);
}
Test(agg_gpu, stress_ofi_n2, .timeout = AG_TIMEOUT_S + 30)
{
    ag_stress(AG_OFI, "stress 16 128 32 16384 4 1", 2);
}
Test(agg_gpu, stress_p2p_bypass_n2, .timeout = AG_TIMEOUT_S + 30)
{
    ag_stress(AG_P2P, AG_STRESS, 2);
}

/* One record, producer idle: applied after max_wait (20 ms), within 200 ms. */
Test(agg_gpu, time_flush, .timeout = AG_TIMEOUT_S + 30)
{
    test_run_t r = ag_run(AG_QUEUE, "timeflush 20000", 2, 1);
    const char *line = strstr(r.output, "time-flush:");
    cr_assert(line != NULL, "no measurement:\n%s", test_tail(&r));
    cr_log_info("%.*s", (int)strcspn(line, "\n"), line);
    test_run_free(&r);
}

static void ag_bad(const char *mode, const char *want)
{
    test_run_t r = ag_run(AG_QUEUE, mode, 2, 0);
    cr_assert(r.status != 0 && strstr(r.output, want) != NULL &&
              strstr(r.output, "pe_agg: kernel failed as expected") != NULL,
              "pe_agg %s: status %d (want non-zero) and \"%s\" in:\n%s", mode, r.status, want,
              test_tail(&r));
    test_run_free(&r);
}

Test(agg_gpu, bad_size, .timeout = AG_TIMEOUT_S + 30)
{
    ag_bad("bad_size", "gshmem_agg_store: a record of 1024 bytes to PE 1 does not fit a buffer "
           "(1 .. 1016 payload bytes with 1024-byte buffers)");
}

Test(agg_gpu, bad_pe, .timeout = AG_TIMEOUT_S + 30)
{
    ag_bad("bad_pe", "gshmem_agg_store: invalid PE 2 (n_pes 2)");
}

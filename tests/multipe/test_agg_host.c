/* test_agg_host: the aggregator's runtime in host mode (tests/agg/pe_agg_host.c):
 * host threads store through the same protocol, rings, proxy engine and
 * service thread as kernels do on the GPU path, on a host heap over shm.
 * Runs everywhere (no GPU). The GPU path itself: test_agg_gpu.c. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define AH_TIMEOUT_S 150
#define AH_ENV "GSHMEM_TRANSPORTS=shm GSHMEM_SYMMETRIC_SIZE=64M"

static test_run_t ah_run(const char *args, int n)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/tests/pe/pe_agg_host %s", n, AH_TIMEOUT_S, args);
    test_run_t r = test_run(AH_ENV, cmd, AH_TIMEOUT_S + 15);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_agg_host: OK (PE ") == n,
              "pe_agg_host %s at %d PEs: status %d after %.1f s; output (end):\n%s", args, n,
              r.status, r.seconds, test_tail(&r));
    return r;
}

static void ah_stress(const char *args, int n)
{
    test_run_t r = ah_run(args, n);
    const char *line = strstr(r.output, "pe_agg_host: stress");
    if (line != NULL)
        cr_log_info("%.*s", (int)strcspn(line, "\n"), line);
    test_run_free(&r);
}

/* Many threads, random records of 4..256 B to random PEs, two rounds over
 * the same places; final memory == the serial reference on every PE. */
Test(agg_host, stress_n2, .timeout = AH_TIMEOUT_S + 30) { ah_stress("stress 8 3000 4096 4", 2); }
Test(agg_host, stress_n4, .timeout = AH_TIMEOUT_S + 30) { ah_stress("stress 8 2000 4096 4", 4); }
/* Small buffers, one per destination: producers wait on full rings and
 * help drain (exactly once: the receive claim). */
Test(agg_host, back_pressure_n4, .timeout = AH_TIMEOUT_S + 30)
{
    ah_stress("stress 8 1500 512 1", 4);
}
Test(agg_host, large_buffers_n3, .timeout = AH_TIMEOUT_S + 30)
{
    ah_stress("stress 4 4000 65536 2", 3);
}

/* One record, producer idle: arrives after max_wait (20 ms), within 300 ms. */
Test(agg_host, time_flush, .timeout = AH_TIMEOUT_S + 30)
{
    test_run_t r = ah_run("timeflush 20000", 2);
    const char *line = strstr(r.output, "time-flush:");
    cr_assert(line != NULL, "no measurement:\n%s", test_tail(&r));
    cr_log_info("%.*s", (int)strcspn(line, "\n"), line);
    test_run_free(&r);
}

Test(agg_host, bad_input, .timeout = AH_TIMEOUT_S + 30)
{
    test_run_t r = ah_run("bad", 3);
    static const char *const want[] = {
        "gshmem_agg_store: a record of 1024 bytes to PE 1 does not fit a buffer (1 .. 1016 "
        "payload bytes with 1024-byte buffers)",
        "gshmem_agg_store: invalid PE 3 (n_pes 3)",
        "is not inside the symmetric heap",
        "gshmem_agg_create: buf_bytes 12 (attr or GSHMEM_AGG_BYTES) must be a multiple of 8",
        "gshmem_agg_create: PEs differ: PE 0 has buf_bytes 1024",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(r.output, want[i]) != NULL, "no \"%s\" in:\n%s", want[i],
                  test_tail(&r));
    test_run_free(&r);
}

Test(agg_host, needs_cuda_heap, .timeout = AH_TIMEOUT_S + 30)
{
    test_run_t r = ah_run("nocuda", 2);
    cr_expect(test_count_of(r.output, "gshmem_agg_create: the aggregator is a device API and "
                            "needs a CUDA heap (GSHMEM_HEAP=cuda)") == 2,
              "no reason named:\n%s", test_tail(&r));
    test_run_free(&r);
}

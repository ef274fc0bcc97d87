/* test_app_common: apps/common (timing statistics over PEs, the host
 * all-gather, NCCL loading errors) through pe_app_common at 1, 2 and 4 PEs
 * over shm. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

Test(app_common, stats_and_nccl_errors, .timeout = 120)
{
    static const int pes[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_pes("shm", pes[i], "pe_app_common", "", 60);
        cr_expect(r.status == 0 && strstr(r.output, "pe_app_common: OK") != NULL,
                  "pe_app_common with %d PEs: exit status %d (want 0 and 'pe_app_common: OK'); "
                  "output (end):\n%s", pes[i], r.status, test_tail(&r));
        test_run_free(&r);
    }
}

/* The NCCL calls against real NCCL, on GPUs (GSHMEM_HEAP=cuda): skipped with
 * the reason without a CUDA build, a GPU or a loadable NCCL. */
static void nccl_gpu(int n)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "probe %d", n);
    test_require_gpu_at("tests/pe/pe_app_nccl", cmd);
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout 120 "
             "%%B/tests/pe/pe_app_nccl", n);
    test_run_t r = test_run("GSHMEM_HEAP=cuda NCCL_NVLS_ENABLE=0", cmd, 140);
    cr_expect(r.status == 0 && test_count_of(r.output, "pe_app_nccl: OK (PE ") == n,
              "pe_app_nccl with %d PEs: exit status %d, %d of %d OK lines; output (end):\n%s",
              n, r.status, test_count_of(r.output, "pe_app_nccl: OK (PE "), n, test_tail(&r));
    test_run_free(&r);
}

Test(app_common, nccl_gpu_n2, .timeout = 160) { nccl_gpu(2); }
Test(app_common, nccl_gpu_n4, .timeout = 160) { nccl_gpu(4); }

/* test_p2p.c: the p2p transport (CUDA IPC between the GPU heaps of one
 * node) through the PE program pe_p2p under gshmemrun. Skipped, with the
 * reason, when gshmem has no CUDA or the machine no GPU: "pe_p2p probe"
 * decides, in its own process (this driver never starts CUDA itself). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

static void p2p_check(const char *env, int n, const char *mode)
{
    char cmd[512], want[64];

    test_require_gpu("pe_p2p", "probe");
    snprintf(cmd, sizeof cmd,
             "%%B/tools/gshmemrun/gshmemrun -n %d --timeout 120 %%B/tests/pe/pe_p2p %s", n, mode);
    test_run_t r = test_run(env, cmd, 135);
    snprintf(want, sizeof want, "pe_p2p: OK (PE ");
    cr_assert_eq(r.status, 0, "-n %d %s: status %d, output:\n%s", n, mode, r.status, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, want), n, "-n %d %s: expected %d \"%s\" lines:\n%s", n,
                 mode, n, want, test_tail(&r));
    test_run_free(&r);
}

Test(p2p, n2) { p2p_check(NULL, 2, "full"); }
Test(p2p, n4) { p2p_check(NULL, 4, "full"); }
Test(p2p, disabled_n2) { p2p_check("GSHMEM_DISABLE_P2P=1", 2, "disabled"); }

/* test_intrude.c: a process outside the job cannot write into a PE's heap
 * over ofi's tcp;ofi_rxm, the provider with no authentication at all. The
 * job binds to loopback (all its PEs on this node, no interface chosen);
 * the intruder (intruder.c) is given PE 0's endpoint and the heap's layout
 * and tries the keys a sequential key would have and random ones: with
 * fi_write on the RMA path, with forged active messages that say they come
 * from PE 1 on the active-message path. The victim (pe_heap_guard) checks
 * every byte of its first allocation afterwards. Before random keys and
 * the key in every message, both attacks landed (the heap's key was 1). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

int gshmemi_rmtree(const char *path);

static void intrude(const char *mode)
{
    char base[64] = "/tmp/gshmem-intrude-test-XXXXXX", cmd[512];
    cr_assert_not_null(mkdtemp(base));
    snprintf(cmd, sizeof cmd, "sh %s/tests/multipe/intrude.sh %%B/tools/gshmemrun/gshmemrun "
             "%%B/tests/pe/pe_heap_guard %%B/tests/intruder %s %s", GSHMEM_SOURCE_DIR, base,
             mode);
    test_run_t r = test_run("", cmd, 120);
    cr_expect(strstr(r.output, "endpoint 127.0.0.1:") != NULL,
              "%s: PE 0 should listen on loopback only:\n%s", mode, test_tail(&r));
    cr_expect(strstr(r.output, "intruder: ") && strstr(r.output, " sent, "),
              "%s: the intruder did not run:\n%s", mode, test_tail(&r));
    cr_expect(strstr(r.output, "pe_heap_guard: heap intact (") != NULL,
              "%s: the heap was written from outside the job:\n%s", mode, test_tail(&r));
    cr_expect(strstr(r.output, "job status 0\n") != NULL, "%s: the job failed:\n%s", mode,
              test_tail(&r));
    if (strcmp(mode, "am") == 0)
        cr_expect(strstr(r.output, "does not carry PE 1's key: it does not come from this job"),
                  "am: the forged messages should be named and dropped:\n%s", test_tail(&r));
    test_run_free(&r);
    gshmemi_rmtree(base);
}

Test(intrude, rma_write_with_guessed_keys, .timeout = 180) { intrude("rma"); }

Test(intrude, forged_active_messages, .timeout = 180)
{
#ifndef GSHMEM_HAVE_CUDA
    cr_skip_test("the active-message path is built with CUDA only");
#endif
    intrude("am");
}

/* test_ctx: communication contexts (pe_api_ctx) at 2 and 4 PEs over shm,
 * ofi with the shm provider, ofi with tcp;ofi_rxm on loopback and ofi's
 * active messages: values through contexts, isolation of a context's quiet
 * from the others' operations where the transport gives each context its
 * own channel (ofi's RMA path: "isolated"; the others share one:
 * "shared"), destroy and finalize completing a context, threads on shared
 * and private contexts. The misuse of contexts (destroyed, foreign,
 * GSHMEM_CTX_INVALID) is in test_teams.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define CTX_TIMEOUT_S 120

static void ctx_ok(const char *env, const char *what, const char *mode)
{
    static const int pes[] = {2, 4};
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_env_pes(env, pes[i], "pe_api_ctx", mode, CTX_TIMEOUT_S);
        cr_expect(r.status == 0 && strstr(r.output, "pe_api_ctx: OK") != NULL,
                  "pe_api_ctx %s over %s with %d PEs: exit status %d after %.1f s; output "
                  "(end):\n%s", mode, what, pes[i], r.status, r.seconds, test_tail(&r));
        test_run_free(&r);
    }
}

Test(ctx, shm, .timeout = 400) { ctx_ok(test_tp_env("shm"), "shm", "shared"); }
Test(ctx, ofi_shm, .timeout = 400) { ctx_ok(test_tp_env("ofi-shm"), "ofi-shm", "isolated"); }
Test(ctx, ofi_tcp, .timeout = 400) { ctx_ok(test_tp_env("ofi-tcp"), "ofi-tcp", "isolated"); }
/* Active messages exist in CUDA builds; elsewhere GSHMEM_OFI_AM has no
 * effect and ofi takes its RMA path. */
Test(ctx, ofi_am_tcp, .timeout = 400)
{
#ifdef GSHMEM_HAVE_CUDA
    ctx_ok(TEST_AM_HOST_ENV, "ofi active messages", "shared");
#else
    ctx_ok(TEST_AM_HOST_ENV, "ofi (GSHMEM_OFI_AM without CUDA: the RMA path)", "isolated");
#endif
}

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
    char what_mode[128];
    snprintf(what_mode, sizeof what_mode, "%s (mode %s)", what, mode);
    for (size_t i = 0; i < sizeof pes / sizeof pes[0]; i++) {
        test_run_t r = test_run_env_pes(env, pes[i], "pe_api_ctx", mode, CTX_TIMEOUT_S);
        test_expect_ok(&r, "pe_api_ctx", what_mode, pes[i], NULL);
    }
}

static void ctx_tp_ok(const char *tp)
{
    ctx_ok(test_tp_env(tp), tp, test_ctx_mode(tp));
}

Test(ctx, shm, .timeout = 400) { ctx_tp_ok("shm"); }
Test(ctx, ofi_shm, .timeout = 400) { ctx_tp_ok("ofi-shm"); }
Test(ctx, ofi_tcp, .timeout = 400) { ctx_tp_ok("ofi-tcp"); }
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

/* test_ofi_cuda.c: the ofi transport serving a CUDA heap through its
 * staging path (no FI_HMEM provider), through the PE program pe_ofi_cuda
 * under gshmemrun, over libfabric's shm and tcp;ofi_rxm (loopback).
 *  - suite ofi_cuda: GSHMEM_HEAP=cuda, -n 2 and -n 4 (several PEs may share a
 *    GPU). Skipped, with the reason, when gshmem has no CUDA or the machine
 *    no GPU ("pe_ofi_cuda probe" decides in its own process: this driver
 *    never starts CUDA itself).
 *  - suite ofi_am_host: the same protocol on a host heap with the staging
 *    path forced, so it runs without a GPU (CUDA builds only). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests_common.h"

/* Run pe_ofi_cuda mode at -n n over tp ("ofi-shm" or "ofi-tcp"), with
 * GSHMEM_OFI_AM_RAILS=rails (0: the default). */
static test_run_t run_mode_rails(const char *tp, int n, const char *mode, const char *heap,
                                 int rails)
{
    char env[512], r_env[40] = "";
    if (rails > 0)
        snprintf(r_env, sizeof r_env, " GSHMEM_OFI_AM_RAILS=%d", rails);
    snprintf(env, sizeof env, "%s GSHMEM_HEAP=%s GSHMEM_SYMMETRIC_SIZE=64M GSHMEM_DEBUG=INFO "
             "GSHMEM_DEBUG_SUBSYS=TRANSPORT%s%s", test_tp_env(tp), heap,
             strcmp(heap, "host") == 0 ? " " TEST_AM_HOST_CHUNK : "", r_env);
    test_run_t r = test_run_env_pes(env, n, "pe_ofi_cuda", mode, 240);
    cr_log_info("ofi_cuda %s -n %d %s: %.1f s", tp, n, mode, r.seconds);
    for (const char *p = r.output; (p = strstr(p, "pe_ofi_cuda: timing: ")); p++) {
        char line[256];
        snprintf(line, sizeof line, "%s", p);
        line[strcspn(line, "\n")] = '\0';
        cr_log_info("%s -n %d %s: %s", tp, n, mode, line + 13);
    }
    cr_assert_eq(r.status, 0, "%s -n %d %s: status %d, output:\n%s", tp, n, mode, r.status,
                 test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "pe_ofi_cuda: OK (PE "), n,
                 "%s -n %d %s: expected %d OK lines:\n%s", tp, n, mode, n, test_tail(&r));
    cr_assert_eq(test_count_of(r.output, "active-message path"), n,
                 "%s -n %d %s: every PE should report the active-message path:\n%s", tp, n, mode,
                 test_tail(&r));
    return r;
}

static void run_mode(const char *tp, int n, const char *mode, const char *heap)
{
    test_run_t r = run_mode_rails(tp, n, mode, heap, 0);
    test_run_free(&r);
}

/* The host-stage run over `rails` endpoints per PE: each PE says so, and
 * the last rail carried messages somewhere (PUT messages to a PE take the
 * rails in turn), so the data the PE program checks went over all of them. */
static void rails_check(const char *tp, int n, int rails)
{
    test_require_probe("tests/pe/pe_ofi_cuda", "probe-host", "");
    test_run_t r = run_mode_rails(tp, n, "host-stage", "host", rails);
    char want[64];
    snprintf(want, sizeof want, "ofi active messages: %d rails", rails);
    cr_assert_eq(test_count_of(r.output, want), n, "%s -n %d: expected '%s' from every PE:\n%s",
                 tp, n, want, test_tail(&r));
    int used = 0;
    snprintf(want, sizeof want, "rail %d sent ", rails - 1);
    for (const char *p = r.output; (p = strstr(p, want)) != NULL; p++)
        used += strtoull(p + strlen(want), NULL, 10) > 0;
    cr_assert(used > 0, "%s -n %d: no PE sent a message on rail %d:\n%s", tp, n, rails - 1,
              test_tail(&r));
    test_run_free(&r);
}

static void cuda_check(const char *tp, int n, const char *mode)
{
    test_require_probe("tests/pe/pe_ofi_cuda", "probe", "");
    run_mode(tp, n, mode, "cuda");
}

static void host_check(const char *tp, int n)
{
    test_require_probe("tests/pe/pe_ofi_cuda", "probe-host", "");
    run_mode(tp, n, "host-stage", "host");
}

Test(ofi_cuda, shm_n2, .timeout = 300) { cuda_check("ofi-shm", 2, "cuda"); }
Test(ofi_cuda, shm_n4, .timeout = 300) { cuda_check("ofi-shm", 4, "cuda-stage"); }
Test(ofi_cuda, tcp_n2, .timeout = 300) { cuda_check("ofi-tcp", 2, "cuda-stage"); }
Test(ofi_cuda, tcp_n4, .timeout = 300) { cuda_check("ofi-tcp", 4, "cuda"); }

Test(ofi_am_host, shm_n2, .timeout = 300) { host_check("ofi-shm", 2); }
Test(ofi_am_host, shm_n4, .timeout = 300) { host_check("ofi-shm", 4); }
Test(ofi_am_host, tcp_n2, .timeout = 300) { host_check("ofi-tcp", 2); }
Test(ofi_am_host, tcp_n4, .timeout = 300) { host_check("ofi-tcp", 4); }
/* rails: one (the path as it was), and eight endpoints per PE at 4 PEs
 * (a send's completion and a received message on different rails' threads
 * at once: the case that once took a freed op for a message) */
Test(ofi_am_host, rails1_tcp_n2, .timeout = 300) { rails_check("ofi-tcp", 2, 1); }
Test(ofi_am_host, rails8_shm_n4, .timeout = 300) { rails_check("ofi-shm", 4, 8); }
Test(ofi_am_host, rails8_tcp_n4, .timeout = 300) { rails_check("ofi-tcp", 4, 8); }

/* A peer killed mid-transfer: PE 1 raises SIGKILL between its nbi puts and
 * its quiet while the others stream to it and wait in quiet for its
 * acknowledgements. The job must end (not hang) with a message naming the
 * PE, well before the 60 s this allows: gshmemrun's "PE 1 ... was killed by
 * signal 9", or, when the dying process outlasts the launcher's 1 s wait
 * for its exit status after its bootstrap connection closed (seen once in
 * CI over ofi/shm at 4 PEs on 2 busy cores: the job took 15 s; likely the
 * exit waited on the others' shm provider copying into its memory, not
 * verified), "PE 1 ... closed its
 * bootstrap connection without gshmem_finalize". */
/* 1 when gshmemrun's own line for PE 1 says it was killed or lost. */
static int kill_named(const char *out)
{
    for (const char *l = strstr(out, "gshmemrun: PE 1 (pid "); l != NULL;
         l = strstr(l + 1, "gshmemrun: PE 1 (pid ")) {
        const char *end = strchr(l, '\n');
        size_t len = end != NULL ? (size_t)(end - l) : strlen(l);
        static const char killed[] = ") was killed by signal 9";
        static const char lost[] = ") closed its bootstrap connection without gshmem_finalize";
        if (memmem(l, len, killed, sizeof killed - 1) != NULL ||
            memmem(l, len, lost, sizeof lost - 1) != NULL)
            return 1;
    }
    return 0;
}

static void kill_check(const char *tp, int n)
{
    test_require_probe("tests/pe/pe_ofi_cuda", "probe-host", "");
    char env[512];
    snprintf(env, sizeof env, "%s GSHMEM_HEAP=host GSHMEM_SYMMETRIC_SIZE=64M " TEST_AM_HOST_CHUNK,
             test_tp_env(tp));
    test_run_t r = test_run_env_pes(env, n, "pe_ofi_cuda", "host-kill", 80);
    cr_log_info("ofi_am_host kill %s -n %d: status %d after %.1f s", tp, n, r.status, r.seconds);
    cr_assert(strstr(r.output, "PE 1 raises SIGKILL") != NULL,
              "%s -n %d: PE 1 never reached its kill:\n%s", tp, n, test_tail(&r));
    cr_assert(r.status != 0 && r.seconds < 60, "%s -n %d: the job should end with an error soon "
              "after PE 1 died (status %d after %.1f s):\n%s", tp, n, r.status, r.seconds,
              test_tail(&r));
    cr_assert(kill_named(r.output), "%s -n %d: no message naming the killed PE 1:\n%s", tp, n,
              test_tail(&r));
    test_run_free(&r);
}

Test(ofi_am_host, peer_killed_tcp_n2, .timeout = 120) { kill_check("ofi-tcp", 2); }
Test(ofi_am_host, peer_killed_tcp_n4, .timeout = 120) { kill_check("ofi-tcp", 4); }
Test(ofi_am_host, peer_killed_shm_n4, .timeout = 120) { kill_check("ofi-shm", 4); }

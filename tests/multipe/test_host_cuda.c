/* test_host_cuda.c: the host collectives and point synchronization of
 * gshmem.h on a CUDA heap, through tests/gpu/pe_host_cuda under gshmemrun
 * (GSHMEM_HEAP=cuda) at 2 and 4 PEs: over p2p (CUDA IPC) and over ofi's
 * active messages (libfabric shm and tcp;ofi_rxm on loopback; several PEs
 * may share a GPU). Skipped, with the reason, when gshmem was built without
 * CUDA or the machine has no GPU ("pe_host_cuda probe" decides in its own
 * process: this driver never starts CUDA itself). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define HC_TIMEOUT_S 240

static void host_cuda_run(const char *tp, int n)
{
    char env[512];

    test_require_gpu("pe_host_cuda", "probe");
    snprintf(env, sizeof env, "GSHMEM_HEAP=cuda GSHMEM_SYMMETRIC_SIZE=64M %s",
             strcmp(tp, "p2p") == 0 ? "GSHMEM_TRANSPORTS=p2p" : test_tp_env(tp));
    test_run_t r = test_run_env_pes(env, n, "pe_host_cuda", NULL, HC_TIMEOUT_S);
    cr_log_info("host_cuda %s -n %d: %.1f s", tp, n, r.seconds);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_host_cuda: OK (PE ") == n,
              "pe_host_cuda over %s at %d PEs (%s): status %d after %.1f s, %d of %d OK "
              "lines; output (end):\n%s", tp, n, env, r.status, r.seconds,
              test_count_of(r.output, "pe_host_cuda: OK (PE "), n, test_tail(&r));
    test_run_free(&r);
}

Test(host_cuda, p2p_n2, .timeout = 300) { host_cuda_run("p2p", 2); }
Test(host_cuda, p2p_n4, .timeout = 300) { host_cuda_run("p2p", 4); }
Test(host_cuda, ofi_shm_n2, .timeout = 300) { host_cuda_run("ofi-shm", 2); }
Test(host_cuda, ofi_tcp_n4, .timeout = 300) { host_cuda_run("ofi-tcp", 4); }

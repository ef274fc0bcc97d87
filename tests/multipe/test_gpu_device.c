/* test_gpu_device: the device API (P2P path) through the PE programs of
 * tests/gpu (pe_dev_rma, pe_dev_sync, pe_dev_amo, pe_dev_coll,
 * pe_dev_errors, pe_dev_team_coll, pe_dev_team_stream, pe_dev_types,
 * pe_dev_types_sync) under gshmemrun with GSHMEM_HEAP=cuda
 * GSHMEM_TRANSPORTS=p2p, at 2 and 4 PEs; the team collectives and the
 * typed calls also on the queue path (GSHMEM_DEVICE_QUEUE_ONLY=1, and for
 * the team collectives GSHMEM_DISABLE_P2P=1 over ofi). Skipped, with the reason, when
 * gshmem was built without CUDA (the programs do not exist) or the machine
 * has no GPU ("<prog> probe" decides in its own process: this driver never
 * starts CUDA itself). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests_common.h"

#define DEV_TIMEOUT_S 180
#define DEV_ENV "GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p"

/* Runs "prog args" at n PEs with DEV_ENV plus extra_env (may be NULL);
 * every PE must print "<prog>: OK (PE ". */
static void dev_run_with(const char *prog, const char *args, int n, const char *extra_env)
{
    char cmd[512], ok[128], env[512];

    test_require_gpu("pe_dev_rma", "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d %%B/tests/pe/%s %s",
             n, DEV_TIMEOUT_S, prog, args ? args : "");
    snprintf(env, sizeof env, "%s %s", DEV_ENV, extra_env ? extra_env : "");
    test_run_t r = test_run(env, cmd, DEV_TIMEOUT_S + 15);
    snprintf(ok, sizeof ok, "%s: OK (PE ", prog);
    cr_assert(r.status == 0 && test_count_of(r.output, ok) == n,
              "%s %s at %d PEs (%s): status %d after %.1f s, %d of %d OK lines; output "
              "(end):\n%s", prog, args ? args : "", n, env, r.status, r.seconds,
              test_count_of(r.output, ok), n, test_tail(&r));
    test_run_free(&r);
}

static void dev_run(const char *prog, int n)
{
    dev_run_with(prog, NULL, n, NULL);
}

/* A misuse must fail the run (status 3 from the PE, or the launcher's
 * non-zero status) and print want and want2 (NULL: only want). */
static void dev_misuse(const char *mode, const char *want, const char *want2, int with_launcher)
{
    char cmd[512];

    test_require_gpu("pe_dev_rma", "probe");
    if (with_launcher)
        snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n 2 --timeout 60 "
                 "%%B/tests/pe/pe_dev_errors %s", mode);
    else
        snprintf(cmd, sizeof cmd, "%%B/tests/pe/pe_dev_errors %s", mode);
    test_run_t r = test_run(DEV_ENV, cmd, 75);
    cr_assert(r.status != 0 && strstr(r.output, want) != NULL &&
              (want2 == NULL || strstr(r.output, want2) != NULL),
              "pe_dev_errors %s: status %d (want non-zero) and \"%s\" / \"%s\" in the "
              "output:\n%s", mode, r.status, want, want2 ? want2 : "", test_tail(&r));
    test_run_free(&r);
}

Test(gpu_device, rma_n2) { dev_run("pe_dev_rma", 2); }
Test(gpu_device, rma_n4) { dev_run("pe_dev_rma", 4); }
/* PE 15 puts to PE 16 and 16 to 17: peers past the device state's inline
 * table (GSHMEMI_DEV_PEER_INLINE), found through the peer table. */
Test(gpu_device, rma_n18) { dev_run_with("pe_dev_rma", NULL, 18, "GSHMEM_SYMMETRIC_SIZE=64M"); }
Test(gpu_device, sync_n2) { dev_run("pe_dev_sync", 2); }
Test(gpu_device, sync_n4) { dev_run("pe_dev_sync", 4); }
Test(gpu_device, amo_n2) { dev_run("pe_dev_amo", 2); }
Test(gpu_device, amo_n4) { dev_run("pe_dev_amo", 4); }
Test(gpu_device, coll_n2) { dev_run("pe_dev_coll", 2); }
Test(gpu_device, coll_n4) { dev_run("pe_dev_coll", 4); }

/* Message passing from all 128 blocks at once, 8192 rounds each: 2^20
 * block-rounds per PE and variant, zero violations allowed (pe_litmus.cu). */
Test(gpu_device, litmus_fence_n2, .timeout = 200) { dev_run_with("pe_litmus", "fence", 2, NULL); }
Test(gpu_device, litmus_fence_n4, .timeout = 200) { dev_run_with("pe_litmus", "fence", 4, NULL); }
Test(gpu_device, litmus_signal_n2, .timeout = 200) { dev_run_with("pe_litmus", "signal", 2, NULL); }
Test(gpu_device, litmus_signal_n4, .timeout = 200) { dev_run_with("pe_litmus", "signal", 4, NULL); }

/* The same through the queue path (device SQ -> engine -> p2p copies),
 * 2048 rounds: 2^18 block-rounds per PE and variant. scripts/gpu-check.sh
 * runs 2^20 and the path over ofi as well. */
#define DEV_QUEUE "GSHMEM_DEVICE_QUEUE_ONLY=1"
Test(gpu_device, litmus_queue_fence_n2, .timeout = 200)
{
    dev_run_with("pe_litmus", "fence 2048", 2, DEV_QUEUE);
}
Test(gpu_device, litmus_queue_signal_n2, .timeout = 200)
{
    dev_run_with("pe_litmus", "signal 2048", 2, DEV_QUEUE);
}

/* Teams and team collectives on the device (pe_dev_team_coll) and on a
 * stream (pe_dev_team_stream), P2P and queue path. */
#define DEV_TEAM_TIMEOUT_S 300
#define DEV_TEAM_OFI "GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi GSHMEM_OFI_PROVIDER=shm"
Test(gpu_device, team_coll_n2, .timeout = DEV_TEAM_TIMEOUT_S) { dev_run("pe_dev_team_coll", 2); }
Test(gpu_device, team_coll_n4, .timeout = DEV_TEAM_TIMEOUT_S) { dev_run("pe_dev_team_coll", 4); }
Test(gpu_device, team_coll_queue_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_team_coll", NULL, 2, DEV_QUEUE);
}
Test(gpu_device, team_coll_queue_n4, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_team_coll", NULL, 4, DEV_QUEUE);
}
Test(gpu_device, team_coll_ofi_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_team_coll", NULL, 2, DEV_TEAM_OFI);
}
Test(gpu_device, team_stream_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run("pe_dev_team_stream", 2);
}
Test(gpu_device, team_stream_n4, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run("pe_dev_team_stream", 4);
}
Test(gpu_device, team_stream_queue_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_team_stream", NULL, 2, DEV_QUEUE);
}

/* Every typed call on every type of the tables (pe_dev_types: RMA and
 * AMOs; pe_dev_types_sync: waits, signal_op, half reductions). */
Test(gpu_device, types_n2, .timeout = DEV_TEAM_TIMEOUT_S) { dev_run("pe_dev_types", 2); }
Test(gpu_device, types_n4, .timeout = DEV_TEAM_TIMEOUT_S) { dev_run("pe_dev_types", 4); }
Test(gpu_device, types_queue_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_types", NULL, 2, DEV_QUEUE);
}
Test(gpu_device, types_sync_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run("pe_dev_types_sync", 2);
}
Test(gpu_device, types_sync_n4, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run("pe_dev_types_sync", 4);
}
Test(gpu_device, types_sync_queue_n2, .timeout = DEV_TEAM_TIMEOUT_S)
{
    dev_run_with("pe_dev_types_sync", NULL, 2, DEV_QUEUE);
}

Test(gpu_device, err_no_init)
{
    dev_misuse("no_init", "gshmem_putmem: device state not published", NULL, 0);
}
Test(gpu_device, err_bad_pe)
{
    dev_misuse("bad_pe", "gshmem: PE 0: gshmem_putmem: invalid PE 2 (n_pes 2)", NULL, 1);
}
Test(gpu_device, err_bad_addr)
{
    dev_misuse("bad_addr", "gshmem_int32_p: dest ", "is not inside the symmetric heap", 1);
}
/* issue 19: a __device__ global is not symmetric; the host call says so */
Test(gpu_device, err_host_dev_global)
{
    dev_misuse("host_dev_global", "gshmem_int32_p: dest ",
               "a __device__ global or cudaMalloc'd memory is not symmetric; allocate it with "
               "gshmem_malloc", 1);
}
Test(gpu_device, err_bad_cmp)
{
    dev_misuse("bad_cmp", "gshmem_int32_wait_until: invalid cmp 99", NULL, 1);
}
Test(gpu_device, err_bad_team)
{
    dev_misuse("bad_team", "gshmem_int_sum_reduce: invalid team 63 (not a live team on this "
               "PE)", NULL, 1);
}
Test(gpu_device, err_invalid_team)
{
    dev_misuse("invalid_team", "gshmemx_barrier_warp: invalid team -1 (GSHMEM_TEAM_INVALID",
               NULL, 1);
}
Test(gpu_device, err_bad_root)
{
    dev_misuse("bad_root", "gshmemx_int_broadcast_block: invalid PE_root 2 (team 0 has 2 PEs)",
               NULL, 1);
}

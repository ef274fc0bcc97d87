/* test_stage_gpu: tile-granular synchronization (gshmem_stage.h) on the GPU
 * through tests/gpu/pe_stage.cu: a consumer never reads a producer tile
 * before it was posted (poisoned outputs, changing values, hundreds of runs)
 * for every policy and launch mode, on one GPU and with the producer on
 * another PE (P2P and queue path); a control run without waits must see
 * early reads; a wait nobody answers reports and ends the kernel. Skipped,
 * with the reason, without a CUDA build or a GPU. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests_common.h"

#define STAGE_TIMEOUT_S 150
/* GSHMEM_TIMEOUT also bounds each stage wait (30 s): a lost post fails fast. */
#define STAGE_ENV "GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p GSHMEM_TIMEOUT=30"

static void stage_run(const char *args, int n, const char *extra_env)
{
    char cmd[512], env[512];

    test_require_gpu("pe_stage", "probe");
    snprintf(cmd, sizeof cmd, "%%B/tools/gshmemrun/gshmemrun -n %d --timeout %d "
             "%%B/tests/pe/pe_stage %s", n, STAGE_TIMEOUT_S, args);
    snprintf(env, sizeof env, "%s %s", STAGE_ENV, extra_env ? extra_env : "");
    test_run_t r = test_run(env, cmd, STAGE_TIMEOUT_S + 15);
    cr_assert(r.status == 0 && test_count_of(r.output, "pe_stage: OK (PE ") == n,
              "pe_stage %s at %d PEs (%s): status %d after %.1f s, %d of %d OK lines; output "
              "(end):\n%s", args, n, env, r.status, r.seconds,
              test_count_of(r.output, "pe_stage: OK (PE "), n, test_tail(&r));
    test_run_free(&r);
}

#define LOCAL(policy, mode)                                                          \
    Test(stage_gpu, local_##policy##_##mode, .timeout = STAGE_TIMEOUT_S + 30)       \
    {                                                                                \
        stage_run("local " #policy " " #mode " 400", 1, NULL);                      \
    }
LOCAL(tile, guard)
LOCAL(row, guard)
LOCAL(strided, guard)
LOCAL(user, guard)
LOCAL(tile, pdl)
LOCAL(row, pdl)
LOCAL(strided, pdl)
LOCAL(user, pdl)
LOCAL(tile, noguard)
LOCAL(user, noguard)
LOCAL(row, guard_on)

/* The consumer reads rows in order with gshmem_stage_wait_ahead. */
#define AHEAD(policy, mode)                                                          \
    Test(stage_gpu, local_##policy##_##mode##_ahead, .timeout = STAGE_TIMEOUT_S + 30) \
    {                                                                                \
        stage_run("local " #policy " " #mode " 400 ahead", 1, NULL);                \
    }
AHEAD(tile, guard)
AHEAD(strided, pdl)
AHEAD(user, guard)
AHEAD(row, noguard)

/* Semaphores in the symmetric heap, local producer (system-scope path). */
Test(stage_gpu, local_tile_guard_symmetric, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("local tile guard 400 sym", 1, NULL);
}
Test(stage_gpu, local_user_pdl_symmetric_ahead, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("local user pdl 400 sym,ahead", 1, NULL);
}

/* Without waits the same check must see early reads (pe_stage fails the
 * run otherwise): the test above can fail. */
Test(stage_gpu, control_nowait_sees_early_reads, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("local tile nowait 100", 1, NULL);
}

/* Producer on PE 0, semaphores and data in PE 1's symmetric heap. */
Test(stage_gpu, remote_tile_n2, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("remote tile 100", 2, NULL);
}
Test(stage_gpu, remote_row_n2, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("remote row 100", 2, NULL);
}
Test(stage_gpu, remote_user_n2, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("remote user 100", 2, NULL);
}
Test(stage_gpu, remote_tile_ahead_n2, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("remote tile 100 ahead", 2, NULL);
}
/* The same through the queue path (device SQ -> engine: put, fence, AMO). */
Test(stage_gpu, remote_queue_strided_n2, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("remote strided 30", 2, "GSHMEM_DEVICE_QUEUE_ONLY=1");
}

/* pe_stage CMD waits on a word nobody moves: it must print report and "no
 * post for", then trap (exit 3) after its 0.5 s limit. */
static void expect_timeout_report(const char *cmd, const char *report)
{
    char line[128];
    test_require_gpu("pe_stage", "probe");
    snprintf(line, sizeof line, "%%B/tests/pe/pe_stage %s", cmd);
    test_run_t r = test_run(STAGE_ENV, line, 60);
    cr_assert(r.status == 3 && strstr(r.output, report) != NULL &&
              strstr(r.output, "no post for") != NULL,
              "pe_stage %s: status %d (want 3) and the report in:\n%s", cmd, r.status,
              test_tail(&r));
    test_run_free(&r);
}

/* A wait nobody answers: the tile, the semaphore and its value are printed
 * and the kernel traps (exit 3) after the stage's 0.5 s limit. */
Test(stage_gpu, wait_timeout_reports)
{
    expect_timeout_report("timeout", "gshmem: gshmem_stage_wait: block 0: tile (0,0) "
                          "semaphore 0 holds 0, run 1 needs 1");
}

/* gshmem_stage_launch_guard_on on a word of the test's own: the consumer
 * behind it starts only once the word passed the value (across 2^32), an
 * unguarded one before (control); bad words are refused. */
Test(stage_gpu, guard_on_waits_for_word, .timeout = STAGE_TIMEOUT_S + 30)
{
    stage_run("guard_on", 1, NULL);
}

/* The guard on a word nobody changes reports the word and traps (exit 3)
 * after its 0.5 s limit. */
Test(stage_gpu, guard_on_timeout_reports)
{
    expect_timeout_report("guard_on_timeout",
                          "gshmem: gshmem_stage_launch_guard_on (the word as semaphore 0, its "
                          "value as the run): block 0: tile (0,0) semaphore 0 holds 0, run 1 "
                          "needs 1");
}

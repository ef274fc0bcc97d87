/* test_ring.c: the SQ/CQ ring (include/gshmem/ring/sq.h) on the host: single-thread
 * checks here, and the stress programs of device/CMakeLists.txt run by path
 * (many producer threads; ThreadSanitizer; engine death; the GPU program). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gshmem/ring/sq.h"
#include "tests_common.h"

#define STRESS "%B/tests/ring/gshmem-ring-stress"

typedef struct ring_mem {
    gshmemi_wqe_t slots[64];
    uint64_t tail, completed, head;
    gshmemi_ring_cache_t cache;
    uint32_t status;
} ring_mem_t;

static void ring_setup(ring_mem_t *m, uint32_t cap, gshmemi_ring_t *r)
{
    memset(m, 0, sizeof(*m));
    cr_assert_eq(gshmemi_ring_init(r, m->slots, cap, &m->tail, &m->completed, &m->status,
                                   &m->head, &m->cache), GSHMEM_SUCCESS);
}

Test(ring, init_rejects_bad_capacity)
{
    ring_mem_t m;
    gshmemi_ring_t r;
    ring_setup(&m, 4, &r);
    cr_expect_eq(r.log2cap, 2);
    uint32_t bad[] = {0, 1, 3, 6, 100};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_expect_eq(gshmemi_ring_init(&r, m.slots, bad[i], &m.tail, &m.completed, &m.status,
                                       &m.head, &m.cache),
                     GSHMEM_ERR_INVALID_ARG, "capacity %u accepted", bad[i]);
    cr_expect_eq(gshmemi_ring_init(&r, m.slots, 4, NULL, &m.completed, &m.status, &m.head,
                                   &m.cache), GSHMEM_ERR_INVALID_ARG);
}

/* 2000 entries through 4 slots: 500 laps, so the 8-bit lap field wraps. */
Test(ring, laps_wrap_and_fields_round_trip)
{
    ring_mem_t m;
    gshmemi_ring_t r;
    gshmemi_ring_consumer_t c;
    ring_setup(&m, 4, &r);
    gshmemi_ring_consumer_init(&c, &r, 3);
    gshmemi_wqe_t out;
    uint64_t idx = 99;
    cr_assert_eq(gshmemi_ring_poll(&c, &out, &idx), 0, "empty ring returned an entry");
    for (uint64_t i = 0; i < 2000; i++) {
        gshmemi_wqe_t w = {.laddr = i * 3, .roff = i * 5, .value = i * 7,
                           .ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_AMO, 0x5a, 0xa5,
                                                    (uint32_t)i + 0x80000000u)};
        uint64_t at = 0;
        cr_assert_eq(gshmemi_ring_post(&r, &w, 1, NULL, &at), 0);
        cr_assert_eq(at, i);
        cr_assert_eq(gshmemi_ring_poll(&c, &out, &idx), 1, "entry %llu not seen",
                     (unsigned long long)i);
        cr_assert_eq(idx, i);
        cr_assert(out.laddr == i * 3 && out.roff == i * 5 && out.value == i * 7);
        cr_assert_eq(gshmemi_wqe_op(&out), GSHMEMI_OP_AMO);
        cr_assert_eq(gshmemi_wqe_flags(&out), 0x5a);
        cr_assert_eq(gshmemi_wqe_aux(&out), 0xa5);
        cr_assert_eq(gshmemi_wqe_pe(&out), (uint32_t)i + 0x80000000u);
        gshmemi_ring_complete(&c, i + 1);
        /* empty: the idle poll publishes tail and completed (batch 3 or not) */
        cr_assert_eq(gshmemi_ring_poll(&c, &out, &idx), 0, "stale entry seen after %llu",
                     (unsigned long long)i);
        cr_assert_eq(gshmemi_ring_quiet(&r, i), 0);
    }
    cr_expect_eq(m.tail, 2000);
    cr_expect_eq(m.completed, 2000);
}

Test(ring, batches_publish_and_full_ring_refused)
{
    ring_mem_t m;
    gshmemi_ring_t r;
    gshmemi_ring_consumer_t c;
    ring_setup(&m, 8, &r);
    gshmemi_ring_consumer_init(&c, &r, 4);
    gshmemi_wqe_t w[9] = {{0}}, out;
    uint64_t at;
    cr_expect_eq(gshmemi_ring_post(&r, w, 9, NULL, &at), GSHMEM_ERR_INVALID_ARG);
    cr_expect_eq(gshmemi_ring_post(&r, w, 0, NULL, &at), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_ring_post(&r, w, 8, NULL, &at), 0);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(gshmemi_ring_poll(&c, &out, NULL), 1);
    cr_expect_eq(m.tail, 0, "tail published before a batch of 4");
    cr_assert_eq(gshmemi_ring_poll(&c, &out, NULL), 1);
    cr_expect_eq(m.tail, 4, "tail not published after a batch of 4");
    gshmemi_ring_complete(&c, 2);
    cr_expect_eq(m.completed, 0, "completed published before a batch");
    gshmemi_ring_flush(&c);
    cr_expect_eq(m.completed, 2);
    /* ring holds 4 unread entries: 4 more fit, the 5th waits; a dead
     * engine makes that wait return its error instead of hanging */
    cr_assert_eq(gshmemi_ring_post(&r, w, 4, NULL, &at), 0);
    gshmemi_ring_set_error(&c, GSHMEM_ERR_TRANSPORT);
    uint32_t waits = 0;
    cr_expect_eq(gshmemi_ring_post(&r, w, 1, &waits, &at), GSHMEM_ERR_TRANSPORT);
    cr_expect_eq(gshmemi_ring_quiet(&r, 7), GSHMEM_ERR_TRANSPORT);
}

static void run_stress(const char *env, const char *args, int limit_s)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "%s %s", STRESS, args);
    test_run_t r = test_run(env, cmd, limit_s * 3);
    cr_log_info("%s: %.2f s\n%s", cmd, r.seconds, r.output ? r.output : "");
    cr_expect_eq(r.status, 0, "%s: exit status %d:\n%s", cmd, r.status, test_tail(&r));
    cr_expect(r.output && strstr(r.output, "PASS"), "%s: no PASS:\n%s", cmd, test_tail(&r));
    cr_expect(r.seconds < limit_s, "%s: took %.1f s (limit %d s)", cmd, r.seconds, limit_s);
    test_run_free(&r);
}

/* 64 producer threads, 10^6 messages, 256 slots: constant back-pressure. */
Test(ring, stress_64_producers, .timeout = 120)
{
    run_stress(NULL, "-p 64 -n 1000000 -c 256 -b 32 -q 1000", 20);
}

Test(ring, stress_tiny_ring, .timeout = 120)
{
    run_stress(NULL, "-p 16 -n 50000 -c 2 -b 1 -q 7", 20);
}

Test(ring, stress_engine_death, .timeout = 60)
{
    run_stress(NULL, "-p 64 -n 1000000 -c 64 -e 5000", 20);
}

Test(ring, stress_tsan, .timeout = 180)
{
    if (access(GSHMEM_BUILD_DIR "/tests/ring/gshmem-ring-stress-tsan", X_OK) != 0)
        cr_skip_test("gshmem-ring-stress-tsan not built (no -fsanitize=thread, or "
                     "GSHMEM_SANITIZE=ON)");
    const char *cmd = "%B/tests/ring/gshmem-ring-stress-tsan -p 64 -n 300000 -c 256 -q 500";
    test_run_t r = test_run("TSAN_OPTIONS=halt_on_error=1", cmd, 120);
    cr_log_info("tsan: %.2f s\n%s", r.seconds, r.output ? r.output : "");
    cr_expect_eq(r.status, 0, "exit status %d:\n%s", r.status, test_tail(&r));
    cr_expect(r.output && strstr(r.output, "PASS"), "no PASS:\n%s", test_tail(&r));
    cr_expect(r.output && !strstr(r.output, "ThreadSanitizer"), "TSan report:\n%s",
              test_tail(&r));
    test_run_free(&r);
}

/* The GPU program, when built (GSHMEM_ENABLE_CUDA): PASS, or a visible SKIP. */
Test(ring, gpu_producers, .timeout = 180)
{
    if (access(GSHMEM_BUILD_DIR "/tests/ring/gshmem-ring-gpu", X_OK) != 0)
        cr_skip_test("gshmem-ring-gpu not built (GSHMEM_ENABLE_CUDA=OFF)");
    test_run_t r = test_run(NULL, "%B/tests/ring/gshmem-ring-gpu", 120);
    cr_log_info("gpu: %.2f s\n%s", r.seconds, r.output ? r.output : "");
    int skipped = r.output && strstr(r.output, "SKIP: no CUDA device");
    cr_expect_eq(r.status, 0, "exit status %d:\n%s", r.status, test_tail(&r));
    cr_expect(skipped || (r.output && strstr(r.output, "PASS")), "no PASS:\n%s", test_tail(&r));
    test_run_free(&r);
    if (skipped)
        cr_skip_test("no CUDA device");
}

/* test_stage.c: the plain-C part of include/gshmem_stage.h on the CPU: the
 * policy maps (tile -> semaphore, expected posts per semaphore), the tile
 * orders, the table checks and the launch-guard decision (the same inline
 * functions run in kernels: they are __host__ __device__ under nvcc), and
 * the host calls that need no GPU: wait-only views, runs, the wait limit
 * from the settings table, their status codes. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem_stage.h"
#include "tests_common.h"

static gshmem_stage_grid_t grid(uint32_t x, uint32_t y)
{
    gshmem_stage_grid_t g = {x, y};
    return g;
}

static gshmem_stage_tile_t tile(uint32_t x, uint32_t y)
{
    gshmem_stage_tile_t t = {x, y};
    return t;
}

static gshmem_stage_policy_t policy(int kind, uint32_t stride)
{
    gshmem_stage_policy_t p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.stride = stride;
    return p;
}

/* Every tile maps below n_sems and every semaphore's expected count is the
 * number of tiles mapping to it (independent of gshmem_stage_check). */
static void assert_consistent(const gshmem_stage_policy_t *p, gshmem_stage_grid_t g)
{
    uint32_t ns = gshmem_stage_policy_n_sems(p, g);
    cr_assert_gt(ns, 0, "policy %d on %ux%u: no semaphores", p->kind, g.x, g.y);
    uint32_t *count = calloc(ns, sizeof *count);
    cr_assert_not_null(count);
    for (uint32_t y = 0; y < g.y; y++)
        for (uint32_t x = 0; x < g.x; x++) {
            uint32_t s = gshmem_stage_policy_sem(p, g, tile(x, y));
            cr_assert_lt(s, ns, "policy %d %ux%u: tile (%u,%u) -> sem %u of %u", p->kind, g.x,
                         g.y, x, y, s, ns);
            count[s]++;
        }
    for (uint32_t s = 0; s < ns; s++)
        cr_assert_eq(gshmem_stage_policy_expected(p, g, s), count[s],
                     "policy %d %ux%u (stride %u): sem %u expects %u, %u tiles map to it",
                     p->kind, g.x, g.y, p->stride, s, gshmem_stage_policy_expected(p, g, s),
                     count[s]);
    free(count);
    char err[256] = "";
    cr_assert_eq(gshmem_stage_check(g, p, GSHMEM_STAGE_ROW_MAJOR, NULL, err, sizeof err),
                 GSHMEM_SUCCESS, "check: %s", err);
}

Test(stage, per_tile_map)
{
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_PER_TILE, 0);
    gshmem_stage_grid_t g = grid(48, 4);
    cr_assert_eq(gshmem_stage_policy_n_sems(&p, g), 192);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(0, 0)), 0);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(5, 2)), 2 * 48 + 5);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(47, 3)), 191);
    cr_assert_eq(gshmem_stage_policy_expected(&p, g, 77), 1);
    assert_consistent(&p, g);
    assert_consistent(&p, grid(1, 1));
}

Test(stage, per_row_map)
{
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_PER_ROW, 0);
    gshmem_stage_grid_t g = grid(96, 16);
    cr_assert_eq(gshmem_stage_policy_n_sems(&p, g), 16);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(0, 7)), 7);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(95, 7)), 7);
    cr_assert_eq(gshmem_stage_policy_expected(&p, g, 7), 96);
    assert_consistent(&p, g);
    assert_consistent(&p, grid(1, 5));
}

Test(stage, strided_map)
{
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_STRIDED, 4);
    gshmem_stage_grid_t g = grid(10, 3);
    cr_assert_eq(gshmem_stage_policy_n_sems(&p, g), 12);
    /* row 2: tiles 1, 5, 9 share semaphore 2 * 4 + 1 */
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(1, 2)), 9);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(5, 2)), 9);
    cr_assert_eq(gshmem_stage_policy_sem(&p, g, tile(9, 2)), 9);
    cr_assert_eq(gshmem_stage_policy_expected(&p, g, 9), 3);
    cr_assert_eq(gshmem_stage_policy_expected(&p, g, 10), 2);   /* x = 2, 6 */
    cr_assert_eq(gshmem_stage_policy_expected(&p, g, 3), 2);    /* x = 3, 7 */
    /* every stride on a few widths, uneven ones included */
    for (uint32_t x = 1; x <= 13; x++)
        for (uint32_t s = 1; s <= x; s++) {
            p.stride = s;
            assert_consistent(&p, grid(x, 3));
        }
}

Test(stage, strided_rejects_bad_stride)
{
    char err[256] = "";
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_STRIDED, 0);
    cr_assert_eq(gshmem_stage_policy_n_sems(&p, grid(8, 2)), 0);
    cr_assert_eq(gshmem_stage_check(grid(8, 2), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "stride 0 not in 1..8") != NULL, "message: %s", err);
    p.stride = 9;
    cr_assert_eq(gshmem_stage_check(grid(8, 2), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "stride 9") != NULL, "message: %s", err);
}

/* A user policy: groups of 4 consecutive tiles of a row (what the MLP
 * benchmark uses), then broken tables. */
Test(stage, user_tables)
{
    enum { X = 12, Y = 3, G = 4 };
    uint32_t sem[X * Y], expected[Y * X / G];
    for (uint32_t y = 0; y < Y; y++)
        for (uint32_t x = 0; x < X; x++)
            sem[y * X + x] = y * (X / G) + x / G;
    for (uint32_t s = 0; s < Y * X / G; s++)
        expected[s] = G;
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_USER, 0);
    p.n_user_sems = Y * X / G;
    p.user_sem = sem;
    p.user_expected = expected;
    cr_assert_eq(gshmem_stage_policy_sem(&p, grid(X, Y), tile(7, 2)), 2 * 3 + 1);
    cr_assert_eq(gshmem_stage_policy_expected(&p, grid(X, Y), 4), G);
    assert_consistent(&p, grid(X, Y));

    char err[256] = "";
    expected[1] = 3;
    cr_assert_eq(gshmem_stage_check(grid(X, Y), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "semaphore 1 expects 3 posts per run but 4 tiles") != NULL,
              "message: %s", err);
    expected[1] = G;
    sem[5] = 99;
    cr_assert_eq(gshmem_stage_check(grid(X, Y), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "tile (5,0) maps to semaphore 99, not below 9") != NULL,
              "message: %s", err);
    p.user_sem = NULL;
    cr_assert_eq(gshmem_stage_check(grid(X, Y), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "user policy") != NULL, "message: %s", err);
}

Test(stage, check_rejects_bad_grid_kind_order)
{
    char err[256] = "";
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_PER_TILE, 0);
    cr_assert_eq(gshmem_stage_check(grid(0, 4), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "tile grid 0x4") != NULL, "message: %s", err);
    p.kind = 7;
    cr_assert_eq(gshmem_stage_check(grid(2, 2), &p, 0, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "unknown policy kind 7") != NULL, "message: %s", err);
    cr_assert_eq(gshmem_stage_policy_n_sems(&p, grid(2, 2)), 0);
    p.kind = GSHMEM_STAGE_PER_ROW;
    cr_assert_eq(gshmem_stage_check(grid(2, 2), &p, GSHMEM_STAGE_ORDER_TABLE, NULL, err,
                                    sizeof err), GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "ORDER_TABLE without a table") != NULL, "message: %s", err);
    cr_assert_eq(gshmem_stage_check(grid(2, 2), &p, 3, NULL, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
}

/* Each order visits every tile exactly once; spot values. */
static void assert_permutation(int order, const uint32_t *table, gshmem_stage_grid_t g)
{
    uint32_t n = g.x * g.y;
    char *seen = calloc(n, 1);
    cr_assert_not_null(seen);
    for (uint32_t pos = 0; pos < n; pos++) {
        gshmem_stage_tile_t t = gshmem_stage_order_tile(order, table, g, pos);
        cr_assert(t.x < g.x && t.y < g.y, "order %d: pos %u -> (%u,%u) outside %ux%u", order,
                  pos, t.x, t.y, g.x, g.y);
        uint32_t lin = gshmem_stage_tile_index(g, t);
        cr_assert_eq(seen[lin], 0, "order %d: tile %u handed out twice", order, lin);
        seen[lin] = 1;
    }
    free(seen);
}

Test(stage, orders)
{
    gshmem_stage_grid_t g = grid(5, 3);
    gshmem_stage_tile_t t = gshmem_stage_order_tile(GSHMEM_STAGE_ROW_MAJOR, NULL, g, 7);
    cr_assert(t.x == 2 && t.y == 1, "row-major pos 7 -> (%u,%u)", t.x, t.y);
    t = gshmem_stage_order_tile(GSHMEM_STAGE_COL_MAJOR, NULL, g, 7);
    cr_assert(t.x == 2 && t.y == 1, "col-major pos 7 -> (%u,%u)", t.x, t.y);
    t = gshmem_stage_order_tile(GSHMEM_STAGE_COL_MAJOR, NULL, g, 4);
    cr_assert(t.x == 1 && t.y == 1, "col-major pos 4 -> (%u,%u)", t.x, t.y);
    assert_permutation(GSHMEM_STAGE_ROW_MAJOR, NULL, g);
    assert_permutation(GSHMEM_STAGE_COL_MAJOR, NULL, g);
    assert_permutation(GSHMEM_STAGE_COL_MAJOR, NULL, grid(1, 9));

    uint32_t table[15];
    for (uint32_t i = 0; i < 15; i++)
        table[i] = (i * 7) % 15;   /* 7 is prime to 15: a permutation */
    t = gshmem_stage_order_tile(GSHMEM_STAGE_ORDER_TABLE, table, g, 3);
    cr_assert(t.x == 1 && t.y == 1, "table pos 3 -> tile 6 = (1,1), got (%u,%u)", t.x, t.y);
    assert_permutation(GSHMEM_STAGE_ORDER_TABLE, table, g);
    char err[256] = "";
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_PER_TILE, 0);
    cr_assert_eq(gshmem_stage_check(g, &p, GSHMEM_STAGE_ORDER_TABLE, table, err, sizeof err),
                 GSHMEM_SUCCESS, "%s", err);
    table[4] = table[3];
    cr_assert_eq(gshmem_stage_check(g, &p, GSHMEM_STAGE_ORDER_TABLE, table, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "position 4 holds tile 6 (repeated)") != NULL, "message: %s", err);
    table[4] = 15;
    cr_assert_eq(gshmem_stage_check(g, &p, GSHMEM_STAGE_ORDER_TABLE, table, err, sizeof err),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert(strstr(err, "out of range") != NULL, "message: %s", err);
}

Test(stage, guard_decision)
{
    /* 132 SMs, 2 blocks each of either kernel: 264 slots together */
    cr_assert_eq(gshmem_stage_guard_needed(96, 2, 96, 2, 132), 0);
    cr_assert_eq(gshmem_stage_guard_needed(132, 2, 132, 2, 132), 0);   /* exactly full */
    cr_assert_eq(gshmem_stage_guard_needed(133, 2, 132, 2, 132), 1);
    cr_assert_eq(gshmem_stage_guard_needed(192, 2, 384, 2, 132), 1);
    /* unequal shares: 1 producer block per SM uses as much as 4 consumers */
    cr_assert_eq(gshmem_stage_guard_needed(66, 1, 264, 4, 132), 0);
    cr_assert_eq(gshmem_stage_guard_needed(66, 1, 265, 4, 132), 1);
    /* unknown occupancy: guard */
    cr_assert_eq(gshmem_stage_guard_needed(1, 0, 1, 2, 132), 1);
    cr_assert_eq(gshmem_stage_guard_needed(1, 2, 1, 2, 0), 1);
    /* no overflow with large grids */
    cr_assert_eq(gshmem_stage_guard_needed(0xffffffffu, 32, 0xffffffffu, 32, 1000), 1);
}

/* gshmem_stage_wrap needs no GPU: a view of semaphores that exist (any
 * address will do here: nothing reads them on the host), the wait limit
 * from GSHMEM_TIMEOUT through the settings table (no gshmem_init: the
 * library loads the table itself). */
Test(stage, wrap_view_and_runs)
{
    uint64_t sems[8] = {0};
    gshmem_stage_t s;
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_PER_ROW, 0);
    cr_assert_eq(setenv("GSHMEM_TIMEOUT", "7", 1), 0);
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 4, 8, &p, GSHMEM_STAGE_SYMMETRIC),
                 GSHMEM_SUCCESS);
    cr_assert(s.sems == sems && s.n_sems == 8 && s.policy.kind == GSHMEM_STAGE_PER_ROW &&
              s.flags == GSHMEM_STAGE_SYMMETRIC && s.grid.x == 4 && s.grid.y == 8,
              "view: sems %p, %u semaphores, kind %d, flags %#x, grid %ux%u", (void *)s.sems,
              s.n_sems, s.policy.kind, s.flags, s.grid.x, s.grid.y);
    cr_assert(s.ctl == NULL && s.epoch == 0, "a view owns no counters and starts at run 0");
    cr_assert_eq(s.timeout_ns, 7000000000ull, "timeout_ns %llu, GSHMEM_TIMEOUT=7",
                 (unsigned long long)s.timeout_ns);
    cr_assert_eq(gshmem_stage_begin(&s), 1);
    cr_assert_eq(gshmem_stage_begin(&s), 2);
    cr_assert_eq(s.epoch, 2);
}

Test(stage, wrap_default_timeout)
{
    uint64_t sem = 0;
    gshmem_stage_t s;
    cr_assert_eq(unsetenv("GSHMEM_TIMEOUT"), 0);
    cr_assert_eq(gshmem_stage_wrap(&s, &sem, 1, 1, NULL, 0), GSHMEM_SUCCESS);
    cr_assert_eq(s.timeout_ns, 60000000000ull, "timeout_ns %llu, the bounded wait's 60 s "
                 "(GSHMEM_TIMEOUT unset: 0)", (unsigned long long)s.timeout_ns);
    cr_assert_eq(s.policy.kind, GSHMEM_STAGE_PER_TILE);
}

/* What a view cannot be, and a setting the table rejects: status codes. */
Test(stage, wrap_rejects)
{
    uint64_t sems[4] = {0};
    gshmem_stage_t s;
    gshmem_stage_policy_t p = policy(GSHMEM_STAGE_USER, 0);
    cr_assert_eq(gshmem_stage_wrap(&s, NULL, 2, 2, NULL, 0), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 2, 2, &p, 0), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 2, 2, NULL, GSHMEM_STAGE_COUNTER),
                 GSHMEM_ERR_INVALID_ARG);
    p = policy(GSHMEM_STAGE_STRIDED, 3);   /* stride 3 > 2 tiles per row */
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 2, 2, &p, 0), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 0, 2, NULL, 0), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(setenv("GSHMEM_TIMEOUT", "-1", 1), 0);
    cr_assert_eq(gshmem_stage_wrap(&s, sems, 2, 2, NULL, 0), GSHMEM_ERR_CONFIG);
    cr_assert_null(s.sems, "a failed wrap leaves the stage zeroed");
}

/* apps/stage/wave_model.py, the tile-level model behind the MLP results'
 * bounds: its schedules against closed forms and its bounds against its
 * schedules (--self-test). */
Test(stage, wave_model_self_test, .timeout = 60)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        cr_skip_test("no python3 on PATH");
    test_run_t r = test_run(NULL, "python3 " GSHMEM_SOURCE_DIR "/apps/stage/wave_model.py "
                            "--self-test", 50);
    cr_expect_eq(r.status, 0, "exit status %d:\n%s", r.status, test_tail(&r));
    cr_expect(r.output && strstr(r.output, "self-test: PASS"), "no PASS:\n%s", test_tail(&r));
    test_run_free(&r);
}

/* test_log.c: GSHMEM_DEBUG / GSHMEM_DEBUG_SUBSYS parsing, the line format,
 * filtering, and gshmem_strerror(). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gshmem.h"
#include "base/util/log.h"
#include "tests_common.h"

Test(log, parse_level)
{
    static const struct {
        const char *s;
        int level;
    } good[] = {
        {"NONE", GSHMEMI_LOG_NONE},   {"error", GSHMEMI_LOG_ERROR}, {"Warn", GSHMEMI_LOG_WARN},
        {"INFO", GSHMEMI_LOG_INFO},   {"debug", GSHMEMI_LOG_DEBUG}, {"TrAcE", GSHMEMI_LOG_TRACE},
    };
    static const char *const bad[] = {"", "VERBOSE", "warn ", " INFO", "WARNING", "3", "TRACEX"};
    int level;

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        level = -7;
        cr_assert_eq(gshmemi_log_parse_level(good[i].s, &level), 0, "%s", good[i].s);
        cr_assert_eq(level, good[i].level, "%s -> %d", good[i].s, level);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        level = -7;
        cr_assert_eq(gshmemi_log_parse_level(bad[i], &level), GSHMEM_ERR_CONFIG, "'%s'", bad[i]);
        cr_assert_eq(level, -7, "output written on failure for '%s'", bad[i]);
    }
}

Test(log, parse_subsys)
{
    unsigned mask;

    cr_assert_eq(gshmemi_log_parse_subsys("INIT", &mask), 0);
    cr_assert_eq(mask, GSHMEMI_SUBSYS_INIT);
    cr_assert_eq(gshmemi_log_parse_subsys("heap,Proxy", &mask), 0);
    cr_assert_eq(mask, GSHMEMI_SUBSYS_HEAP | GSHMEMI_SUBSYS_PROXY);
    cr_assert_eq(gshmemi_log_parse_subsys(" transport , agg,BOOTSTRAP,coll ", &mask), 0);
    cr_assert_eq(mask, GSHMEMI_SUBSYS_TRANSPORT | GSHMEMI_SUBSYS_AGG |
                           GSHMEMI_SUBSYS_BOOTSTRAP | GSHMEMI_SUBSYS_COLL);
    cr_assert_eq(gshmemi_log_parse_subsys("all", &mask), 0);
    cr_assert_eq(mask, GSHMEMI_SUBSYS_ALL);

    static const char *const bad[] = {"", "FOO", "INIT,", ",INIT", "INIT,,HEAP", "HEAP;PROXY",
                                      " "};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        mask = 12345;
        cr_assert_eq(gshmemi_log_parse_subsys(bad[i], &mask), GSHMEM_ERR_CONFIG, "'%s'", bad[i]);
        cr_assert_eq(mask, 12345u, "output written on failure for '%s'", bad[i]);
    }
}

static void expected_prefix(char *buf, size_t cap, const char *pe, const char *level,
                            const char *subsys)
{
    char host[64] = {0};

    gethostname(host, sizeof(host) - 1);
    snprintf(buf, cap, "%s:%d:%s gshmem %s [%s] ", host, (int)getpid(), pe, level, subsys);
}

Test(log, line_format)
{
    char want[512], prefix[256];
    test_cap_t c;
    char *out;

    gshmemi_log_level = GSHMEMI_LOG_WARN;
    gshmemi_log_mask = GSHMEMI_SUBSYS_ALL;
    test_cap_start(&c);
    GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "hello %d", 42);
    gshmemi_log_set_pe(3);
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_BOOTSTRAP, "peer %s died", "PE1");
    out = test_cap_end(&c);

    expected_prefix(prefix, sizeof(prefix), "PE?", "WARN", "HEAP");
    snprintf(want, sizeof(want), "%shello 42\n", prefix);
    expected_prefix(prefix, sizeof(prefix), "PE3", "ERROR", "BOOTSTRAP");
    strncat(want, prefix, sizeof(want) - strlen(want) - 1);
    strncat(want, "peer PE1 died\n", sizeof(want) - strlen(want) - 1);
    cr_assert_str_eq(out, want);
    free(out);
}

Test(log, filtering)
{
    test_cap_t c;
    char *out;

    gshmemi_log_level = GSHMEMI_LOG_WARN;
    gshmemi_log_mask = GSHMEMI_SUBSYS_HEAP;
    test_cap_start(&c);
    GSHMEMI_INFO(GSHMEMI_SUBSYS_HEAP, "info-hidden");
    GSHMEMI_WARN(GSHMEMI_SUBSYS_PROXY, "warn-proxy-hidden");
    GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "warn-heap-shown");
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_PROXY, "error-proxy-shown");
    gshmemi_log_level = GSHMEMI_LOG_NONE;
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "error-none-hidden");
    gshmemi_log_level = GSHMEMI_LOG_TRACE;
    GSHMEMI_TRACE(GSHMEMI_SUBSYS_HEAP, "trace-shown");
    out = test_cap_end(&c);

    cr_assert_null(strstr(out, "hidden"), "%s", out);
    cr_assert_not_null(strstr(out, "warn-heap-shown"));
    cr_assert_not_null(strstr(out, "error-proxy-shown"));
    cr_assert_not_null(strstr(out, "gshmem TRACE [HEAP] trace-shown (test_log.c:"), "%s", out);
    free(out);
}

Test(log, long_line_truncated)
{
    static char big[10000];
    test_cap_t c;
    char *out;
    size_t n;

    memset(big, 'x', sizeof(big) - 1);
    test_cap_start(&c);
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "%s", big);
    out = test_cap_end(&c);
    n = strlen(out);
    cr_assert_gt(n, 1000);
    cr_assert_lt(n, sizeof(big));
    cr_assert_str_eq(out + n - 4, "...\n");
    cr_assert_eq(strchr(out, '\n'), out + n - 1, "one line only");
    free(out);
}

static void *log_thread(void *arg)
{
    for (int i = 0; i < 300; i++)
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_PROXY, "thread %d line %d %s", (int)(intptr_t)arg, i,
                      "padding-padding-padding-padding-padding-padding-padding");
    return NULL;
}

/* Lines written at the same time by several threads stay whole. */
Test(log, concurrent_lines_whole)
{
    pthread_t t[4];
    test_cap_t c;
    char *out, *line, *save = NULL;
    int lines = 0;

    test_cap_start(&c);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, log_thread, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    out = test_cap_end(&c);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int th, no;
        cr_assert_eq(sscanf(strstr(line, "] ") + 2, "thread %d line %d", &th, &no), 2, "%s",
                     line);
        cr_assert_not_null(strstr(line, " padding-padding-padding-padding-padding-padding-"
                                        "padding"), "%s", line);
        cr_assert_eq(strstr(line + 1, "gshmem ERROR"), strstr(line, "gshmem ERROR"));
        lines++;
    }
    cr_assert_eq(lines, 1200);
    free(out);
}

Test(strerror, every_status)
{
    for (int s = GSHMEM_ERR_CUDA; s <= GSHMEM_SUCCESS; s++) {
        const char *m = gshmem_strerror(s);
        cr_assert_not_null(m);
        cr_assert_null(strstr(m, "unknown"), "status %d has no message", s);
        for (int t = s + 1; t <= GSHMEM_SUCCESS; t++)
            cr_assert_str_neq(m, gshmem_strerror(t), "%d and %d share a message", s, t);
    }
    cr_assert_str_eq(gshmem_strerror(GSHMEM_SUCCESS), "success");
    cr_assert_str_eq(gshmem_strerror(-99), "unknown status -99");
    cr_assert_str_eq(gshmem_strerror(5), "unknown status 5");
}

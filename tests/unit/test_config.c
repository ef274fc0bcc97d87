/* test_config.c: the GSHMEM_* settings: parsers, loading from the
 * environment, rejection of invalid values by name, the unknown-variable
 * warning and the GSHMEM_INFO listing. Criterion forks each test, so
 * setenv() here does not leak into other tests. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/config.h"
#include "base/util/log.h"
#include "tests_common.h"

extern char **environ;

/* Remove every GSHMEM* variable the test was started with. */
static void clear_env(void)
{
    for (;;) {
        char **e, name[256];
        for (e = environ; *e; e++)
            if (strncmp(*e, "GSHMEM", 6) == 0)
                break;
        if (*e == NULL)
            return;
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
        unsetenv(name);
    }
}

/* ---- parsers ----------------------------------------------------------------- */

Test(config, parse_size_good)
{
    static const struct {
        const char *s;
        size_t v;
    } t[] = {
        {"0", 0},
        {"1", 1},
        {"512", 512},
        {"4K", 4096},
        {"4k", 4096},
        {"4KB", 4096},
        {"4kib", 4096},
        {"4KiB", 4096},
        {"3M", 3ull << 20},
        {"3mb", 3ull << 20},
        {"512M", 512ull << 20},
        {"2G", 2ull << 30},
        {"2gib", 2ull << 30},
        {"1T", 1ull << 40},
        {"007", 7},
        {"18446744073709551615", SIZE_MAX},
        {"16777215T", 16777215ull << 40},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        size_t v = 99;
        cr_assert_eq(gshmemi_parse_size(t[i].s, &v), 0, "'%s' rejected", t[i].s);
        cr_assert_eq(v, t[i].v, "'%s' -> %zu, want %zu", t[i].s, v, t[i].v);
    }
}

Test(config, parse_size_bad)
{
    static const char *const bad[] = {
        "", "-1", "12Q", "K", " 1", "1 ", "1.5G", "0x10", "1GG", "1 G", "+5", "G1",
        "18446744073709551616",       /* 2^64 */
        "99999999999999999999999",    /* way beyond */
        "17179869184G",               /* 2^34 * 2^30 = 2^64 */
        "16777216T",                  /* 2^24 * 2^40 = 2^64 */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t v = 99;
        cr_assert_eq(gshmemi_parse_size(bad[i], &v), GSHMEM_ERR_CONFIG, "'%s' accepted", bad[i]);
        cr_assert_eq(v, 99, "output written on failure for '%s'", bad[i]);
    }
    cr_assert_eq(gshmemi_parse_size(NULL, &(size_t){0}), GSHMEM_ERR_CONFIG);
}

Test(config, parse_bool)
{
    static const char *const on[] = {"1", "on", "ON", "yes", "Yes", "true", "TRUE"};
    static const char *const off[] = {"0", "off", "Off", "no", "NO", "false", "False"};
    static const char *const bad[] = {"", "2", "y", "n", "onn", "enable", " 1", "1 ", "-1", "t"};
    int v;

    for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
        v = 7;
        cr_assert_eq(gshmemi_parse_bool(on[i], &v), 0, "%s", on[i]);
        cr_assert_eq(v, 1, "%s", on[i]);
    }
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
        v = 7;
        cr_assert_eq(gshmemi_parse_bool(off[i], &v), 0, "%s", off[i]);
        cr_assert_eq(v, 0, "%s", off[i]);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        cr_assert_eq(gshmemi_parse_bool(bad[i], &v), GSHMEM_ERR_CONFIG, "'%s' accepted", bad[i]);
        cr_assert_eq(v, 7);
    }
}

Test(config, parse_int)
{
    static const struct {
        const char *s;
        long v;
    } good[] = {{"60", 60}, {"0", 0}, {"-5", -5}, {"+7", 7}, {"0012", 12}};
    static const char *const bad[] = {"", "6x", "abc", "-", "+", " 5", "5 ", "1e3", "0x10",
                                      "99999999999999999999999", "--1"};
    long v;

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        v = 99;
        cr_assert_eq(gshmemi_parse_int(good[i].s, &v), 0, "%s", good[i].s);
        cr_assert_eq(v, good[i].v, "%s -> %ld", good[i].s, v);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 99;
        cr_assert_eq(gshmemi_parse_int(bad[i], &v), GSHMEM_ERR_CONFIG, "'%s' accepted", bad[i]);
        cr_assert_eq(v, 99);
    }
}

/* ---- loading ------------------------------------------------------------------ */

Test(config, defaults)
{
    gshmemi_config_t cfg;

    clear_env();
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    cr_assert_eq(cfg.symmetric_size, 256ull << 20);
    cr_assert_str_eq(cfg.debug, "WARN");
    cr_assert_str_eq(cfg.debug_subsys, "ALL");
    cr_assert_str_eq(cfg.bootstrap, "auto");
    cr_assert_str_eq(cfg.transports, "auto");
    cr_assert_eq(cfg.disable_p2p, 0);
    cr_assert_eq(cfg.p2p_batch, 1);
    cr_assert_str_eq(cfg.ofi_provider, "");
    cr_assert_eq(cfg.timeout, 0);   /* no limit */
    cr_assert_eq(cfg.idle_spin_us, 1000);
    cr_assert_eq(cfg.idle_nap_us, 50);
    cr_assert_eq(cfg.info, 0);
    cr_assert_eq(cfg.enable_error_checks, 1);
    cr_assert_str_eq(cfg.heap, "auto");
    cr_assert_eq(cfg.stream_ce_min, 256u << 10);
    cr_assert_eq(gshmemi_log_level, GSHMEMI_LOG_WARN);
    cr_assert_eq(gshmemi_log_mask, GSHMEMI_SUBSYS_ALL);
}

Test(config, from_env)
{
    gshmemi_config_t cfg;

    clear_env();
    setenv("GSHMEM_SYMMETRIC_SIZE", "1G", 1);
    setenv("GSHMEM_DISABLE_P2P", "yes", 1);
    setenv("GSHMEM_P2P_BATCH", "0", 1);
    setenv("GSHMEM_TIMEOUT", "5", 1);
    setenv("GSHMEM_TRANSPORTS", "shm,OFI", 1);
    setenv("GSHMEM_BOOTSTRAP", "LOCAL", 1);
    setenv("GSHMEM_OFI_PROVIDER", "tcp;ofi_rxm", 1);
    setenv("GSHMEM_ENABLE_ERROR_CHECKS", "off", 1);
    setenv("GSHMEM_HEAP", "host", 1);
    setenv("GSHMEM_INFO", "", 1);   /* empty: the default */
    setenv("GSHMEM_STREAM_CE_MIN", "1M", 1);
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    cr_assert_eq(cfg.symmetric_size, 1ull << 30);
    cr_assert_eq(cfg.disable_p2p, 1);
    cr_assert_eq(cfg.p2p_batch, 0);
    cr_assert_eq(cfg.timeout, 5);
    cr_assert_str_eq(cfg.transports, "shm,OFI");
    cr_assert_str_eq(cfg.bootstrap, "LOCAL");
    cr_assert_str_eq(cfg.ofi_provider, "tcp;ofi_rxm");
    cr_assert_eq(cfg.enable_error_checks, 0);
    cr_assert_str_eq(cfg.heap, "host");
    cr_assert_eq(cfg.info, 0);
    cr_assert_eq(cfg.stream_ce_min, 1u << 20);
}

/* GSHMEM_STREAM_CE_MIN: bytes (0: never the copy engines, 1: always) */
Test(config, stream_ce_min)
{
    static const struct {
        const char *s;
        size_t v;
    } t[] = {{"0", 0}, {"1", 1}, {"4096", 4096}, {"64K", 64u << 10}, {"2M", 2u << 20}};
    gshmemi_config_t cfg;

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        clear_env();
        setenv("GSHMEM_STREAM_CE_MIN", t[i].s, 1);
        cr_assert_eq(gshmemi_config_load(&cfg), 0, "%s", t[i].s);
        cr_assert_eq(cfg.stream_ce_min, t[i].v, "%s -> %zu", t[i].s, cfg.stream_ce_min);
    }
}

Test(config, applies_log_settings)
{
    gshmemi_config_t cfg;

    clear_env();
    setenv("GSHMEM_DEBUG", "trace", 1);
    setenv("GSHMEM_DEBUG_SUBSYS", "heap,PROXY", 1);
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    cr_assert_eq(gshmemi_log_level, GSHMEMI_LOG_TRACE);
    cr_assert_eq(gshmemi_log_mask, GSHMEMI_SUBSYS_HEAP | GSHMEMI_SUBSYS_PROXY);
}

Test(config, invalid_values_rejected_by_name)
{
    static const struct {
        const char *var, *value, *expect;
    } t[] = {
        {"GSHMEM_SYMMETRIC_SIZE", "12Q", "expected a size such as 512M or 2G"},
        {"GSHMEM_SYMMETRIC_SIZE", "0", "> 0"},
        {"GSHMEM_SYMMETRIC_SIZE", "-1G", "expected a size"},
        {"GSHMEM_DISABLE_P2P", "maybe", "expected 0/1, on/off, yes/no or true/false"},
        {"GSHMEM_INFO", "2", "expected 0/1"},
        {"GSHMEM_TIMEOUT", "abc", "expected a decimal integer"},
        {"GSHMEM_TIMEOUT", "-3", ">= 0 (0: no limit)"},
        {"GSHMEM_IDLE_SPIN_US", "-1", "microseconds from 0 to 10000000"},
        {"GSHMEM_IDLE_NAP_US", "0", "microseconds from 1 to 1000000"},
        {"GSHMEM_OFI_AM_CHUNK", "1K", "a size from 4K to 4M"},
        {"GSHMEM_OFI_AM_CHUNK", "8M", "a size from 4K to 4M"},
        {"GSHMEM_OFI_AM_RAILS", "0", "a count from 1 to 8"},
        {"GSHMEM_OFI_AM_RAILS", "9", "a count from 1 to 8"},
        {"GSHMEM_AGG_BUFS", "-1", "a count from 1 to 64"},
        {"GSHMEM_AGG_BUFS", "0", "a count from 1 to 64"},
        {"GSHMEM_AGG_WAIT_US", "-1", "microseconds from 0 to 10000000"},
        /* were accepted at init, refused only by gshmem_agg_create */
        {"GSHMEM_AGG_BYTES", "1T", "a size from 16 to 16M, a multiple of 8"},
        {"GSHMEM_AGG_BYTES", "0", "a size from 16 to 16M, a multiple of 8"},
        {"GSHMEM_AGG_BYTES", "12", "a size from 16 to 16M, a multiple of 8"},
        {"GSHMEM_AGG_BYTES", "17M", "a size from 16 to 16M, a multiple of 8"},
        /* empty items were skipped: ",," read as no library at all */
        {"GSHMEM_SYMMETRIC_LIBS", ",,", "without an empty item"},
        {"GSHMEM_SYMMETRIC_LIBS", "libfoo.so,", "without an empty item"},
        {"GSHMEM_SYMMETRIC_LIBS", "liba.so,,libb.so", "without an empty item"},
        {"GSHMEM_STREAM_CE_MIN", "-1", "expected a size such as 512M or 2G"},
        {"GSHMEM_STREAM_CE_MIN", "256KX", "expected a size such as 512M or 2G"},
        {"GSHMEM_BOOTSTRAP", "slurm", "auto, local, mpi, pmix, uid, self"},
        {"GSHMEM_BOOTSTRAP_UID_TIMEOUT", "-1", "seconds from 0 (no limit) to 1000000"},
        {"GSHMEM_BOOTSTRAP_UID_PE", "-2", "a PE number from 0 (-1: unset)"},
        {"GSHMEM_BOOTSTRAP_UID_N_PES", "-1", "a PE count from 1 (0: unset)"},
        {"GSHMEM_HEAP", "gpu", "auto, host, cuda"},
        {"GSHMEM_TRANSPORTS", "p2p,tcp", "p2p, shm, ofi"},
        {"GSHMEM_TRANSPORTS", "shm,shm", "p2p, shm, ofi"},
        {"GSHMEM_TRANSPORTS", "shm,", "p2p, shm, ofi"},
        {"GSHMEM_TRANSPORTS", "auto,shm", "p2p, shm, ofi"},
        {"GSHMEM_DEBUG", "LOUD", "NONE, ERROR, WARN, INFO, DEBUG, TRACE"},
        {"GSHMEM_DEBUG_SUBSYS", "HEAP,FOO", "INIT, HEAP"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        gshmemi_config_t cfg;
        char want[256];
        test_cap_t c;
        char *out;
        int rc;

        clear_env();
        setenv(t[i].var, t[i].value, 1);
        test_cap_start(&c);
        rc = gshmemi_config_load(&cfg);
        out = test_cap_end(&c);
        cr_assert_eq(rc, GSHMEM_ERR_CONFIG, "%s=%s accepted", t[i].var, t[i].value);
        snprintf(want, sizeof(want), "invalid %s=\"%s\": expected", t[i].var, t[i].value);
        cr_assert_not_null(strstr(out, want), "%s=%s: log lacks '%s':\n%s", t[i].var,
                           t[i].value, want, out);
        cr_assert_not_null(strstr(out, t[i].expect), "%s=%s: log lacks '%s':\n%s", t[i].var,
                           t[i].value, t[i].expect, out);
        cr_assert_not_null(strstr(out, " gshmem ERROR [INIT] "), "%s", out);
        free(out);
    }
}

/* A host heap larger than the machine's memory is refused, naming the
 * variable, the value as written and the limit (1T was accepted on a
 * 23 GiB machine, and gshmem_malloc(900 GiB) succeeded). */
Test(config, host_heap_within_physical_memory)
{
    gshmemi_config_t cfg;
    test_cap_t c;

    clear_env();
    setenv("GSHMEM_SYMMETRIC_SIZE", "100G", 1);
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    cr_assert_eq(gshmemi_config_check_host_heap(&cfg, (size_t)100 << 30), 0, "100G in 100G");
    cr_assert_eq(gshmemi_config_check_host_heap(&cfg, 0), 0, "unknown memory: not checked");
    test_cap_start(&c);
    int rc = gshmemi_config_check_host_heap(&cfg, (size_t)23 << 30);
    char *out = test_cap_end(&c);
    cr_assert_eq(rc, GSHMEM_ERR_CONFIG, "100G accepted with 23G of memory");
    cr_assert_not_null(strstr(out, "invalid GSHMEM_SYMMETRIC_SIZE=\"100G\": expected a host "
                                   "heap no larger than this machine's physical memory, "
                                   "24696061952 bytes (23.0 GiB)"), "%s", out);
    free(out);
    cr_assert_gt(gshmemi_config_phys_bytes(), (size_t)1 << 20, "the machine's memory");
}

Test(config, exact_size_message)
{
    gshmemi_config_t cfg;
    test_cap_t c;
    char *out;

    clear_env();
    setenv("GSHMEM_SYMMETRIC_SIZE", "12Q", 1);
    test_cap_start(&c);
    cr_assert_eq(gshmemi_config_load(&cfg), GSHMEM_ERR_CONFIG);
    out = test_cap_end(&c);
    cr_assert_not_null(strstr(out, "] invalid GSHMEM_SYMMETRIC_SIZE=\"12Q\": expected a size "
                                   "such as 512M or 2G\n"),
                       "%s", out);
    free(out);
}

Test(config, unknown_variable_warns)
{
    gshmemi_config_t cfg;
    test_cap_t c;
    char *out;

    clear_env();
    setenv("GSHMEM_FOO", "1", 1);
    setenv("GSHMEM_SYMMETRIC_SIZ", "1G", 1);   /* a typo of a real name */
    setenv("GSHMEMRUN_NPES", "4", 1);          /* the launcher's */
    setenv("GSHMEM_NVSHMEM_ROOT", "/opt", 1);  /* allow-listed */
    setenv("GSHMEM_TEST_BUILD_DIR", "/b", 1);  /* allow-listed: the test suite's */
    setenv("GSHMEM_TIMEOUT", "9", 1);          /* a real one */
    setenv("GSHMEM_NCCL_LIB", "/x/libnccl.so.2", 1);   /* read by the apps (apps/common) */
    setenv("GSHMEM_CUDA_ARCHS", "90-virtual", 1);      /* scripts/test.sh exports it */
    setenv("GSHMEM_VENV_PYTHON", "/usr/bin/python3", 1);   /* the Python tests' */
    test_cap_start(&c);
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    out = test_cap_end(&c);
    cr_assert_not_null(strstr(out, "gshmem WARN [INIT] unknown environment variable GSHMEM_FOO "),
                       "%s", out);
    cr_assert_not_null(strstr(out, "variable GSHMEM_SYMMETRIC_SIZ "), "%s", out);
    cr_assert_null(strstr(out, "GSHMEMRUN_NPES"), "%s", out);
    cr_assert_null(strstr(out, "NVSHMEM_ROOT"), "%s", out);
    cr_assert_null(strstr(out, "TEST_BUILD_DIR"), "%s", out);
    cr_assert_null(strstr(out, "GSHMEM_TIMEOUT"), "%s", out);
    cr_assert_null(strstr(out, "NCCL_LIB"), "%s", out);
    cr_assert_null(strstr(out, "CUDA_ARCHS"), "%s", out);
    cr_assert_null(strstr(out, "VENV_PYTHON"), "%s", out);
    /* exactly two warnings */
    int lines = 0;
    for (char *p = out; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    cr_assert_eq(lines, 2, "%s", out);
    free(out);
}

Test(config, info_lists_every_setting)
{
    static const char *const names[] = {
#define GSHMEMI_CFG(type, NAME, field, dflt, help) "GSHMEM_" #NAME,
#include "base/util/config_table.h"
#undef GSHMEMI_CFG
    };
    gshmemi_config_t cfg;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    clear_env();
    setenv("GSHMEM_SYMMETRIC_SIZE", "3G", 1);
    setenv("GSHMEM_TIMEOUT", "17", 1);
    cr_assert_eq(gshmemi_config_load(&cfg), 0);
    f = open_memstream(&buf, &len);
    gshmemi_config_print(&cfg, f);
    fclose(f);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *line = strstr(buf, names[i]);
        cr_assert_not_null(line, "%s missing from:\n%s", names[i], buf);
        cr_assert(line[strlen(names[i])] == ' ', "%s", names[i]);
    }
    cr_assert_not_null(strstr(buf, "GSHMEM_SYMMETRIC_SIZE        3G           256M"), "%s", buf);
    cr_assert_not_null(strstr(buf, "GSHMEM_TIMEOUT               17           0 "), "%s", buf);
    cr_assert_not_null(strstr(buf, "bytes of symmetric heap per PE"), "%s", buf);
    free(buf);
}

/* config.c: the GSHMEM_* settings. Everything here is generated from the
 * one table in config_table.h: the defaults, the parser of each variable,
 * the check for unknown GSHMEM_* variables and the GSHMEM_INFO listing.
 *
 * Choices:
 * - An empty value (GSHMEM_X=) counts as unset: the default applies.
 * - Sizes: decimal digits then an optional K, M, G or T (also KB, KiB...),
 *   case-insensitive, powers of 1024. A host heap's GSHMEM_SYMMETRIC_SIZE
 *   is at most the machine's physical memory (checked once the heap's
 *   kind is known: gshmemi_config_check_host_heap).
 * - Integers have their ranges (gshmemi_config_ranges): a negative count
 *   or time is refused, not clamped.
 * - String settings with a fixed set of values are checked here, so that a
 *   typo is reported by name at init rather than somewhere later. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "config.h"
#include "log.h"

extern char **environ;

/* GSHMEM_* variables that are not settings of this table but are known, so
 * they draw no "unknown variable" warning: install-location hints read by
 * scripts and build files. (GSHMEMRUN_* belong to the launcher and do not
 * start with "GSHMEM_" anyway.) */
static const char *const gshmemi_config_allow[] = {
    "GSHMEM_NVSHMEM_ROOT",
    "GSHMEM_ROOT",
    "GSHMEM_HOME",
    /* the Python package's library location (python/gshmem/_lib.py) */
    "GSHMEM_LIB",
    /* read by gshmem's own test suite (tests/common) for a carried build;
     * the GPU-machine scripts export it to every program they run */
    "GSHMEM_TEST_BUILD_DIR",
    /* scripts/gpu-check.sh's test filter, in the environment of the PEs the
     * suite starts there (a WARN failed the tests that forbid WARN lines) */
    "GSHMEM_TEST_FILTER",
    /* the NCCL library of the apps' baselines (apps/common/app_nccl.c) */
    "GSHMEM_NCCL_LIB",
    /* scripts/build.sh's CUDA architectures and targets (scripts/test.sh
     * exports the first to its builds) and the Python tests' base
     * interpreter (tests/python/make_venv.sh) */
    "GSHMEM_CUDA_ARCHS",
    "GSHMEM_BUILD_TARGETS",
    "GSHMEM_VENV_PYTHON",
};

/* ---- parsers -------------------------------------------------------------- */

static int gshmemi_parse_suffix(const char *s, size_t *mult_p)
{
    static const struct {
        const char *text;
        size_t mult;
    } sfx[] = {
        {"", 1},          {"B", 1},
        {"K", 1ull << 10}, {"KB", 1ull << 10}, {"KiB", 1ull << 10},
        {"M", 1ull << 20}, {"MB", 1ull << 20}, {"MiB", 1ull << 20},
        {"G", 1ull << 30}, {"GB", 1ull << 30}, {"GiB", 1ull << 30},
        {"T", 1ull << 40}, {"TB", 1ull << 40}, {"TiB", 1ull << 40},
    };
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        if (strcasecmp(s, sfx[i].text) == 0) {
            *mult_p = sfx[i].mult;
            return GSHMEM_SUCCESS;
        }
    }
    return GSHMEM_ERR_CONFIG;
}

int gshmemi_parse_size(const char *s, size_t *out_p)
{
    size_t v = 0, mult;

    if (s == NULL || !isdigit((unsigned char)*s))
        return GSHMEM_ERR_CONFIG;
    for (; isdigit((unsigned char)*s); s++) {
        size_t d = (size_t)(*s - '0');
        if (v > (SIZE_MAX - d) / 10)
            return GSHMEM_ERR_CONFIG;
        v = v * 10 + d;
    }
    if (gshmemi_parse_suffix(s, &mult) != GSHMEM_SUCCESS)
        return GSHMEM_ERR_CONFIG;
    if (v != 0 && mult > SIZE_MAX / v)
        return GSHMEM_ERR_CONFIG;
    *out_p = v * mult;
    return GSHMEM_SUCCESS;
}

int gshmemi_parse_bool(const char *s, int *out_p)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};

    if (s == NULL)
        return GSHMEM_ERR_CONFIG;
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out_p = 1;
            return GSHMEM_SUCCESS;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out_p = 0;
            return GSHMEM_SUCCESS;
        }
    }
    return GSHMEM_ERR_CONFIG;
}

int gshmemi_parse_int(const char *s, long *out_p)
{
    char *end;
    long v;

    if (s == NULL || (!isdigit((unsigned char)*s) && *s != '-' && *s != '+'))
        return GSHMEM_ERR_CONFIG;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || !isdigit((unsigned char)end[-1]))
        return GSHMEM_ERR_CONFIG;
    *out_p = v;
    return GSHMEM_SUCCESS;
}

static int gshmemi_parse_string(const char *s, char *out, size_t cap)
{
    size_t n = strlen(s);

    if (n >= cap)
        return GSHMEM_ERR_CONFIG;
    memcpy(out, s, n + 1);
    return GSHMEM_SUCCESS;
}

/* ---- per-type glue generated from the table ------------------------------- */

#define GSHMEMI_CFG_EXPECT_size "a size such as 512M or 2G"
#define GSHMEMI_CFG_EXPECT_bool "0/1, on/off, yes/no or true/false"
#define GSHMEMI_CFG_EXPECT_int "a decimal integer"
#define GSHMEMI_CFG_EXPECT_string "a string shorter than 256 characters"

#define GSHMEMI_CFG_PARSE_size(s, cfg, field) gshmemi_parse_size(s, &(cfg)->field)
#define GSHMEMI_CFG_PARSE_bool(s, cfg, field) gshmemi_parse_bool(s, &(cfg)->field)
#define GSHMEMI_CFG_PARSE_int(s, cfg, field) gshmemi_parse_int(s, &(cfg)->field)
#define GSHMEMI_CFG_PARSE_string(s, cfg, field) \
    gshmemi_parse_string(s, (cfg)->field, sizeof((cfg)->field))

/* Parse one setting's value (the default, then the environment's). */
static int gshmemi_config_set(gshmemi_config_t *cfg, const char *name, const char *value)
{
#define GSHMEMI_CFG(type, NAME, field, dflt, help)                                \
    if (strcmp(name, #NAME) == 0) {                                              \
        if (GSHMEMI_CFG_PARSE_##type(value, cfg, field) != GSHMEM_SUCCESS) {     \
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "invalid GSHMEM_%s=\"%s\": expected %s", \
                          #NAME, value, GSHMEMI_CFG_EXPECT_##type);              \
            return GSHMEM_ERR_CONFIG;                                            \
        }                                                                        \
        return GSHMEM_SUCCESS;                                                   \
    }
#include "config_table.h"
#undef GSHMEMI_CFG
    return GSHMEM_ERR_INTERNAL;
}

const gshmemi_config_desc_t gshmemi_config_descs[] = {
#define GSHMEMI_CFG(type, NAME, field, dflt, help) {#NAME, #type, dflt, help},
#include "config_table.h"
#undef GSHMEMI_CFG
};
const size_t gshmemi_config_n_descs = sizeof(gshmemi_config_descs) / sizeof(gshmemi_config_descs[0]);
#define GSHMEMI_CONFIG_N (sizeof(gshmemi_config_descs) / sizeof(gshmemi_config_descs[0]))

/* ---- checks of values beyond their type ----------------------------------- */

/* s must be one of the '|'-separated words of set (case-insensitive). */
static int gshmemi_config_one_of(const char *s, const char *set)
{
    size_t n = strlen(s);

    while (*set) {
        const char *bar = strchr(set, '|');
        size_t m = bar ? (size_t)(bar - set) : strlen(set);
        if (m == n && strncasecmp(s, set, n) == 0)
            return 1;
        set += m + (bar ? 1 : 0);
    }
    return 0;
}

/* "auto", or a comma list of p2p/shm/ofi without repeats. */
static int gshmemi_config_transports_ok(const char *s)
{
    char buf[256], *save = NULL, *tok;
    unsigned seen = 0;

    if (strcasecmp(s, "auto") == 0)
        return 1;
    snprintf(buf, sizeof(buf), "%s", s);
    if (buf[0] == '\0' || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned bit = strcasecmp(tok, "p2p") == 0   ? 1u
                       : strcasecmp(tok, "shm") == 0 ? 2u
                       : strcasecmp(tok, "ofi") == 0 ? 4u
                                                     : 0u;
        if (bit == 0 || (seen & bit))
            return 0;
        seen |= bit;
    }
    return 1;
}

/* "" (unset), or a comma list without an empty item. */
static int gshmemi_config_list_ok(const char *s)
{
    size_t n = strlen(s);
    return n == 0 || (s[0] != ',' && s[n - 1] != ',' && strstr(s, ",,") == NULL);
}

static int gshmemi_config_reject(const char *name, const char *value, const char *expect)
{
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "invalid GSHMEM_%s=\"%s\": expected %s", name, value,
                  expect);
    return GSHMEM_ERR_CONFIG;
}

static const char *gshmemi_config_fmt_size(size_t v, char *buf, size_t cap);

/* The same for a size setting, its value as the user wrote it. */
static int gshmemi_config_reject_size(const char *name, size_t v, const char *expect)
{
    char var[64], text[32];
    snprintf(var, sizeof var, "GSHMEM_%s", name);
    const char *raw = getenv(var);
    return gshmemi_config_reject(name, raw && *raw ? raw
                                 : gshmemi_config_fmt_size(v, text, sizeof text), expect);
}

/* The integer settings' ranges (what a value means beyond its type). */
static const struct {
    const char *name;   /* after GSHMEM_ */
    size_t off;         /* of its long in gshmemi_config_t */
    long lo, hi;
    const char *expect;
} gshmemi_config_ranges[] = {
    {"TIMEOUT", offsetof(gshmemi_config_t, timeout), 0, LONG_MAX,
     "a number of seconds >= 0 (0: no limit)"},
    {"BOOTSTRAP_UID_PE", offsetof(gshmemi_config_t, bootstrap_uid_pe), -1, 1 << 30,
     "a PE number from 0 (-1: unset)"},
    {"BOOTSTRAP_UID_N_PES", offsetof(gshmemi_config_t, bootstrap_uid_n_pes), 0, 1 << 30,
     "a PE count from 1 (0: unset)"},
    {"BOOTSTRAP_UID_TIMEOUT", offsetof(gshmemi_config_t, bootstrap_uid_timeout), 0, 1000000,
     "seconds from 0 (no limit) to 1000000"},
    {"STOPPED_TIMEOUT", offsetof(gshmemi_config_t, stopped_timeout), 0, 1000000000,
     "whole seconds from 0 (never) to 1000000000"},
    {"IDLE_SPIN_US", offsetof(gshmemi_config_t, idle_spin_us), 0, 10000000,
     "microseconds from 0 to 10000000"},
    {"IDLE_NAP_US", offsetof(gshmemi_config_t, idle_nap_us), 1, 1000000,
     "microseconds from 1 to 1000000"},
    {"OFI_AM_RAILS", offsetof(gshmemi_config_t, ofi_am_rails), 1, 8, "a count from 1 to 8"},
    /* gshmem_agg.h's bufs_per_pe and max_wait_us */
    {"AGG_BUFS", offsetof(gshmemi_config_t, agg_bufs), 1, 64, "a count from 1 to 64"},
    {"AGG_WAIT_US", offsetof(gshmemi_config_t, agg_wait_us), 0, 10000000,
     "microseconds from 0 to 10000000"},
};

static int gshmemi_config_check_ranges(const gshmemi_config_t *cfg)
{
    for (size_t i = 0; i < sizeof gshmemi_config_ranges / sizeof gshmemi_config_ranges[0]; i++) {
        const long v = *(const long *)((const char *)cfg + gshmemi_config_ranges[i].off);
        char text[32];
        if (v >= gshmemi_config_ranges[i].lo && v <= gshmemi_config_ranges[i].hi)
            continue;
        snprintf(text, sizeof text, "%ld", v);
        return gshmemi_config_reject(gshmemi_config_ranges[i].name, text,
                                     gshmemi_config_ranges[i].expect);
    }
    return GSHMEM_SUCCESS;
}

static int gshmemi_config_validate(gshmemi_config_t *cfg)
{
    int level;
    unsigned mask;

    if (gshmemi_log_parse_level(cfg->debug, &level) != GSHMEM_SUCCESS)
        return gshmemi_config_reject("DEBUG", cfg->debug,
                                     "one of NONE, ERROR, WARN, INFO, DEBUG, TRACE");
    if (gshmemi_log_parse_subsys(cfg->debug_subsys, &mask) != GSHMEM_SUCCESS)
        return gshmemi_config_reject("DEBUG_SUBSYS", cfg->debug_subsys,
                                     "a comma list of INIT, HEAP, TRANSPORT, PROXY, AGG, "
                                     "BOOTSTRAP, COLL or ALL");
    if (!gshmemi_config_one_of(cfg->bootstrap, "auto|local|mpi|pmix|uid|self"))
        return gshmemi_config_reject("BOOTSTRAP", cfg->bootstrap,
                                     "one of auto, local, mpi, pmix, uid, self");
    if (!gshmemi_config_one_of(cfg->heap, "auto|host|cuda"))
        return gshmemi_config_reject("HEAP", cfg->heap, "one of auto, host, cuda");
    if (!gshmemi_config_transports_ok(cfg->transports))
        return gshmemi_config_reject("TRANSPORTS", cfg->transports,
                                     "auto or a comma list of p2p, shm, ofi (no repeats)");
    if (!gshmemi_config_list_ok(cfg->symmetric_libs))
        return gshmemi_config_reject("SYMMETRIC_LIBS", cfg->symmetric_libs,
                                     "a comma list of library file names without an empty item");
    GSHMEMI_CHECK(gshmemi_config_check_ranges(cfg));
    if (cfg->ofi_am_chunk < 4096 || cfg->ofi_am_chunk > ((size_t)4 << 20))
        return gshmemi_config_reject_size("OFI_AM_CHUNK", cfg->ofi_am_chunk,
                                          "a size from 4K to 4M");
    if (cfg->symmetric_size == 0)
        return gshmemi_config_reject("SYMMETRIC_SIZE", "0", "a size > 0 such as 512M or 2G");
    /* gshmem_agg.h's buf_bytes (16 .. 16 MiB, a multiple of 8): checked at
     * init like AGG_BUFS, not first at gshmem_agg_create */
    if (cfg->agg_bytes < 16 || cfg->agg_bytes > ((size_t)16 << 20) || cfg->agg_bytes % 8 != 0)
        return gshmemi_config_reject_size("AGG_BYTES", cfg->agg_bytes,
                                          "a size from 16 to 16M, a multiple of 8");
    /* Apply the log settings right away: the rest of init logs with them. */
    gshmemi_log_level = level;
    gshmemi_log_mask = mask;
    return GSHMEM_SUCCESS;
}

size_t gshmemi_config_phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

int gshmemi_config_check_host_heap(const gshmemi_config_t *cfg, size_t phys)
{
    char expect[160];

    if (phys == 0 || cfg->symmetric_size <= phys)
        return GSHMEM_SUCCESS;
    snprintf(expect, sizeof expect, "a host heap no larger than this machine's physical "
             "memory, %zu bytes (%.1f GiB)", phys, (double)phys / (double)(1ull << 30));
    return gshmemi_config_reject_size("SYMMETRIC_SIZE", cfg->symmetric_size, expect);
}

/* ---- loading ----------------------------------------------------------------- */

static int gshmemi_config_known(const char *var, size_t n)
{
    for (size_t i = 0; i < GSHMEMI_CONFIG_N; i++) {
        const char *name = gshmemi_config_descs[i].name;
        if (n == strlen("GSHMEM_") + strlen(name) &&
            strncmp(var + strlen("GSHMEM_"), name, strlen(name)) == 0)
            return 1;
    }
    for (size_t i = 0; i < sizeof(gshmemi_config_allow) / sizeof(gshmemi_config_allow[0]); i++)
        if (n == strlen(gshmemi_config_allow[i]) && strncmp(var, gshmemi_config_allow[i], n) == 0)
            return 1;
    return 0;
}

static void gshmemi_config_warn_unknown(void)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, "GSHMEM_", strlen("GSHMEM_")) != 0 ||
            strncmp(*e, "GSHMEMRUN_", strlen("GSHMEMRUN_")) == 0)
            continue;
        if (!gshmemi_config_known(*e, n))
            GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT,
                         "unknown environment variable %.*s ignored (GSHMEM_INFO=1 lists "
                         "the settings)", (int)n, *e);
    }
}

int gshmemi_config_load(gshmemi_config_t *cfg)
{
    char var[128];

    memset(cfg, 0, sizeof(*cfg));
#define GSHMEMI_CFG(type, NAME, field, dflt, help) GSHMEMI_CHECK(gshmemi_config_set(cfg, #NAME, dflt));
#include "config_table.h"
#undef GSHMEMI_CFG
    for (size_t i = 0; i < GSHMEMI_CONFIG_N; i++) {
        const char *value;
        snprintf(var, sizeof(var), "GSHMEM_%s", gshmemi_config_descs[i].name);
        value = getenv(var);
        if (value != NULL && value[0] != '\0')
            GSHMEMI_CHECK(gshmemi_config_set(cfg, gshmemi_config_descs[i].name, value));
    }
    GSHMEMI_CHECK(gshmemi_config_validate(cfg));
    gshmemi_config_warn_unknown();
    return GSHMEM_SUCCESS;
}

/* ---- GSHMEM_INFO listing ----------------------------------------------------- */


static const char *gshmemi_config_fmt_size(size_t v, char *buf, size_t cap)
{
    static const char units[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        size_t m = (size_t)1 << (10 * (4 - i));
        if (v != 0 && v % m == 0) {
            snprintf(buf, cap, "%zu%c", v / m, units[i]);
            return buf;
        }
    }
    snprintf(buf, cap, "%zu", v);
    return buf;
}

#define GSHMEMI_CFG_FMT_size(cfg, field, buf) \
    gshmemi_config_fmt_size((cfg)->field, buf, sizeof(buf))
#define GSHMEMI_CFG_FMT_bool(cfg, field, buf) ((cfg)->field ? "1" : "0")
#define GSHMEMI_CFG_FMT_int(cfg, field, buf) \
    (snprintf(buf, sizeof(buf), "%ld", (cfg)->field), buf)
#define GSHMEMI_CFG_FMT_string(cfg, field, buf) ((cfg)->field[0] ? (cfg)->field : "\"\"")

void gshmemi_config_print(const gshmemi_config_t *cfg, FILE *out)
{
    char buf[64];

    fprintf(out, "gshmem settings (environment variable, value, default, meaning):\n");
#define GSHMEMI_CFG(type, NAME, field, dflt, help)                                   \
    fprintf(out, "  %-28s %-12s %-12s %s\n", "GSHMEM_" #NAME,                        \
            GSHMEMI_CFG_FMT_##type(cfg, field, buf), dflt[0] ? dflt : "\"\"", help);
#include "config_table.h"
#undef GSHMEMI_CFG
    fflush(out);
}

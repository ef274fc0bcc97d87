/* log.c: leveled, per-subsystem logging (see log.h).
 *
 * Each line is "<host>:<pid>:PE<n> gshmem <LEVEL> [<SUBSYS>] message" and is
 * written to stderr with a single write() so that the lines of PEs sharing a
 * terminal do not interleave. The line is built in a stack buffer; an
 * overlong message is cut and ends with "...". */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "log.h"

#define GSHMEMI_LOG_LINE_MAX 2048

int gshmemi_log_level = GSHMEMI_LOG_WARN;
unsigned gshmemi_log_mask = GSHMEMI_SUBSYS_ALL;

static int gshmemi_log_pe = -1;
static char gshmemi_log_host[64];

static const char *const gshmemi_log_level_names[] = {
    [GSHMEMI_LOG_NONE] = "NONE",   [GSHMEMI_LOG_ERROR] = "ERROR",
    [GSHMEMI_LOG_WARN] = "WARN",   [GSHMEMI_LOG_INFO] = "INFO",
    [GSHMEMI_LOG_DEBUG] = "DEBUG", [GSHMEMI_LOG_TRACE] = "TRACE",
};

static const struct {
    const char *name;
    unsigned bit;
} gshmemi_log_subsys_names[] = {
    {"INIT", GSHMEMI_SUBSYS_INIT},   {"HEAP", GSHMEMI_SUBSYS_HEAP},
    {"TRANSPORT", GSHMEMI_SUBSYS_TRANSPORT}, {"PROXY", GSHMEMI_SUBSYS_PROXY},
    {"AGG", GSHMEMI_SUBSYS_AGG},     {"BOOTSTRAP", GSHMEMI_SUBSYS_BOOTSTRAP},
    {"COLL", GSHMEMI_SUBSYS_COLL},   {"ALL", GSHMEMI_SUBSYS_ALL},
};
#define GSHMEMI_LOG_N_SUBSYS \
    (sizeof(gshmemi_log_subsys_names) / sizeof(gshmemi_log_subsys_names[0]))

int gshmemi_log_parse_level(const char *s, int *level_p)
{
    if (s == NULL)
        return GSHMEM_ERR_CONFIG;
    for (int l = GSHMEMI_LOG_NONE; l <= GSHMEMI_LOG_TRACE; l++) {
        if (strcasecmp(s, gshmemi_log_level_names[l]) == 0) {
            *level_p = l;
            return GSHMEM_SUCCESS;
        }
    }
    return GSHMEM_ERR_CONFIG;
}

/* One item of a subsystem list, [s, s+n), surrounding blanks allowed. */
static int gshmemi_log_subsys_item(const char *s, size_t n, unsigned *bit_p)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    for (size_t i = 0; i < GSHMEMI_LOG_N_SUBSYS; i++) {
        const char *name = gshmemi_log_subsys_names[i].name;
        if (n > 0 && strlen(name) == n && strncasecmp(s, name, n) == 0) {
            *bit_p = gshmemi_log_subsys_names[i].bit;
            return GSHMEM_SUCCESS;
        }
    }
    return GSHMEM_ERR_CONFIG;
}

int gshmemi_log_parse_subsys(const char *s, unsigned *mask_p)
{
    unsigned mask = 0;

    if (s == NULL)
        return GSHMEM_ERR_CONFIG;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        unsigned bit;
        if (gshmemi_log_subsys_item(s, n, &bit) != GSHMEM_SUCCESS)
            return GSHMEM_ERR_CONFIG;
        mask |= bit;
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    *mask_p = mask;
    return GSHMEM_SUCCESS;
}

void gshmemi_log_set_pe(int pe)
{
    gshmemi_log_pe = pe;
}

static const char *gshmemi_log_subsys_name(unsigned subsys)
{
    if (subsys == GSHMEMI_SUBSYS_ALL)
        return "ALL";
    for (size_t i = 0; i < GSHMEMI_LOG_N_SUBSYS; i++)
        if (subsys & gshmemi_log_subsys_names[i].bit)
            return gshmemi_log_subsys_names[i].name;
    return "?";
}

/* Append to buf[*len..cap) with snprintf semantics, clamping *len. */
static void gshmemi_log_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void gshmemi_log_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = (size_t)n >= cap - *len ? cap : *len + (size_t)n;
}

static void gshmemi_log_emit(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        buf += w;
        len -= (size_t)w;
    }
}

void gshmemi_log_write(int level, unsigned subsys, const char *file, int line,
                       const char *fmt, ...)
{
    char buf[GSHMEMI_LOG_LINE_MAX];
    const size_t cap = sizeof(buf) - 1;   /* room for the newline */
    size_t len = 0;
    int saved_errno = errno;
    va_list ap;

    if (level < GSHMEMI_LOG_ERROR || level > GSHMEMI_LOG_TRACE)
        level = GSHMEMI_LOG_ERROR;
    if (gshmemi_log_host[0] == '\0' &&
        gethostname(gshmemi_log_host, sizeof(gshmemi_log_host) - 1) != 0)
        strcpy(gshmemi_log_host, "?");
    gshmemi_log_append(buf, cap, &len, "%s:%d:", gshmemi_log_host, (int)getpid());
    if (gshmemi_log_pe >= 0)
        gshmemi_log_append(buf, cap, &len, "PE%d", gshmemi_log_pe);
    else
        gshmemi_log_append(buf, cap, &len, "PE?");
    gshmemi_log_append(buf, cap, &len, " gshmem %s [%s] ", gshmemi_log_level_names[level],
                       gshmemi_log_subsys_name(subsys));
    if (len < cap) {
        int n;
        va_start(ap, fmt);
        n = vsnprintf(buf + len, cap - len, fmt, ap);
        va_end(ap);
        if (n > 0)
            len = (size_t)n >= cap - len ? cap : len + (size_t)n;
    }
    if (level >= GSHMEMI_LOG_DEBUG && file != NULL) {
        const char *base = strrchr(file, '/');
        gshmemi_log_append(buf, cap, &len, " (%s:%d)", base ? base + 1 : file, line);
    }
    if (len >= cap)
        memcpy(buf + cap - 3, "...", 3);
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    buf[len++] = '\n';
    gshmemi_log_emit(buf, len);
    errno = saved_errno;
}

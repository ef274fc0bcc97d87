/* log.h: leveled, per-subsystem logging. Every line starts with
 * "host:pid:PE" so interleaved output of many PEs can be told apart.
 * The level is checked before any formatting. */
#ifndef GSHMEMI_LOG_H
#define GSHMEMI_LOG_H

#include <stdarg.h>

typedef enum gshmemi_log_level {
    GSHMEMI_LOG_NONE = 0,
    GSHMEMI_LOG_ERROR = 1,   /* always printed unless GSHMEM_DEBUG=NONE */
    GSHMEMI_LOG_WARN = 2,
    GSHMEMI_LOG_INFO = 3,
    GSHMEMI_LOG_DEBUG = 4,
    GSHMEMI_LOG_TRACE = 5
} gshmemi_log_level_t;

typedef enum gshmemi_log_subsys {
    GSHMEMI_SUBSYS_INIT = 1u << 0,
    GSHMEMI_SUBSYS_HEAP = 1u << 1,
    GSHMEMI_SUBSYS_TRANSPORT = 1u << 2,
    GSHMEMI_SUBSYS_PROXY = 1u << 3,
    GSHMEMI_SUBSYS_AGG = 1u << 4,
    GSHMEMI_SUBSYS_BOOTSTRAP = 1u << 5,
    GSHMEMI_SUBSYS_COLL = 1u << 6,
    GSHMEMI_SUBSYS_ALL = 0xffffffffu
} gshmemi_log_subsys_t;

extern int gshmemi_log_level;          /* current level */
extern unsigned gshmemi_log_mask;      /* enabled subsystems */

/* Parse GSHMEM_DEBUG-style and GSHMEM_DEBUG_SUBSYS-style strings. Return 0
 * or GSHMEM_ERR_CONFIG (nothing changed then). */
int gshmemi_log_parse_level(const char *s, int *level_p);
int gshmemi_log_parse_subsys(const char *s, unsigned *mask_p);
/* The PE shown in the prefix; -1 before it is known. */
void gshmemi_log_set_pe(int pe);

void gshmemi_log_write(int level, unsigned subsys, const char *file, int line,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define GSHMEMI_LOG(level, subsys, ...)                                           \
    do {                                                                          \
        if ((level) <= gshmemi_log_level &&                                       \
            ((level) <= GSHMEMI_LOG_ERROR || (gshmemi_log_mask & (subsys))))      \
            gshmemi_log_write((level), (subsys), __FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

#define GSHMEMI_ERROR(subsys, ...) GSHMEMI_LOG(GSHMEMI_LOG_ERROR, subsys, __VA_ARGS__)
#define GSHMEMI_WARN(subsys, ...) GSHMEMI_LOG(GSHMEMI_LOG_WARN, subsys, __VA_ARGS__)
#define GSHMEMI_INFO(subsys, ...) GSHMEMI_LOG(GSHMEMI_LOG_INFO, subsys, __VA_ARGS__)
#define GSHMEMI_DEBUG(subsys, ...) GSHMEMI_LOG(GSHMEMI_LOG_DEBUG, subsys, __VA_ARGS__)
#define GSHMEMI_TRACE(subsys, ...) GSHMEMI_LOG(GSHMEMI_LOG_TRACE, subsys, __VA_ARGS__)

/* Check-and-propagate: on failure leave a TRACE line of the call chain and
 * return the status; the function that decided the error already logged it. */
#define GSHMEMI_CHECK(call)                                                       \
    do {                                                                          \
        int gshmemi_rc_ = (call);                                                 \
        if (gshmemi_rc_ != 0) {                                                   \
            GSHMEMI_TRACE(GSHMEMI_SUBSYS_ALL, "%s -> %d", #call, gshmemi_rc_);    \
            return gshmemi_rc_;                                                   \
        }                                                                         \
    } while (0)

/* The same, jumping to a cleanup label instead of returning. */
#define GSHMEMI_CHECK_GOTO(call, rc, label)                                       \
    do {                                                                          \
        (rc) = (call);                                                            \
        if ((rc) != 0) {                                                          \
            GSHMEMI_TRACE(GSHMEMI_SUBSYS_ALL, "%s -> %d", #call, (rc));           \
            goto label;                                                           \
        }                                                                         \
    } while (0)

#endif /* GSHMEMI_LOG_H */

/* trace.c: the stamps of trace.h in one array per process (an atomic
 * index; stamps past its end are counted and dropped), written at fini as
 * "pe,stage,ns" lines.
 *
 * The file is created at init with O_CREAT | O_EXCL | O_NOFOLLOW (mode
 * 0600): gshmem never writes into a file that exists, and never through a
 * link planted at the path (a root job would otherwise overwrite whatever
 * the link names). An existing file makes init fail naming it; a failed
 * init removes the file it created, so that init may be called again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "log.h"
#include "trace.h"

#define GSHMEMI_TRACE_MAX (1u << 20)

int gshmemi_trace_on = 0;

typedef struct gshmemi_trace_rec {
    uint64_t ns;
    uint32_t pt;
    uint32_t pad;
} gshmemi_trace_rec_t;

static struct {
    gshmemi_trace_rec_t *rec;
    uint64_t n;               /* stamps taken (atomic; may pass MAX) */
    char path[300];
    int pe;
    int fd;                   /* the file created at init */
} tr;

static const char *const gshmemi_trace_names[GSHMEMI_TR_N] = {
    "take", "exec", "send", "recv", "apply", "visible", "ack", "acked", "done", "publish"};

void gshmemi_trace_stamp(gshmemi_trace_pt_t pt)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t i = __atomic_fetch_add(&tr.n, 1, __ATOMIC_RELAXED);
    if (i >= GSHMEMI_TRACE_MAX)
        return;
    tr.rec[i].ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    tr.rec[i].pt = (uint32_t)pt;
}

/* tr.path, new: tr.fd, or the status with the path and the cause logged. */
static int gshmemi_trace_create(void)
{
    tr.fd = open(tr.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (tr.fd >= 0)
        return GSHMEM_SUCCESS;
    if (errno == EEXIST || errno == ELOOP) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: %s exists: gshmem writes a new trace "
                      "file and never overwrites one or follows a link there; remove it or "
                      "choose another prefix", tr.path);
        return GSHMEM_ERR_CONFIG;
    }
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: cannot create %s: %s", tr.path,
                  strerror(errno));
    return GSHMEM_ERR_SYSTEM;
}

int gshmemi_trace_init(const char *prefix, int pe)
{
    if (prefix == NULL || prefix[0] == '\0')
        return 0;
    if (snprintf(tr.path, sizeof tr.path, "%s.%d.csv", prefix, pe) >= (int)sizeof tr.path) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: the prefix %s is too long", prefix);
        return GSHMEM_ERR_CONFIG;
    }
    int rc = gshmemi_trace_create();
    if (rc != 0)
        return rc;
    tr.rec = calloc(GSHMEMI_TRACE_MAX, sizeof *tr.rec);
    if (tr.rec == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: out of memory for %u stamps",
                      GSHMEMI_TRACE_MAX);
        close(tr.fd);
        unlink(tr.path);
        return GSHMEM_ERR_NOMEM;
    }
    tr.pe = pe;
    tr.n = 0;
    __atomic_store_n(&gshmemi_trace_on, 1, __ATOMIC_RELEASE);
    return 0;
}

void gshmemi_trace_fini(int write)
{
    if (tr.rec == NULL)
        return;
    __atomic_store_n(&gshmemi_trace_on, 0, __ATOMIC_RELEASE);
    uint64_t n = __atomic_load_n(&tr.n, __ATOMIC_ACQUIRE);
    FILE *f = write ? fdopen(tr.fd, "w") : NULL;
    if (!write) {
        close(tr.fd);
        unlink(tr.path);   /* unlink follows no link: only the name we created goes */
    } else if (f == NULL) {
        GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: cannot write %s: %s", tr.path,
                     strerror(errno));
        close(tr.fd);
    } else {
        fprintf(f, "pe,stage,ns\n");
        for (uint64_t i = 0; i < n && i < GSHMEMI_TRACE_MAX; i++)
            fprintf(f, "%d,%s,%llu\n", tr.pe, gshmemi_trace_names[tr.rec[i].pt],
                    (unsigned long long)tr.rec[i].ns);
        fclose(f);
        GSHMEMI_INFO(GSHMEMI_SUBSYS_INIT, "GSHMEM_TRACE: %llu stamps in %s%s",
                     (unsigned long long)n, tr.path, n > GSHMEMI_TRACE_MAX ? " (the rest dropped)" : "");
    }
    free(tr.rec);
    tr.rec = NULL;
}

/* symdata.c: which writable segments (the program's data+bss, and the
 * libraries of GSHMEM_SYMMETRIC_LIBS) are symmetric in this job, decided
 * collectively at init before the heap is created; and the explanation an
 * error message gives for an address that is not symmetric.
 *
 * Every PE finds its segments (base/heap/segment.c) and allgathers what
 * must match: the heap kind, the setting, and each segment's link-time
 * address and size. The segments are shared when every PE has a host heap
 * and the setting on and all agree (the same executable and libraries:
 * PIE and ASLR move them, but not relative to their object); otherwise no
 * PE shares any, the reason is kept for error messages, and a mismatch of
 * programs draws a warning. A GSHMEM_SYMMETRIC_LIBS that names a library
 * not loaded fails init on every PE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

enum { SYMDATA_OK = 0, SYMDATA_OFF = 1, SYMDATA_CUDA = 2, SYMDATA_FAILED = 3 };

typedef struct gshmemi_symdata_desc {
    int32_t state;                   /* SYMDATA_* */
    int32_t n;                       /* segments found */
    struct {
        uint64_t link_addr, size;
    } seg[GSHMEMI_HEAP_MAX_SEGS];
} gshmemi_symdata_desc_t;

static void gshmemi_symdata_desc_of(const gshmemi_seg_t *segs, int n, int state,
                                    gshmemi_symdata_desc_t *d)
{
    memset(d, 0, sizeof *d);
    d->state = state;
    d->n = state == SYMDATA_OK ? n : 0;
    for (int i = 0; i < d->n; i++) {
        d->seg[i].link_addr = segs[i].link_addr;
        d->seg[i].size = segs[i].size;
    }
}

/* Why PE pe's description keeps the segments private, into g->symdata_why
 * (empty when they are shared). Returns 1 when pe differs from PE 0. */
static int gshmemi_symdata_differs(gshmemi_state_t *g, const gshmemi_symdata_desc_t *all,
                                   int pe)
{
    const gshmemi_symdata_desc_t *d = &all[pe], *d0 = &all[0];
    char *why = g->symdata_why;
    size_t cap = sizeof g->symdata_why;

    if (d->state == SYMDATA_OFF) {
        snprintf(why, cap, "PE %d runs with GSHMEM_SYMMETRIC_DATA=0", pe);
    } else if (d->state == SYMDATA_CUDA) {
        snprintf(why, cap, "PE %d has a CUDA heap (GSHMEM_HEAP=cuda, or auto where a GPU is "
                 "visible), whose peers' GPUs cannot reach host globals; GSHMEM_HEAP=host "
                 "makes them symmetric", pe);
    } else if (d->n != d0->n) {
        snprintf(why, cap, "PE %d has %d writable segment(s), PE 0 %d: every PE must run the "
                 "same executable (and GSHMEM_SYMMETRIC_LIBS)", pe, d->n, d0->n);
    } else {
        for (int i = 0; i < d->n; i++) {
            if (d->seg[i].link_addr == d0->seg[i].link_addr && d->seg[i].size == d0->seg[i].size)
                continue;
            snprintf(why, cap, "writable segment %d of PE %d is %llu bytes at link address "
                     "0x%llx, PE 0's %llu bytes at 0x%llx: every PE must run the same "
                     "executable", i, pe, (unsigned long long)d->seg[i].size,
                     (unsigned long long)d->seg[i].link_addr,
                     (unsigned long long)d0->seg[i].size,
                     (unsigned long long)d0->seg[i].link_addr);
            return 1;
        }
        return 0;
    }
    return 1;
}

/* This PE's segments and state; SYMDATA_FAILED when finding them failed
 * (logged). */
static int gshmemi_symdata_local(const gshmemi_state_t *g, gshmemi_heap_kind_t kind,
                                 gshmemi_seg_t *segs, int *n_p)
{
    *n_p = 0;
    if (!g->cfg.symmetric_data)
        return SYMDATA_OFF;
    if (kind != GSHMEMI_HEAP_HOST)
        return SYMDATA_CUDA;
    if (gshmemi_seg_find(g->cfg.symmetric_libs, segs, GSHMEMI_HEAP_MAX_SEGS, n_p) != 0)
        return SYMDATA_FAILED;
    return SYMDATA_OK;
}

int gshmemi_symdata_plan(gshmemi_state_t *g, gshmemi_heap_kind_t kind, gshmemi_seg_t *segs,
                         int *n_p)
{
    gshmemi_symdata_desc_t mine, *all;
    int n, state = gshmemi_symdata_local(g, kind, segs, &n), rc;

    all = calloc((size_t)g->n_pes, sizeof *all);
    if (all == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the segments of %d PEs",
                      g->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    gshmemi_symdata_desc_of(segs, n, state, &mine);
    GSHMEMI_CHECK_GOTO(g->boot->ops->allgather(g->boot, &mine, all, sizeof mine), rc, out);
    g->symdata_why[0] = '\0';
    *n_p = 0;
    for (int pe = 0; pe < g->n_pes; pe++) {
        if (all[pe].state == SYMDATA_FAILED) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "PE %d could not find the writable segments "
                          "of GSHMEM_SYMMETRIC_LIBS=%s (its log says why)", pe,
                          g->cfg.symmetric_libs);
            rc = GSHMEM_ERR_CONFIG;
            goto out;
        }
    }
    for (int pe = 0; pe < g->n_pes; pe++) {
        if (gshmemi_symdata_differs(g, all, pe)) {
            if (g->my_pe == 0 && all[pe].state == SYMDATA_OK)
                GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "global and static variables are not "
                             "symmetric in this job: %s", g->symdata_why);
            else
                GSHMEMI_INFO(GSHMEMI_SUBSYS_INIT, "global and static variables are not "
                             "symmetric: %s", g->symdata_why);
            rc = GSHMEM_SUCCESS;
            goto out;
        }
    }
    *n_p = n;
    rc = GSHMEM_SUCCESS;
out:
    free(all);
    return rc;
}

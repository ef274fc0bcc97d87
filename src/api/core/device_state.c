/* device_state.c: the registry of the device API's per-TU state copies
 * (gshmemx_device_state_register / _publish) and the state's construction
 * at init (gshmemi_device_state_setup / _teardown). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/gshmemi.h"
#include "device_state.h"
#include "engine/proxy.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

static pthread_mutex_t gshmemi_dstate_lock = PTHREAD_MUTEX_INITIALIZER;
static gshmemi_dev_state_sync_fn *gshmemi_dstate_fns;  /* registered callbacks */
static size_t gshmemi_dstate_n, gshmemi_dstate_cap;
static int gshmemi_dstate_published;                  /* 1: the copy below is live */
static gshmemi_dev_state_t gshmemi_dstate_copy;

static const char *gshmemi_dstate_cuda_error(int e)
{
#if defined(GSHMEM_HAVE_CUDA)
    return cudaGetErrorString((cudaError_t)e);
#else
    (void)e;
    return "CUDA error";
#endif
}

/* Calls fn with the published state; lock held. */
static int gshmemi_dstate_call(gshmemi_dev_state_sync_fn fn)
{
    int e = fn(&gshmemi_dstate_copy);

    if (e != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "device state: copying the state (PE %d of %d, "
                      "device %d) into a module's __constant__ memory failed: CUDA error %d "
                      "(%s)", gshmemi_dstate_copy.my_pe, gshmemi_dstate_copy.n_pes,
                      gshmemi_dstate_copy.cuda_device, e, gshmemi_dstate_cuda_error(e));
        return GSHMEM_ERR_NO_DEVICE;
    }
    return GSHMEM_SUCCESS;
}

int gshmemx_device_state_register(gshmemi_dev_state_sync_fn fn)
{
    int rc = GSHMEM_SUCCESS;

    if (fn == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    pthread_mutex_lock(&gshmemi_dstate_lock);
    if (gshmemi_dstate_n == gshmemi_dstate_cap) {
        size_t cap = gshmemi_dstate_cap ? 2 * gshmemi_dstate_cap : 16;
        void *p = realloc(gshmemi_dstate_fns, cap * sizeof *gshmemi_dstate_fns);
        if (p == NULL) {
            pthread_mutex_unlock(&gshmemi_dstate_lock);
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "device state: out of memory registering "
                          "module %zu", gshmemi_dstate_n + 1);
            return GSHMEM_ERR_NOMEM;
        }
        gshmemi_dstate_fns = p;
        gshmemi_dstate_cap = cap;
    }
    gshmemi_dstate_fns[gshmemi_dstate_n++] = fn;
    if (gshmemi_dstate_published)
        rc = gshmemi_dstate_call(fn);
    pthread_mutex_unlock(&gshmemi_dstate_lock);
    return rc;
}

void gshmemx_device_state_unregister(gshmemi_dev_state_sync_fn fn)
{
    pthread_mutex_lock(&gshmemi_dstate_lock);
    for (size_t i = 0; i < gshmemi_dstate_n; i++) {
        if (gshmemi_dstate_fns[i] == fn) {
            gshmemi_dstate_fns[i] = gshmemi_dstate_fns[--gshmemi_dstate_n];
            break;
        }
    }
    pthread_mutex_unlock(&gshmemi_dstate_lock);
}

int gshmemi_device_state_publish(const gshmemi_dev_state_t *s)
{
    int rc = GSHMEM_SUCCESS;

    if (s == NULL || s->abi != GSHMEMI_DEV_STATE_ABI || s->size != sizeof *s)
        return GSHMEM_ERR_INVALID_ARG;
    pthread_mutex_lock(&gshmemi_dstate_lock);
    gshmemi_dstate_copy = *s;
    gshmemi_dstate_published = 1;
    for (size_t i = 0; i < gshmemi_dstate_n; i++) {
        int r = gshmemi_dstate_call(gshmemi_dstate_fns[i]);
        if (r != 0 && rc == 0)
            rc = r;
    }
    pthread_mutex_unlock(&gshmemi_dstate_lock);
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "device state published to %zu module(s): PE %d of "
                  "%d, heap %p + %llu, peer bases %p", gshmemi_dstate_n, s->my_pe, s->n_pes,
                  (void *)s->heap_base, (unsigned long long)s->heap_size,
                  (const void *)s->peer_base);
    return rc;
}

/* ---- construction at init ------------------------------------------------ */

/* The transport that publishes a device table of peer heap bases (p2p),
 * its table in *bases_p; or NULL (no PE reached by load/store). */
static gshmemi_transport_t *gshmemi_dstate_peer_tp(gshmemi_state_t *g, void *const **bases_p)
{
    for (int i = 0; i < g->n_tps; i++)
        if (g->tps[i].ops != NULL &&
            (*bases_p = g->tps[i].ops->peer_bases_device(&g->tps[i])) != NULL)
            return &g->tps[i];
    return NULL;
}

int gshmemi_device_state_peers(gshmemi_dev_state_t *s, gshmemi_transport_t *tp)
{
    for (int pe = 0; pe < GSHMEMI_DEV_PEER_INLINE; pe++)
        s->peer_delta[pe] = pe == s->my_pe ? 0 : GSHMEMI_DEV_PEER_NONE;
    for (int pe = 0; tp != NULL && pe < s->n_pes; pe++) {
        void *b = tp->ops->ptr(tp, pe, 0);
        if (b == NULL)
            continue;
        int64_t d = (int64_t)((uintptr_t)b - (uintptr_t)s->heap_base);
        if ((d & 15) != 0) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "device state: PE %d's heap is mapped at %p, "
                          "%lld bytes from this PE's heap %p, not a multiple of 16: the "
                          "device copy needs both heaps to share their 16-byte alignment",
                          pe, b, (long long)d, (void *)s->heap_base);
            return GSHMEM_ERR_TRANSPORT;
        }
        if (pe < GSHMEMI_DEV_PEER_INLINE)
            s->peer_delta[pe] = d;
    }
    return GSHMEM_SUCCESS;
}

/* The barrier area, then the team area: one reservation. */
#define GSHMEMI_DSTATE_RESERVED (GSHMEMI_DEV_SYNC_BYTES + GSHMEMI_DEV_TEAM_AREA_BYTES)
_Static_assert(GSHMEMI_DEV_TEAM_SLOTS == GSHMEM_TEAM_MAX,
               "one device team descriptor per team slot");
_Static_assert(sizeof(gshmemi_dev_team_t) * GSHMEMI_DEV_TEAM_SLOTS ==
                   GSHMEMI_DEV_TEAM_TABLE_BYTES, "the team table's size");
_Static_assert(GSHMEMI_DEV_SYNC_BYTES % GSHMEMI_DEV_SYNC_STRIDE == 0 &&
                   GSHMEMI_DEV_TEAM_TABLE_BYTES % GSHMEMI_DEV_SYNC_STRIDE == 0 &&
                   GSHMEMI_DEV_TEAM_SLOT_BYTES % GSHMEMI_DEV_SYNC_STRIDE == 0,
               "the team area's words each on their own line");

int gshmemi_device_state_setup(gshmemi_state_t *g)
{
    gshmemi_dev_state_t s;
    size_t off;

    if (g->heap.kind != GSHMEMI_HEAP_CUDA) {
        GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "device state: host heap, device API not published");
        return GSHMEM_SUCCESS;
    }
    GSHMEMI_CHECK(gshmemi_alloc_get(g->heap.alloc, GSHMEMI_DSTATE_RESERVED,
                                    GSHMEMI_DEV_SYNC_STRIDE, &off));
    /* zero since the heap was made, not cleared: peers may be writing
     * (core/init.c) */
    char *sync = (char *)g->heap.base + off;
    memset(&s, 0, sizeof s);
    s.abi = GSHMEMI_DEV_STATE_ABI;
    s.size = sizeof s;
    s.my_pe = g->my_pe;
    s.n_pes = g->n_pes;
    s.flags = g->cfg.enable_error_checks ? 0 : GSHMEMI_DEV_F_NO_CHECKS;
    s.cuda_device = g->heap.cuda_device;
    s.heap_base = (char *)g->heap.base;
    s.heap_size = g->heap.size;
    /* GSHMEM_DEVICE_QUEUE_ONLY: no load/store peers for the device (the host
     * transports still use them): every remote call takes the queue path */
    gshmemi_transport_t *ptp = NULL;
    if (!g->cfg.device_queue_only)
        ptp = gshmemi_dstate_peer_tp(g, &s.peer_base);
    int rc = gshmemi_device_state_peers(&s, ptp);
    if (rc != 0) {
        gshmemi_alloc_put(g->heap.alloc, off);
        return rc;
    }
    s.sync_base = sync;
    s.sync_off = off;
    s.channels = gshmemi_proxy_queue();   /* NULL when no proxy engine runs */
    s.team_area = sync + GSHMEMI_DEV_SYNC_BYTES;   /* no team yet: team.c fills it */
    /* on failure the state stays recorded: teardown (init's unwinding)
     * publishes the zeroed state and gives the reservation back */
    return gshmemi_device_state_publish(&s);
}

int gshmemi_device_team_mapped(const int *pes, int size)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (g->cfg.device_queue_only || g->heap.kind != GSHMEMI_HEAP_CUDA)
        return 0;
    for (int i = 0; i < size; i++) {
        if (pes[i] == g->my_pe)
            continue;
        gshmemi_transport_t *tp = g->pe_tp[pes[i]];
        if (tp == NULL || tp->ops->peer_bases_device(tp) == NULL ||
            tp->ops->ptr(tp, pes[i], 0) == NULL)
            return 0;
    }
    return 1;
}

int gshmemi_device_team_stride(const int *pes, int size)
{
    if (size <= 1)
        return 1;
    int stride = pes[1] - pes[0];
    for (int i = 2; i < size; i++)
        if (pes[i] - pes[i - 1] != stride)
            return 0;
    return stride;
}

/* The descriptor of a team whose members are pes[0 .. size) (ascending). */
static gshmemi_dev_team_t gshmemi_dstate_team_of(const int *pes, int size, int my_idx)
{
    gshmemi_dev_team_t d = {0, 0, 0, 0};

    if (pes == NULL || size <= 0)
        return d;
    d.start = pes[0];
    d.stride = gshmemi_device_team_stride(pes, size);   /* 0: the device API refuses it */
    d.size = size;
    d.my_idx = my_idx;
    return d;
}

int gshmemi_device_state_team(int slot, const int *pes, int size, int my_idx)
{
    int rc = GSHMEM_SUCCESS;

    if (slot < 0 || slot >= (int)GSHMEMI_DEV_TEAM_SLOTS)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_dev_team_t d = gshmemi_dstate_team_of(pes, size, my_idx);
    pthread_mutex_lock(&gshmemi_dstate_lock);
    char *area = gshmemi_dstate_published ? gshmemi_dstate_copy.team_area : NULL;
    if (area != NULL)   /* a copy that does not wait for the user's kernels */
        rc = gshmemi_heap_copy_nb(&gshmemi_g.heap, area + (size_t)slot * sizeof d, &d,
                                  sizeof d);
    pthread_mutex_unlock(&gshmemi_dstate_lock);
    if (rc != 0)
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "device state: writing the descriptor of team %d "
                      "(start %d, stride %d, %d PEs) failed: %s", slot, d.start, d.stride,
                      d.size, gshmem_strerror(rc));
    else if (area != NULL)
        GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "device state: team %d is %s (start %d, stride %d, "
                      "%d PEs, this PE %d)", slot, d.size ? "live" : "gone", d.start, d.stride,
                      d.size, d.my_idx);
    return rc;
}

void gshmemi_device_state_teardown(gshmemi_state_t *g)
{
    gshmemi_dev_state_t s;
    int had;

    pthread_mutex_lock(&gshmemi_dstate_lock);
    had = gshmemi_dstate_published && gshmemi_dstate_copy.n_pes > 0;
    uint64_t off = gshmemi_dstate_copy.sync_off;
    pthread_mutex_unlock(&gshmemi_dstate_lock);
    if (!had)
        return;
    memset(&s, 0, sizeof s);
    s.abi = GSHMEMI_DEV_STATE_ABI;
    s.size = sizeof s;
    s.cuda_device = g->heap.cuda_device;
    (void)gshmemi_device_state_publish(&s);   /* errors were logged */
    if (g->heap.alloc != NULL)
        (void)gshmemi_alloc_put(g->heap.alloc, (size_t)off);
}

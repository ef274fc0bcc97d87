/* mem.c: collective symmetric allocation (malloc, calloc, align, free,
 * realloc, malloc_with_hints) and the non-collective registration of local
 * memory.
 *
 * Every PE runs the same deterministic allocator, so the same sequence of
 * calls gives the same offsets everywhere. With GSHMEM_ENABLE_ERROR_CHECKS
 * the PEs first compare (call, size, alignment) and end the job, naming
 * both values, when they differ. Exhaustion returns NULL on every PE (the
 * allocator state is the same everywhere) with the sizes logged. Allocation
 * ends with a barrier, free starts with one (as shmem_malloc/shmem_free). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

typedef struct gshmemi_mem_req {
    uint64_t op;
    uint64_t size;        /* bytes; for free: the heap offset, or UINT64_MAX (NULL) */
    uint64_t alignment;
} gshmemi_mem_req_t;

static const char *gshmemi_mem_op_name(uint64_t op)
{
    switch (op) {
    case GSHMEMI_MEM_MALLOC: return "gshmem_malloc";
    case GSHMEMI_MEM_CALLOC: return "gshmem_calloc";
    case GSHMEMI_MEM_ALIGN: return "gshmem_align";
    case GSHMEMI_MEM_SCRATCH: return "a collective (scratch space)";
    case GSHMEMI_MEM_FREE: return "gshmem_free";
    case GSHMEMI_MEM_REALLOC: return "gshmem_realloc";
    case GSHMEMI_MEM_HINTS: return "gshmem_malloc_with_hints";
    }
    return "?";
}

static void gshmemi_mem_mismatch(const char *call, const gshmemi_mem_req_t *mine,
                                 const gshmemi_mem_req_t *other, int pe)
    __attribute__((noreturn));
static void gshmemi_mem_mismatch(const char *call, const gshmemi_mem_req_t *mine,
                                 const gshmemi_mem_req_t *other, int pe)
{
    int me = gshmemi_g.my_pe;

    if (mine->op != other->op)
        gshmemi_fatal(call, "collective mismatch: PE %d called %s, PE %d called %s", me,
                      gshmemi_mem_op_name(mine->op), pe, gshmemi_mem_op_name(other->op));
    if (mine->op == GSHMEMI_MEM_FREE)
        gshmemi_fatal(call, "pointer mismatch: PE %d frees heap offset %#llx, PE %d frees "
                      "heap offset %#llx (UINT64_MAX: NULL)", me,
                      (unsigned long long)mine->size, pe, (unsigned long long)other->size);
    if (mine->size != other->size)
        gshmemi_fatal(call, "size mismatch: PE %d asked %llu bytes, PE %d asked %llu", me,
                      (unsigned long long)mine->size, pe, (unsigned long long)other->size);
    gshmemi_fatal(call, "alignment mismatch: PE %d asked %llu, PE %d asked %llu", me,
                  (unsigned long long)mine->alignment, pe,
                  (unsigned long long)other->alignment);
}

/* A 64-bit digest of a request (splitmix64's finalizer over its words). */
static uint64_t gshmemi_mem_req_digest(const gshmemi_mem_req_t *req)
{
    uint64_t h = 0x9e3779b97f4a7c15ull, w[3] = {req->op, req->size, req->alignment};

    for (int i = 0; i < 3; i++) {
        h ^= w[i];
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
        h ^= h >> 31;
    }
    return h;
}

/* 1 when every PE's digest is this PE's (the same answer on every PE). */
static int gshmemi_mem_digests_agree(const char *call, const gshmemi_mem_req_t *req)
{
    gshmemi_team_t *world = gshmemi_team_get(call, GSHMEM_TEAM_WORLD);
    uint64_t mine = gshmemi_mem_req_digest(req);
    uint64_t *all = malloc((size_t)world->size * sizeof *all);
    int same = 1;

    if (all == NULL)
        gshmemi_fatal(call, "out of host memory checking the request of %d PEs", world->size);
    gshmemi_team_exchange(call, world, mine, all);
    for (int i = 0; i < world->size; i++)
        same &= all[i] == mine;
    free(all);
    return same;
}

/* With error checks: every PE must make the same request. The digests go
 * round over the transports; only when they differ do the PEs gather the
 * requests through the bootstrap, to name the difference. */
static void gshmemi_mem_agree(const char *call, const gshmemi_mem_req_t *req)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (!g->cfg.enable_error_checks || gshmemi_mem_digests_agree(call, req))
        return;
    gshmemi_mem_req_t *all = malloc((size_t)g->n_pes * sizeof *all);
    if (all == NULL)
        gshmemi_fatal(call, "out of host memory checking the request of %d PEs", g->n_pes);
    int rc = g->boot->ops->allgather(g->boot, req, all, sizeof *req);
    if (rc != 0)
        gshmemi_fatal(call, "bootstrap %s: allgather failed: %s", g->boot->ops->name,
                      gshmem_strerror(rc));
    for (int pe = 0; pe < g->n_pes; pe++) {
        if (memcmp(&all[pe], req, sizeof *req) != 0) {
            gshmemi_mem_req_t other = all[pe];
            free(all);
            gshmemi_mem_mismatch(call, req, &other, pe);
        }
    }
    free(all);
}

void *gshmemi_mem_alloc(const char *call, int op, size_t size, size_t alignment, int zero)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_mem_req_t req = {.op = (uint64_t)op, .size = size, .alignment = alignment};
    void *p = NULL;
    size_t off;

    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_mem_agree(call, &req);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        gshmemi_fatal(call, "alignment %zu is not a power of two", alignment);
    size_t min_align =
        g->heap.kind == GSHMEMI_HEAP_CUDA ? GSHMEMI_MEM_MIN_ALIGN_CUDA : GSHMEMI_MEM_MIN_ALIGN;
    if (alignment < min_align)
        alignment = min_align;
    /* Offsets are aligned, and every PE's heap base is aligned to the same
     * heap.align: addresses are aligned up to that. Beyond it no block can
     * be placed: NULL on every PE, like exhaustion. */
    if (size > 0 && alignment > g->heap.align) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "%s: alignment %zu is larger than the %zu this "
                      "heap supports (a host heap: its size rounded up to a power of two, "
                      "GSHMEM_SYMMETRIC_SIZE; a CUDA heap: 2 MiB): NULL", call, alignment,
                      g->heap.align);
    } else if (size > 0) {
        if (gshmemi_alloc_get(g->heap.alloc, size, alignment, &off) == 0) {
            p = (char *)g->heap.base + off;
        } else {
            /* the allocator logged the sizes (requested, free, largest) */
            GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "%s(%zu): NULL on every PE", call, size);
        }
    }
    if (p != NULL && zero) {
        int rc = gshmemi_heap_memset(&g->heap, p, 0, size);
        if (rc != 0)
            gshmemi_fatal(call, "zeroing %zu bytes at %p failed: %s", size, p,
                          gshmem_strerror(rc));
    }
    gshmemi_barrier_all(call);
    return p;
}

/* ptr's heap offset (and its block's size): a live allocation, or fatal. */
static uint64_t gshmemi_mem_live(const char *call, const void *ptr, size_t *size_p)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (!gshmemi_heap_contains(&g->heap, ptr, 1))
        gshmemi_fatal(call, "%p is not inside the symmetric heap [%p, %p)", ptr,
                      g->heap.base, (void *)((char *)g->heap.base + g->heap.heap_size));
    uint64_t off = (uint64_t)((const char *)ptr - (const char *)g->heap.base);
    size_t size = gshmemi_alloc_size_of(g->heap.alloc, (size_t)off);
    if (size == 0)
        gshmemi_fatal(call, "%p (heap offset %#llx) is not a live symmetric allocation",
                      ptr, (unsigned long long)off);
    if (size_p != NULL)
        *size_p = size;
    return off;
}

void gshmemi_mem_free(const char *call, void *ptr)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_mem_req_t req = {.op = GSHMEMI_MEM_FREE, .size = UINT64_MAX, .alignment = 0};

    GSHMEMI_REQUIRE_INIT(call);
    if (ptr != NULL)
        req.size = gshmemi_mem_live(call, ptr, NULL);
    gshmemi_barrier_all(call);
    gshmemi_mem_agree(call, &req);
    if (ptr != NULL && gshmemi_alloc_put(g->heap.alloc, (size_t)req.size) != 0)
        gshmemi_fatal(call, "%p could not be freed", ptr);
}

void *gshmem_malloc(size_t size)
{
    return gshmemi_mem_alloc("gshmem_malloc", GSHMEMI_MEM_MALLOC, size, GSHMEMI_MEM_MIN_ALIGN,
                             0);
}

void *gshmem_calloc(size_t count, size_t size)
{
    /* An overflowing product asks for SIZE_MAX: NULL on every PE, logged. */
    size_t total = (size != 0 && count > SIZE_MAX / size) ? SIZE_MAX : count * size;
    return gshmemi_mem_alloc("gshmem_calloc", GSHMEMI_MEM_CALLOC, total,
                             GSHMEMI_MEM_MIN_ALIGN, 1);
}

void *gshmem_align(size_t alignment, size_t size)
{
    return gshmemi_mem_alloc("gshmem_align", GSHMEMI_MEM_ALIGN, size, alignment, 0);
}

void gshmem_free(void *ptr)
{
    gshmemi_mem_free("gshmem_free", ptr);
}

void *gshmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints;   /* every block serves RMA, atomics and signals alike */
    return gshmemi_mem_alloc("gshmem_malloc_with_hints", GSHMEMI_MEM_HINTS, size,
                             GSHMEMI_MEM_MIN_ALIGN, 0);
}

/* A new block, this PE's bytes copied into it, the old one freed (no
 * in-place growth); the allocation's barrier and the free's barrier
 * bracket the copies. */
void *gshmem_realloc(void *ptr, size_t size)
{
    const char *call = "gshmem_realloc";
    gshmemi_state_t *g = &gshmemi_g;
    size_t old_size = 0;

    GSHMEMI_REQUIRE_INIT(call);
    if (ptr != NULL && size == 0) {
        gshmemi_mem_free(call, ptr);
        return NULL;
    }
    if (ptr != NULL)
        (void)gshmemi_mem_live(call, ptr, &old_size);
    void *p = gshmemi_mem_alloc(call, GSHMEMI_MEM_REALLOC, size, GSHMEMI_MEM_MIN_ALIGN, 0);
    if (p == NULL || ptr == NULL)
        return p;   /* full: ptr kept on every PE */
    size_t n = old_size < size ? old_size : size;
    int rc = gshmemi_heap_copy_nb(&g->heap, p, ptr, n);
    if (rc != 0)
        gshmemi_fatal(call, "copying %zu bytes from %p to %p failed: %s", n, ptr, p,
                      gshmem_strerror(rc));
    gshmemi_mem_free(call, ptr);
    return p;
}

/* ---- registration (not collective) ----------------------------------- */

/* 1 when [addr, addr+n) lies in a symmetric data segment: the segments are
 * in the registration list from init on, so registering them is a no-op. */
static int gshmemi_mem_in_segment(const void *addr, size_t n)
{
    uint64_t off;
    return gshmemi_heap_seg_offset(&gshmemi_g.heap, addr, n, &off);
}

int gshmem_register(void *addr, size_t length)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc, i;

    GSHMEMI_REQUIRE_INIT("gshmem_register");
    if (addr == NULL || length == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "gshmem_register: addr %p, length %zu: both must "
                      "be non-zero", addr, length);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (gshmemi_mem_in_segment(addr, length))
        return GSHMEM_SUCCESS;   /* a symmetric global: usable as it is */
    GSHMEMI_CHECK(gshmemi_reg_add(&g->regs, addr, length));
    for (i = 0; i < g->n_tps; i++) {
        rc = g->tps[i].ops->mem_register(&g->tps[i], addr, length);
        if (rc != 0 && rc != GSHMEM_ERR_NOT_SUPPORTED) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "gshmem_register: transport %s cannot "
                          "register %p (%zu bytes): %s", g->tps[i].ops->name, addr, length,
                          gshmem_strerror(rc));
            goto undo_transports;
        }
    }
    return GSHMEM_SUCCESS;

undo_transports:
    while (--i >= 0)
        (void)g->tps[i].ops->mem_unregister(&g->tps[i], addr);
    (void)gshmemi_reg_remove(&g->regs, addr);
    return rc;
}

int gshmem_unregister(void *addr)
{
    gshmemi_state_t *g = &gshmemi_g;
    int first = GSHMEM_SUCCESS;

    GSHMEMI_REQUIRE_INIT("gshmem_unregister");
    if (gshmemi_mem_in_segment(addr, 1))
        return GSHMEM_SUCCESS;   /* gshmem_register did nothing for it */
    GSHMEMI_CHECK(gshmemi_reg_remove(&g->regs, addr));
    for (int i = g->n_tps - 1; i >= 0; i--) {
        int rc = g->tps[i].ops->mem_unregister(&g->tps[i], addr);
        if (rc != 0 && rc != GSHMEM_ERR_NOT_SUPPORTED) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "gshmem_unregister: transport %s: %p: %s",
                          g->tps[i].ops->name, addr, gshmem_strerror(rc));
            if (first == GSHMEM_SUCCESS)
                first = rc;
        }
    }
    return first;
}

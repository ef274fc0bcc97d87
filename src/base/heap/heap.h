/* heap.h: the symmetric heap. One region per PE, the same size on every PE,
 * carved by a deterministic allocator so that the same sequence of
 * collective calls gives the same offsets everywhere. Back ends: host
 * memory (a memfd, so the shm transport can map peers' heaps) and CUDA
 * device memory.
 *
 * The symmetric window. A host heap may carry the program's data+bss
 * segments (segment.c): the memfd then holds the heap and, after it, one
 * part per segment, and the window [base, base + size) maps all of it,
 * while each segment's own pages are a second mapping of its part. So an
 * offset in [0, size) names symmetric memory of any kind on every PE, the
 * transports see one region (one memfd, one MR) as before, and a global's
 * offset is its segment's window offset plus its distance from the
 * segment's start (gshmemi_heap_offset). docs/DESIGN.md, "Memory". */
#ifndef GSHMEMI_HEAP_H
#define GSHMEMI_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum gshmemi_heap_kind {
    GSHMEMI_HEAP_HOST = 0,
    GSHMEMI_HEAP_CUDA = 1
} gshmemi_heap_kind_t;

/* Deterministic first-fit allocator over offsets [0, size). Bookkeeping is
 * in private host memory; nothing is stored inside the heap. */
typedef struct gshmemi_alloc gshmemi_alloc_t;

int gshmemi_alloc_create(size_t size, gshmemi_alloc_t **a_p);
void gshmemi_alloc_destroy(gshmemi_alloc_t *a);
/* alignment: a power of two >= 1. Returns 0 and *off_p, or GSHMEM_ERR_NOMEM
 * (logging requested and free bytes and the largest free block). */
int gshmemi_alloc_get(gshmemi_alloc_t *a, size_t size, size_t alignment, size_t *off_p);
/* off must be a live allocation's offset: else GSHMEM_ERR_INVALID_ARG. */
int gshmemi_alloc_put(gshmemi_alloc_t *a, size_t off);
size_t gshmemi_alloc_free_bytes(const gshmemi_alloc_t *a);
size_t gshmemi_alloc_largest_free(const gshmemi_alloc_t *a);
/* Size of the live allocation at off, or 0. */
size_t gshmemi_alloc_size_of(const gshmemi_alloc_t *a, size_t off);

/* A writable segment (data+bss) of the program or of a named library whose
 * pages are symmetric. Only the pages glibc leaves writable are shared:
 * RELRO pages (made read-only after relocation) are left alone. */
#define GSHMEMI_HEAP_MAX_SEGS 8
typedef struct gshmemi_seg {
    char name[64];        /* "the program" or the library's file name */
    uintptr_t addr;       /* first shared page (page aligned) */
    size_t size;          /* bytes shared (a page multiple) */
    uint64_t link_addr;   /* addr less the object's load bias: the same on
                           * every PE that runs the same file (PIE or not) */
    size_t off;           /* its offset in the symmetric window (heap.c) */
} gshmemi_seg_t;

/* The writable segments of the main program, then of each library named
 * in libs (a comma list of file names, e.g. "libfoo.so"; NULL or "": none),
 * into segs[max]. A named library that is not loaded, has no writable
 * segment or may not be shared (libc, the dynamic loader, libgshmem) is
 * GSHMEM_ERR_CONFIG, logged with the name. Changes nothing. */
int gshmemi_seg_find(const char *libs, gshmemi_seg_t *segs, int max, int *n_p);

/* Makes seg's pages part of the window: copies their contents into the
 * window at alias (the memfd at seg->off), then maps the memfd there over
 * the segment itself (MAP_SHARED | MAP_FIXED). No other thread may write
 * the segment meanwhile. A fork()ed child gets private copies again. */
int gshmemi_seg_share(const gshmemi_seg_t *seg, int fd, void *alias);

typedef struct gshmemi_heap {
    gshmemi_heap_kind_t kind;
    void *base;          /* this PE's symmetric window; the heap starts it */
    size_t size;         /* window bytes: remote offsets lie in [0, size) */
    size_t heap_size;    /* the allocatable heap: [base, base + heap_size) */
    size_t align;        /* base is aligned to this power of two */
    int fd;              /* host: the memfd behind base; -1 otherwise */
    int cuda_device;     /* cuda: the device; -1 otherwise */
    void *cuda_stream;   /* cuda: the heap's private non-blocking stream
                          * (gshmemi_heap_copy_nb); NULL otherwise */
    gshmemi_alloc_t *alloc;
    int n_segs;          /* symmetric segments in the window (host heaps) */
    gshmemi_seg_t segs[GSHMEMI_HEAP_MAX_SEGS];
} gshmemi_heap_t;

/* Create/destroy the region of the given kind. CUDA: NO_DEVICE when not
 * built in or no GPU, with the reason logged. A created heap is all zeros
 * (a host heap's memfd pages are; a CUDA heap is cleared here): init's
 * areas in it (barrier flags, exchange words, the collectives' and the
 * device API's) need no clearing, and must get none, since a peer may
 * write into them as soon as this PE's heap is reachable (core/init.c). */
int gshmemi_heap_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size);
/* The same with segments (host heaps only; n_segs 0: none), which are
 * shared at once (gshmemi_seg_share) and placed after the heap in the
 * window, each at a page-aligned offset recorded in h->segs[i].off. */
int gshmemi_heap_create_sym(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size,
                            const gshmemi_seg_t *segs, int n_segs);
/* 1 when a heap of this kind can be created here (CUDA: built in and at
 * least one device visible), else 0; logs nothing. */
int gshmemi_heap_kind_available(gshmemi_heap_kind_t kind);
/* The CUDA devices this process sees (CUDA_VISIBLE_DEVICES honoured): 0
 * when none, when gshmem was built without CUDA, or when the CUDA runtime
 * fails, its message then in *err_p (err_p may be NULL; untouched
 * otherwise). Asks cudaGetDeviceCount, which creates no context; logs
 * nothing. For GSHMEM_HEAP=auto (src/api/core/init.c). */
int gshmemi_heap_cuda_devices(const char **err_p);
/* CUDA's module loading (heap_cuda.c; no-ops without CUDA). A kernel that
 * waits for another kernel to run (a user kernel waiting for the queue
 * path, whose engine and ofi target apply data and atomics with kernels of
 * their own) can deadlock when that other kernel is loaded lazily while it
 * waits: loading may need the device to be idle (CUDA programming guide,
 * lazy loading, "potential hazards"). prefer_eager, before this process's
 * first CUDA call: CUDA_MODULE_LOADING=EAGER unless the variable is set
 * (gshmemrun sets it for its PEs too); returns 1 when it set it. check,
 * once CUDA runs: a WARN when kernels still load lazily (CUDA came up
 * before gshmem_init, or the user asked for LAZY), naming the remedy. */
int gshmemi_heap_cuda_loading_prefer_eager(void);
void gshmemi_heap_cuda_loading_check(void);
void gshmemi_heap_destroy(gshmemi_heap_t *h);

/* 1 when [p, p+n) lies in the window (the heap, or a segment's alias). */
static inline int gshmemi_heap_contains(const gshmemi_heap_t *h, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)h->base;
    return a >= b && a - b <= h->size && n <= h->size - (a - b);
}

/* Window offset of [p, p+n) in a segment's own pages; 0 when it is in
 * none (the slow half of gshmemi_heap_offset). */
int gshmemi_heap_seg_offset(const gshmemi_heap_t *h, const void *p, size_t n,
                            uint64_t *off_p);

/* Window offset of symmetric [p, p+n): one range check for the window
 * (heap) on the hot path, the segments only when it misses. Returns 1 and
 * *off_p, or 0 when [p, p+n) is not symmetric. */
static inline int gshmemi_heap_offset(const gshmemi_heap_t *h, const void *p, size_t n,
                                      uint64_t *off_p)
{
    if (__builtin_expect(gshmemi_heap_contains(h, p, n), 1)) {
        *off_p = (uint64_t)((uintptr_t)p - (uintptr_t)h->base);
        return 1;
    }
    return gshmemi_heap_seg_offset(h, p, n, off_p);
}

/* 1 when p is GPU memory of a CUDA heap's process (a __device__ global,
 * cudaMalloc'd or managed memory): for error messages; 0 for host heaps,
 * which never ask CUDA. */
int gshmemi_heap_is_device_ptr(const gshmemi_heap_t *h, const void *p);

/* memset of heap memory (local PE), whatever the kind. */
int gshmemi_heap_memset(const gshmemi_heap_t *h, void *dst, int c, size_t n);

/* Copy between the heap (local PE) and host memory without waiting for the
 * user's kernels: on a CUDA heap a cudaMemcpyAsync on the heap's private
 * non-blocking stream (on the heap's device, whatever the calling thread's
 * current device), waited for before returning; a host heap memmoves. For
 * every host call that touches heap memory here (self RMA, realloc, point
 * synchronization, team barriers, reductions): a copy on the legacy
 * default stream would wait for a kernel that may itself wait for this PE,
 * and while it waits CUDA holds back the engine's copies that bring what
 * that kernel waits for (docs/DESIGN.md, "The legacy default stream").
 * Thread safe. */
int gshmemi_heap_copy_nb(const gshmemi_heap_t *h, void *dst, const void *src, size_t n);

/* Local registrations (gshmem_register): non-collective, may overlap no
 * other registration. */
typedef struct gshmemi_reg gshmemi_reg_t;
int gshmemi_reg_add(gshmemi_reg_t **list, void *addr, size_t len);
int gshmemi_reg_remove(gshmemi_reg_t **list, void *addr);
/* Registration containing [p, p+n), or NULL. */
const gshmemi_reg_t *gshmemi_reg_find(const gshmemi_reg_t *list, const void *p, size_t n);
void gshmemi_reg_clear(gshmemi_reg_t **list);

#endif /* GSHMEMI_HEAP_H */

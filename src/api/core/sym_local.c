/* sym_local.c: the host reading and writing this PE's own symmetric memory
 * whatever the heap, for the host calls that would otherwise touch it in
 * place: point synchronization (sync.c, sync_set.c, signal.c), the team
 * barrier (team.c) and the reductions (reduce.c).
 *
 * A host heap is plain memory. A CUDA heap is never dereferenced by the
 * CPU: bytes travel by a copy on the heap's private non-blocking stream
 * (gshmemi_heap_copy_nb), which never waits for the user's kernels (one
 * may be spinning on what this PE is about to do). A wait loop over a CUDA
 * heap polls by such copies, each a few microseconds of the copy engine:
 * it drives progress on every poll and backs off when the wait is long. */
#include <string.h>
#include <time.h>

#include "core.h"

/* dir: "reading" or "writing", sym: the heap side. */
static void gshmemi_sym_copy(const char *call, void *dst, const void *src, size_t n,
                             const char *dir, const void *sym)
{
    int rc = gshmemi_heap_copy_nb(&gshmemi_g.heap, dst, src, n);
    if (rc != 0)
        gshmemi_fatal(call, "%s %zu bytes of the local %s heap at %p failed: %s", dir, n,
                      gshmemi_g.heap.kind == GSHMEMI_HEAP_CUDA ? "CUDA" : "host", sym,
                      gshmem_strerror(rc));
}

void gshmemi_sym_read(const char *call, void *dst, const void *sym, size_t n)
{
    gshmemi_sym_copy(call, dst, sym, n, "reading", sym);
}

void gshmemi_sym_write(const char *call, void *sym, const void *src, size_t n)
{
    gshmemi_sym_copy(call, sym, src, n, "writing", sym);
}

void gshmemi_sym_load(const char *call, void *dst, const void *sym, size_t n)
{
    if (gshmemi_g.heap.kind != GSHMEMI_HEAP_HOST) {
        gshmemi_sym_read(call, dst, sym, n);
        return;
    }
    if (n == sizeof(uint32_t)) {
        uint32_t v = __atomic_load_n((const uint32_t *)sym, __ATOMIC_ACQUIRE);
        memcpy(dst, &v, n);
    } else if (n == sizeof(uint64_t)) {
        uint64_t v = __atomic_load_n((const uint64_t *)sym, __ATOMIC_ACQUIRE);
        memcpy(dst, &v, n);
    } else {
        memcpy(dst, sym, n);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    }
}

/* Polls without a pause first, then a 5 us pause, 50 us after a
 * thousand (PEs may outnumber GPUs and cores). */
#define GSHMEMI_POLL_EAGER 32
#define GSHMEMI_POLL_LONG 1000

void gshmemi_sym_wait_step(unsigned long polls)
{
    if (gshmemi_g.heap.kind == GSHMEMI_HEAP_HOST) {
        gshmemi_wait_step(polls);
        return;
    }
    gshmemi_progress_all();
    gshmemi_wait_watch(polls);
    if (polls < GSHMEMI_POLL_EAGER)
        return;
    struct timespec ts = {0, polls < GSHMEMI_POLL_LONG ? 5000 : 50000};
    nanosleep(&ts, NULL);
}

void gshmemi_sym_wait_ge_u64(const char *call, const uint64_t *w, uint64_t want)
{
    uint64_t v;

    for (unsigned long spins = 0;; spins++) {
        gshmemi_sym_load(call, &v, w, sizeof v);
        if (v >= want)
            return;
        gshmemi_sym_wait_step(spins);
    }
}

/* fake_boot.c: the shared-memory bootstrap of transport unit tests. */
#include "fake_boot.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gshmem_types.h"

struct fake_boot {
    unsigned arrive, gen;        /* barrier: arrivals, generation (atomic) */
    int n_pes, wait_s;
    size_t slot, map_len;
    unsigned char data[];        /* n_pes allgather slots */
};

fake_boot_t *fake_boot_create(int n_pes, size_t slot_bytes, int wait_s)
{
    size_t len = sizeof(fake_boot_t) + (size_t)n_pes * slot_bytes;
    fake_boot_t *fb = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fb == MAP_FAILED)
        return NULL;
    memset(fb, 0, len);
    fb->n_pes = n_pes;
    fb->wait_s = wait_s;
    fb->slot = slot_bytes;
    fb->map_len = len;
    return fb;
}

void fake_boot_destroy(fake_boot_t *fb)
{
    if (fb != NULL)
        munmap(fb, fb->map_len);
}

static int fb_barrier(gshmemi_bootstrap_t *b)
{
    fake_boot_t *fb = b->priv;
    unsigned gen = __atomic_load_n(&fb->gen, __ATOMIC_ACQUIRE);
    time_t t0 = time(NULL);

    if (__atomic_add_fetch(&fb->arrive, 1, __ATOMIC_ACQ_REL) == (unsigned)b->n_pes) {
        __atomic_store_n(&fb->arrive, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&fb->gen, gen + 1, __ATOMIC_RELEASE);
        return 0;
    }
    while (__atomic_load_n(&fb->gen, __ATOMIC_ACQUIRE) == gen) {
        if (time(NULL) - t0 > fb->wait_s) {
            fprintf(stderr, "PE %d: fake barrier timed out after %d s\n", b->my_pe,
                    fb->wait_s);
            return GSHMEM_ERR_TIMEOUT;
        }
        sched_yield();
    }
    return 0;
}

static int fb_allgather(gshmemi_bootstrap_t *b, const void *in, void *out, size_t len)
{
    fake_boot_t *fb = b->priv;

    if (len > fb->slot)
        return GSHMEM_ERR_INVALID_ARG;
    memcpy(fb->data + (size_t)b->my_pe * fb->slot, in, len);
    int rc = fb_barrier(b);
    if (rc != 0)
        return rc;
    for (int pe = 0; pe < b->n_pes; pe++)
        memcpy((char *)out + (size_t)pe * len, fb->data + (size_t)pe * fb->slot, len);
    return fb_barrier(b);
}

static void fb_abort(gshmemi_bootstrap_t *b, int status, const char *msg)
{
    fprintf(stderr, "PE %d: abort(%d): %s\n", b->my_pe, status, msg);
    _exit(status);
}

static int fb_finalize(gshmemi_bootstrap_t *b)
{
    (void)b;
    return 0;
}

static const gshmemi_bootstrap_ops_t fb_ops = {
    .size = sizeof(gshmemi_bootstrap_ops_t),
    .name = "fake",
    .allgather = fb_allgather,
    .barrier = fb_barrier,
    .notice = gshmemi_bootstrap_notice_none,
    .abort = fb_abort,
    .global_exit = fb_abort,
    .finalize = fb_finalize,
};

void fake_boot_attach(fake_boot_t *fb, int pe, gshmemi_bootstrap_t *b)
{
    memset(b, 0, sizeof *b);
    b->ops = &fb_ops;
    b->my_pe = pe;
    b->n_pes = fb->n_pes;
    b->priv = fb;
}

/* ring_gpu.cu: thousands of GPU threads produce into SQ/CQ rings in
 * host-pinned mapped memory (head and the producers' cache in device memory, as in
 * the real system); one host thread consumes all channels and checks that
 * each message arrives exactly once and in per-producer order. Producers
 * call quiet every QUIET_EVERY messages and check the host processed them.
 *
 *   gshmem-ring-gpu [blocks] [threads_per_block] [messages_per_thread]
 * Prints PASS (exit 0), FAIL: ... (exit 1), or "SKIP: no CUDA device" (exit 0).
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem/ring/sq.h"

#define N_CHANNELS 4
#define CAPACITY 1024
#define BATCH 32
#define QUIET_EVERY 16
#define PAIR_EVERY 7
#define STUCK_S 20.0

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_),        \
                   __FILE__, __LINE__);                                            \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

struct stats {                /* host-mapped, written by the device */
    unsigned long long waits, full_posts, bad_quiet, errors;
};

/* Each thread: per_thread messages into the ring of its block group. */
__global__ void producer_kernel(gshmemi_channels_t ch, uint32_t blocks_per_channel,
                                uint32_t per_thread, const uint64_t *processed,
                                stats *st)
{
    uint32_t pid = blockIdx.x * blockDim.x + threadIdx.x;
    gshmemi_ring_t *r = gshmemi_channel_ring(&ch, blockIdx.x / blocks_per_channel);
    uint64_t last = 0, waits = 0, fulls = 0;
    for (uint32_t seq = 0; seq < per_thread; seq++) {
        gshmemi_wqe_t w[2];
        uint32_t n = (seq % PAIR_EVERY == PAIR_EVERY - 1) ? 2 : 1, wt = 0;
        w[0].laddr = 0;
        w[0].roff = 0;
        w[0].value = seq;
        w[0].ctrl = gshmemi_wqe_ctrl(n == 2 ? GSHMEMI_OP_PUT_SIGNAL : GSHMEMI_OP_PUT,
                                     0, 0, pid);
        w[1] = w[0];
        w[1].ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_EXT, 0, 0, pid);
        int rc = gshmemi_ring_post(r, w, n, &wt, &last);
        waits += wt;
        fulls += wt > 0;
        if (rc != 0) {
            atomicAdd(&st->errors, 1ull);
            break;
        }
        last += n - 1;
        if (seq % QUIET_EVERY == QUIET_EVERY - 1 || seq + 1 == per_thread) {
            if (gshmemi_ring_quiet(r, last) != 0) {
                atomicAdd(&st->errors, 1ull);
                break;
            }
            if (gshmemi_atomic_load_relaxed_u64(&processed[pid]) < seq + 1ull)
                atomicAdd(&st->bad_quiet, 1ull);
        }
    }
    atomicAdd(&st->waits, (unsigned long long)waits);
    atomicAdd(&st->full_posts, (unsigned long long)fulls);
}

struct host_side {
    gshmemi_ring_consumer_t c[N_CHANNELS];
    uint64_t *expect, *processed;   /* [producers] */
    uint64_t total, received, bad;
    uint32_t producers;
    int stuck;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bad(host_side *h, const char *what, uint64_t a, uint64_t b)
{
    if (h->bad++ < 10)
        printf("error: %s (%llu, %llu)\n", what, (unsigned long long)a,
               (unsigned long long)b);
}

/* One message from channel k, whose first entry w (index idx) is in hand. */
static void check_one(host_side *h, int k, const gshmemi_wqe_t *w, uint64_t idx)
{
    uint32_t pid = gshmemi_wqe_pe(w);
    uint64_t last = idx;
    if (pid >= h->producers) {
        bad(h, "producer id out of range", pid, idx);
        return;
    }
    if (gshmemi_wqe_op(w) == GSHMEMI_OP_PUT_SIGNAL) {
        gshmemi_wqe_t x;
        double t0 = now_s();
        while (!gshmemi_ring_poll(&h->c[k], &x, &last))
            if (now_s() - t0 > STUCK_S) {
                h->stuck = 1;
                return;
            }
        if (gshmemi_wqe_op(&x) != GSHMEMI_OP_EXT || gshmemi_wqe_pe(&x) != pid ||
            x.value != w->value || last != idx + 1)
            bad(h, "PUT_SIGNAL not followed by its EXT slot", idx, last);
    } else if (gshmemi_wqe_op(w) != GSHMEMI_OP_PUT) {
        bad(h, "unexpected op at index", gshmemi_wqe_op(w), idx);
    }
    if (w->value != h->expect[pid])
        bad(h, "sequence out of order: got, expected", w->value, h->expect[pid]);
    h->expect[pid] = w->value + 1;
    __atomic_store_n(&h->processed[pid], w->value + 1, __ATOMIC_RELAXED);
    gshmemi_ring_complete(&h->c[k], last + 1);
    h->received++;
}

static void *consumer_main(void *arg)
{
    host_side *h = (host_side *)arg;
    double idle_since = now_s();
    while (h->received < h->total && !h->stuck) {
        int got = 0;
        for (int k = 0; k < N_CHANNELS; k++) {
            gshmemi_wqe_t w;
            uint64_t idx;
            for (int i = 0; i < 64 && gshmemi_ring_poll(&h->c[k], &w, &idx); i++) {
                check_one(h, k, &w, idx);
                got = 1;
            }
        }
        if (got)
            idle_since = now_s();
        else if (now_s() - idle_since > STUCK_S)
            h->stuck = 1;
    }
    for (int k = 0; k < N_CHANNELS; k++) {
        gshmemi_ring_flush(&h->c[k]);
        if (h->stuck)   /* let the kernel out */
            gshmemi_ring_set_error(&h->c[k], GSHMEM_ERR_TIMEOUT);
    }
    return NULL;
}

template <typename T> static T *host_mapped(size_t n, T **dev_p)
{
    T *p;
    CK(cudaHostAlloc((void **)&p, n * sizeof(T), cudaHostAllocMapped));
    memset(p, 0, n * sizeof(T));
    CK(cudaHostGetDevicePointer((void **)dev_p, p, 0));
    return p;
}

template <typename T> static T *device_zeroed(size_t n)
{
    T *p;
    CK(cudaMalloc((void **)&p, n * sizeof(T)));
    CK(cudaMemset(p, 0, n * sizeof(T)));
    return p;
}

/* Rings: host view into h->c[k], device view into dev[k]. */
static void make_rings(host_side *h, gshmemi_ring_t *dev)
{
    for (int k = 0; k < N_CHANNELS; k++) {
        gshmemi_wqe_t *slots_d;
        uint64_t *tail_d, *comp_d;
        uint32_t *status_d;
        gshmemi_wqe_t *slots = host_mapped<gshmemi_wqe_t>(CAPACITY, &slots_d);
        uint64_t *tail = host_mapped<uint64_t>(16, &tail_d);   /* own lines */
        uint64_t *comp = host_mapped<uint64_t>(16, &comp_d);
        uint32_t *status = host_mapped<uint32_t>(32, &status_d);
        uint64_t *head = device_zeroed<uint64_t>(16);
        gshmemi_ring_cache_t *cache = device_zeroed<gshmemi_ring_cache_t>(4);
        gshmemi_ring_t hr;
        if (gshmemi_ring_init(&hr, slots, CAPACITY, tail, comp, status, head, cache) ||
            gshmemi_ring_init(&dev[k], slots_d, CAPACITY, tail_d, comp_d, status_d, head,
                              cache)) {
            printf("FAIL: ring init (capacity %d)\n", CAPACITY);
            exit(1);
        }
        gshmemi_ring_consumer_init(&h->c[k], &hr, BATCH);
    }
}

static int verdict(const host_side *h, const stats *st, double secs)
{
    uint64_t missing = 0;
    for (uint32_t i = 0; i < h->producers; i++)
        missing += h->expect[i] != h->total / h->producers;
    printf("producers %u, messages %llu/%llu, channels %d x %d slots, full-ring waits "
           "%llu (posts delayed %llu), %.3f s (%.2f M msg/s)\n", h->producers,
           (unsigned long long)h->received, (unsigned long long)h->total, N_CHANNELS,
           CAPACITY, st->waits, st->full_posts, secs, h->received / secs / 1e6);
    /* a producer has at most ~QUIET_EVERY entries in flight: the rings can
     * only fill when a channel's producers can hold twice its slots */
    int need_waits = (uint64_t)h->producers / N_CHANNELS * QUIET_EVERY > 2 * CAPACITY;
    if (h->stuck || h->bad || missing || h->received != h->total || st->bad_quiet ||
        st->errors || (need_waits && st->full_posts == 0)) {
        printf("FAIL: stuck %d, check errors %llu, producers short %llu, quiet early "
               "%llu, device errors %llu, full-ring waits %llu\n", h->stuck,
               (unsigned long long)h->bad, (unsigned long long)missing, st->bad_quiet,
               st->errors, st->full_posts);
        return 1;
    }
    printf("PASS\n");
    return 0;
}

int main(int argc, char **argv)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e)
                                                               : "count is 0");
        return 0;
    }
    uint32_t blocks = argc > 1 ? atoi(argv[1]) : 64;
    uint32_t threads = argc > 2 ? atoi(argv[2]) : 128;
    uint32_t per = argc > 3 ? atoi(argv[3]) : 64;
    blocks = (blocks + N_CHANNELS - 1) / N_CHANNELS * N_CHANNELS;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));

    static host_side h;
    gshmemi_ring_t dev_rings_h[N_CHANNELS];
    make_rings(&h, dev_rings_h);
    gshmemi_channels_t ch;
    ch.rings = device_zeroed<gshmemi_ring_t>(N_CHANNELS);
    ch.count = N_CHANNELS;
    CK(cudaMemcpy(ch.rings, dev_rings_h, sizeof(dev_rings_h), cudaMemcpyHostToDevice));
    h.producers = blocks * threads;
    h.total = (uint64_t)h.producers * per;
    h.expect = (uint64_t *)calloc(h.producers, sizeof(uint64_t));
    uint64_t *processed_d;
    h.processed = host_mapped<uint64_t>(h.producers, &processed_d);
    stats *st_d, *st = host_mapped<stats>(1, &st_d);

    pthread_t cons;
    double t0 = now_s();
    pthread_create(&cons, NULL, consumer_main, &h);
    producer_kernel<<<blocks, threads>>>(ch, blocks / N_CHANNELS, per, processed_d, st_d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    pthread_join(cons, NULL);
    return verdict(&h, st, now_s() - t0);
}

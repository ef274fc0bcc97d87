/* pe_dev_rma: device RMA over the P2P path. Every PE puts to its right
 * neighbour and gets from it, through every form (thread, nbi, warp,
 * block, typed p/g/put/get for the five types), over segments of odd sizes
 * and relative misalignments (16-byte, 8, 4, 2 and byte copies), from
 * symmetric and from plain cudaMalloc memory; checks every byte of the
 * target, including that the bytes around each segment stayed untouched.
 * Also my_pe, n_pes and gshmem_ptr. At 18 PEs, PEs 15 and 16 reach their
 * right neighbours past the device state's inline peer table. And that
 * symmetric allocations on a CUDA heap are 256-byte aligned. And a
 * block's put and get of 128-304 KiB, many words a thread (run_wide). */
#include "pe_dev.h"

#define BUF (64u << 10)
#define SENTINEL 0xEE
#define N_SEG 16
#define N_VARIANT 6   /* putmem, putmem_nbi, warp, nbi_warp, block, nbi_block */

/* dst offset, length, source shift (source byte = dst offset + shift + k) */
/* then: a 7-byte head and a 6-byte tail around 16-byte words, an 8-byte-word
 * copy with a 7-byte tail, an 8-byte put alone (one store); two that take
 * the copy's aligned fast path (addresses and length multiples of 16) with
 * several words per thread: 256 words, and an odd 313; and three 8-byte
 * aligned puts around a thread's small-put limit (gshmemi_dev_small_load:
 * up to 32 bytes in 8-byte words, loaded first): 24 bytes at 8 bytes past
 * a 16-byte boundary, 32, and 40 (the copy loop again) */
__constant__ unsigned seg_off[N_SEG] = {0, 32, 80, 160, 512, 5000, 16384, 32771,
                                        53001, 54008, 55008, 56064, 60160, 54408, 54464, 55040};
__constant__ unsigned seg_len[N_SEG] = {1, 16, 7, 100, 4096, 4099, 12345, 20000, 45, 23, 8,
                                        4096, 5008, 24, 32, 40};
__constant__ unsigned seg_shift[N_SEG] = {0, 0, 1, 4, 8, 2, 3, 0, 0, 8, 0, 0, 0, 8, 0, 8};

__host__ __device__ static inline unsigned char pattern(int pe, size_t i)
{
    return (unsigned char)((i * 131u + (size_t)pe * 29u + (i >> 8)) % 251u);
}

__global__ void k_fill(unsigned char *p, size_t n, int pe)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = pe < 0 ? SENTINEL : pattern(pe, i);
}

__global__ void k_basic(char *sym, int *out, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    out[0] = me;
    out[1] = n;
    DEV_EXPECT(errs, gshmem_ptr(sym, me) == (void *)sym, "ptr(self) %p != %p",
               gshmem_ptr(sym, me), (void *)sym);
    for (int pe = 0; pe < n; pe++)
        DEV_EXPECT(errs, gshmem_ptr(sym, pe) != NULL, "ptr(sym, %d) is NULL", pe);
    DEV_EXPECT(errs, gshmem_ptr((void *)out, (me + 1) % n) == NULL,
               "ptr of a non-heap address %p is not NULL", (void *)out);
}

/* Segment s by one thread (v 0, 1), one warp (2, 3) or one block (4, 5):
 * launched as N_SEG blocks of N_SEG warps. */
__global__ void k_put(unsigned char *dst, const unsigned char *src, int pe, int v)
{
    int s = v < 2 ? threadIdx.x : v < 4 ? threadIdx.x / 32 : blockIdx.x;
    if (s >= N_SEG || (v < 2 && blockIdx.x != 0) || (v >= 2 && v < 4 && blockIdx.x != 0))
        return;
    unsigned char *d = dst + seg_off[s];
    const unsigned char *sr = src + seg_off[s] + seg_shift[s];
    size_t n = seg_len[s];
    switch (v) {
    case 0: gshmem_putmem(d, sr, n, pe); break;
    case 1: gshmem_putmem_nbi(d, sr, n, pe); break;
    case 2: gshmemx_putmem_warp(d, sr, n, pe); break;
    case 3: gshmemx_putmem_nbi_warp(d, sr, n, pe); break;
    case 4: gshmemx_putmem_block(d, sr, n, pe); break;
    default: gshmemx_putmem_nbi_block(d, sr, n, pe); break;
    }
    gshmem_quiet();
}

/* The same for gets: v 0 getmem, 1 getmem_nbi, 2 warp, 4 block. */
__global__ void k_get(unsigned char *dst, const unsigned char *src, int pe, int v)
{
    int s = v < 2 ? threadIdx.x : v < 4 ? threadIdx.x / 32 : blockIdx.x;
    if (s >= N_SEG || (v < 4 && blockIdx.x != 0))
        return;
    unsigned char *d = dst + seg_off[s];
    const unsigned char *sr = src + seg_off[s] + seg_shift[s];
    size_t n = seg_len[s];
    switch (v) {
    case 0: gshmem_getmem(d, sr, n, pe); break;
    case 1: gshmem_getmem_nbi(d, sr, n, pe); gshmem_quiet(); break;
    case 2: case 3: gshmemx_getmem_warp(d, sr, n, pe); break;
    default: gshmemx_getmem_block(d, sr, n, pe); break;
    }
}

/* buf must hold pattern(pe) at each segment and SENTINEL elsewhere. */
__global__ void k_verify(const unsigned char *buf, int pe, int v, int *errs)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < BUF; i += gridDim.x * blockDim.x) {
        unsigned char want = SENTINEL;
        for (int s = 0; s < N_SEG; s++)
            if (i >= seg_off[s] && i < seg_off[s] + seg_len[s])
                want = pattern(pe, i + seg_shift[s]);
        DEV_EXPECT(errs, buf[i] == want, "variant %d: byte %llu is %u, want %u (from PE %d)",
                   v, (unsigned long long)i, buf[i], want, pe);
    }
}

/* ---- typed forms --------------------------------------------------------------- */
#define TYPED_N 256   /* elements per region; regions: p, put, put_nbi */

template <typename T> struct typed;
#define TYPED(T, N)                                                                   \
    template <> struct typed<T> {                                                     \
        __device__ static void p(T *d, T v, int pe) { gshmem_##N##_p(d, v, pe); }     \
        __device__ static T g(const T *s, int pe) { return gshmem_##N##_g(s, pe); }   \
        __device__ static void put(T *d, const T *s, size_t n, int pe)                \
        { gshmem_##N##_put(d, s, n, pe); }                                            \
        __device__ static void put_nbi(T *d, const T *s, size_t n, int pe)            \
        { gshmem_##N##_put_nbi(d, s, n, pe); }                                        \
        __device__ static void get(T *d, const T *s, size_t n, int pe)                \
        { gshmem_##N##_get(d, s, n, pe); }                                            \
        __device__ static void get_nbi(T *d, const T *s, size_t n, int pe)            \
        { gshmem_##N##_get_nbi(d, s, n, pe); }                                        \
    };
TYPED(int32_t, int32)
TYPED(int64_t, int64)
TYPED(uint64_t, uint64)
TYPED(float, float)
TYPED(double, double)

template <typename T> __host__ __device__ T tval(int pe, int i)
{
    return (T)(pe * 100000 + i * 3 + 1) + (T)((i & 1) ? -7 : 5);
}

/* Thread i: p of element i; thread 0: put and put_nbi of the whole array
 * (from the local array src, holding tval(me)). sym: 3 regions. */
template <typename T> __global__ void k_typed_put(T *sym, const T *src, int pe)
{
    int i = threadIdx.x;
    typed<T>::p(&sym[i], tval<T>(gshmem_my_pe(), i), pe);
    if (i == 0) {
        typed<T>::put(sym + TYPED_N, src, TYPED_N, pe);
        typed<T>::put_nbi(sym + 2 * TYPED_N, src, TYPED_N, pe);
    }
    gshmem_quiet();
}

/* After the puts: sym regions hold tval(left); g/get/get_nbi from the
 * right PE's regions give tval(me) (what this PE put there). */
template <typename T> __global__ void k_typed_check(T *sym, T *loc, int left, int right, int *errs)
{
    int i = threadIdx.x, me = gshmem_my_pe();
    for (int r = 0; r < 3; r++)
        DEV_EXPECT(errs, sym[r * TYPED_N + i] == tval<T>(left, i),
                   "typed size %d region %d elem %d: got %g want %g", (int)sizeof(T), r, i,
                   (double)sym[r * TYPED_N + i], (double)tval<T>(left, i));
    T got = typed<T>::g(&sym[i], right);
    DEV_EXPECT(errs, got == tval<T>(me, i), "typed size %d g(elem %d, PE %d) %g want %g",
               (int)sizeof(T), i, right, (double)got, (double)tval<T>(me, i));
    if (i == 0) {
        typed<T>::get(loc, sym + TYPED_N, TYPED_N, right);
        typed<T>::get_nbi(loc + TYPED_N, sym + 2 * TYPED_N, TYPED_N, right);
        gshmem_quiet();
    }
    __syncthreads();
    for (int r = 0; r < 2; r++)
        DEV_EXPECT(errs, loc[r * TYPED_N + i] == tval<T>(me, i),
                   "typed size %d get region %d elem %d: %g want %g", (int)sizeof(T), r, i,
                   (double)loc[r * TYPED_N + i], (double)tval<T>(me, i));
}

template <typename T> __global__ void k_typed_src(T *src)
{
    src[threadIdx.x] = tval<T>(gshmem_my_pe(), threadIdx.x);
}

template <typename T> static void run_typed(int left, int right, int *errs)
{
    T *sym = (T *)pe_dev_sym(3 * TYPED_N * sizeof(T)), *loc = NULL, *src = NULL;
    CU(cudaMalloc((void **)&loc, 2 * TYPED_N * sizeof(T)));
    CU(cudaMalloc((void **)&src, TYPED_N * sizeof(T)));
    k_typed_src<T><<<1, TYPED_N>>>(src);
    CU_SYNC();
    gshmem_barrier_all();
    k_typed_put<T><<<1, TYPED_N>>>(sym, src, right);
    CU_SYNC();
    gshmem_barrier_all();
    k_typed_check<T><<<1, TYPED_N>>>(sym, loc, left, right, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "typed RMA");
    gshmem_barrier_all();
    CU(cudaFree(loc));
    CU(cudaFree(src));
    gshmem_free(sym);
}

/* ---- allocation alignment ------------------------------------------------------ */

/* Every allocation on a CUDA heap is 256-byte aligned, as cudaMalloc's are,
 * whatever was allocated before (odd sizes, the runtime's own areas): a
 * destination only 64-byte aligned cost one block's stores to a peer 7 %. */
static void run_align(void)
{
    const size_t sizes[] = {1, 100, 4096, 3, 65536 + 8};
    void *p[5];
    for (int i = 0; i < 5; i++) {
        p[i] = i == 3 ? gshmem_calloc(sizes[i], 1) : gshmem_malloc(sizes[i]);
        PE_CHECK(p[i] != NULL && ((uintptr_t)p[i] & 255) == 0,
                 "gshmem_%s(%zu) = %p: not 256-byte aligned on a CUDA heap",
                 i == 3 ? "calloc" : "malloc", sizes[i], p[i]);
    }
    p[1] = gshmem_realloc(p[1], 1000);
    PE_CHECK(p[1] != NULL && ((uintptr_t)p[1] & 255) == 0,
             "gshmem_realloc(1000) = %p: not 256-byte aligned", p[1]);
    void *a = gshmem_align(1024, 10);
    PE_CHECK(a != NULL && ((uintptr_t)a & 1023) == 0, "gshmem_align(1024) = %p", a);
    gshmem_free(a);
    for (int i = 4; i >= 0; i--)
        gshmem_free(p[i]);
}

/* ---- a block's put with many words a thread ---------------------------------------- */

/* A block of 256 threads or more keeps four loads in flight once each
 * thread has 16 or more 16-byte words (gshmemi_dev_copy_words_i), then
 * two, then one: these cover the four-word loop's exact end (16 words a
 * thread), it with the two-word loop and a one-word tail after it, and
 * it behind a 13-byte head and a tail. offset, length (bytes), threads. */
#define WIDE_BUF (384u << 10)
#define N_WIDE 3
static const unsigned wide_off[N_WIDE] = {16, 16, 35};
static const unsigned wide_len[N_WIDE] = {16u * 512 * 16, (19u * 1024 + 7) * 16,
                                          17u * 1024 * 16 + 100};
static const unsigned wide_threads[N_WIDE] = {512, 1024, 1024};

__global__ void k_wide(unsigned char *dst, const unsigned char *src, size_t n, int pe, int v)
{
    switch (v) {
    case 0: gshmemx_putmem_block(dst, src, n, pe); break;
    case 1: gshmemx_putmem_nbi_block(dst, src, n, pe); break;
    default: gshmemx_getmem_block(dst, src, n, pe); break;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        gshmem_quiet();
}

/* buf: pattern(pe) on [off, off + len), SENTINEL elsewhere. */
__global__ void k_verify_wide(const unsigned char *buf, size_t off, size_t len, int pe, int c,
                              int v, int *errs)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < WIDE_BUF;
         i += gridDim.x * blockDim.x) {
        unsigned char want = i >= off && i < off + len ? pattern(pe, i) : SENTINEL;
        DEV_EXPECT(errs, buf[i] == want,
                   "wide case %d variant %d: byte %llu is %u, want %u (from PE %d)", c, v,
                   (unsigned long long)i, buf[i], want, pe);
    }
}

static void run_wide(int me, int left, int right, int *errs)
{
    unsigned char *src = (unsigned char *)pe_dev_sym(WIDE_BUF);
    unsigned char *dst = (unsigned char *)pe_dev_sym(WIDE_BUF);
    unsigned char *loc = NULL;
    CU(cudaMalloc((void **)&loc, WIDE_BUF));
    k_fill<<<64, 256>>>(src, WIDE_BUF, me);
    CU_SYNC();
    for (int c = 0; c < N_WIDE; c++)
        for (int v = 0; v < 3; v++) {   /* putmem_block, putmem_nbi_block, getmem_block */
            unsigned char *d = v < 2 ? dst : loc;
            k_fill<<<64, 256>>>(d, WIDE_BUF, -1);
            CU_SYNC();
            gshmem_barrier_all();
            k_wide<<<1, wide_threads[c]>>>(d + wide_off[c], src + wide_off[c], wide_len[c],
                                            right, v);
            CU_SYNC();
            gshmem_barrier_all();
            k_verify_wide<<<64, 256>>>(d, wide_off[c], wide_len[c], v < 2 ? left : right, c, v,
                                       errs);
            CU_SYNC();
            pe_dev_errs_check(errs, v < 2 ? "putmem_block, many words a thread"
                                          : "getmem_block, many words a thread");
        }
    gshmem_barrier_all();
    CU(cudaFree(loc));
    gshmem_free(dst);
    gshmem_free(src);
}

/* ---- main ----------------------------------------------------------------------- */

static void run_bytes(int me, int left, int right, int *errs)
{
    unsigned char *sym_src = (unsigned char *)pe_dev_sym(BUF);
    unsigned char *sym_dst = (unsigned char *)pe_dev_sym(BUF);
    unsigned char *loc_src = NULL, *loc_dst = NULL;
    CU(cudaMalloc((void **)&loc_src, BUF));
    CU(cudaMalloc((void **)&loc_dst, BUF));
    k_fill<<<64, 256>>>(sym_src, BUF, me);
    k_fill<<<64, 256>>>(loc_src, BUF, me);
    CU_SYNC();
    for (int v = 0; v < N_VARIANT; v++) {
        /* puts: from local memory (odd variants) or symmetric memory (even) */
        k_fill<<<64, 256>>>(sym_dst, BUF, -1);
        CU_SYNC();
        gshmem_barrier_all();
        k_put<<<N_SEG, 32 * N_SEG>>>(sym_dst, (v & 1) ? loc_src : sym_src, right, v);
        CU_SYNC();
        gshmem_barrier_all();
        k_verify<<<64, 256>>>(sym_dst, left, v, errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "putmem");
        /* gets into local memory (even variants) or symmetric memory (odd) */
        unsigned char *gd = (v & 1) ? sym_dst : loc_dst;
        k_fill<<<64, 256>>>(gd, BUF, -1);
        CU_SYNC();
        gshmem_barrier_all();
        k_get<<<N_SEG, 32 * N_SEG>>>(gd, sym_src, right, v);
        CU_SYNC();
        k_verify<<<64, 256>>>(gd, right, 100 + v, errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "getmem");
    }
    gshmem_barrier_all();
    CU(cudaFree(loc_src));
    CU(cudaFree(loc_dst));
    gshmem_free(sym_dst);
    gshmem_free(sym_src);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int *errs = pe_dev_errs_new(), *out = NULL, h[2] = {-1, -1};
    char *sym = (char *)pe_dev_sym(4096);

    CU(cudaMalloc((void **)&out, 2 * sizeof(int)));
    k_basic<<<1, 1>>>(sym, out, errs);
    CU_SYNC();
    CU(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    PE_CHECK(h[0] == me && h[1] == n, "device my_pe %d n_pes %d, host %d %d", h[0], h[1], me, n);
    pe_dev_errs_check(errs, "my_pe/n_pes/ptr");

    run_align();
    run_bytes(me, left, right, errs);
    run_wide(me, left, right, errs);
    run_typed<int32_t>(left, right, errs);
    run_typed<int64_t>(left, right, errs);
    run_typed<uint64_t>(left, right, errs);
    run_typed<float>(left, right, errs);
    run_typed<double>(left, right, errs);

    gshmem_free(sym);
    CU(cudaFree(out));
    CU(cudaFree(errs));
    printf("pe_dev_rma: OK (PE %d of %d)\n", me, n);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}

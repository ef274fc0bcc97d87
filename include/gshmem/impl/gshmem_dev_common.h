/* gshmem_dev_common.h: the per-TU device state, its registration with the
 * library, and the helpers of every device call (checks, address
 * translation, thread groups, the copy loop, the queue path's fallback).
 * The queue path itself (device producer) is impl/gshmem_dev_queue.h,
 * included at the end.
 * Included by gshmem_device.h only. */
#ifndef GSHMEMI_DEV_COMMON_H
#define GSHMEMI_DEV_COMMON_H

#include <stdio.h>
#include "gshmem_dev_port.h"
#include "gshmem/ring/port.h"

/* ---- the state: one copy per translation unit (no -rdc needed) ------------ */
static __constant__ gshmemi_dev_state_t gshmemi_dstate;

#if !defined(GSHMEMI_DEV_PASS)
/* Copies the library's state into this TU's copy, through the cudart this
 * TU links, on the heap's device. Returns 0 or a cudaError_t (HIP: a
 * hipError_t through the HIP runtime). */
static int gshmemi_dstate_sync(const gshmemi_dev_state_t *s)
{
    if (s->abi != GSHMEMI_DEV_STATE_ABI || s->size != sizeof(gshmemi_dev_state_t)) {
        fprintf(stderr, "gshmem: device state ABI %u (%u bytes) from the library, this "
                "program was compiled with gshmem_device.h ABI %u (%zu bytes): rebuild it\n",
                s->abi, s->size, GSHMEMI_DEV_STATE_ABI, sizeof(gshmemi_dev_state_t));
        return (int)GSHMEMI_RT_ERR_INVALID_VALUE;
    }
    if (s->cuda_device >= 0) {
        gshmemi_rt_error_t e = gshmemi_rt_set_device(s->cuda_device);
        if (e != GSHMEMI_RT_SUCCESS)
            return (int)e;
    }
    gshmemi_rt_error_t e = gshmemi_rt_copy_to_symbol(gshmemi_dstate, s, sizeof *s);
    /* the state is read next by kernels on any stream, non-blocking ones
     * included: the copy must have landed when publishing returns */
    if (e == GSHMEMI_RT_SUCCESS)
        e = gshmemi_rt_wait_copies();
    return (int)e;
}

/* Registration at load time. A C++ static object, not a constructor
 * function: its initializer runs after nvcc's module registration of this
 * TU (__cudaRegisterAll), so a TU loaded after init (dlopen) can have its
 * state copied at once. Its destructor forgets the TU at unload. */
namespace {
struct gshmemi_dstate_registration {
    gshmemi_dstate_registration() { (void)gshmemx_device_state_register(gshmemi_dstate_sync); }
    ~gshmemi_dstate_registration() { gshmemx_device_state_unregister(gshmemi_dstate_sync); }
};
}
static gshmemi_dstate_registration gshmemi_dstate_registration_obj;
#endif /* host pass */

#if defined(GSHMEMI_DEV_PASS)

/* GSHMEMI_DEV, GSHMEMI_DEV_COLD, GSHMEMI_DEV_API: impl/gshmem_dev_port.h */

/* ---- reporting misuse: print what and where, then trap --------------------- */

GSHMEMI_DEV_COLD void gshmemi_dev_fail_state(const char *call)
{
    printf("gshmem: %s: device state not published (gshmem_init not called, finalized, "
           "or the heap is not a CUDA heap: set GSHMEM_HEAP=cuda)\n", call);
    gshmemi_dev_trap();
}

GSHMEMI_DEV_COLD void gshmemi_dev_fail_pe(const char *call, int pe)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
    printf("gshmem: PE %d: %s: invalid PE %d (n_pes %d)\n", gshmemi_dstate.my_pe, call, pe,
           gshmemi_dstate.n_pes);
    gshmemi_dev_trap();
}

GSHMEMI_DEV_COLD void gshmemi_dev_fail_addr(const char *call, const char *what,
                                            const void *addr, size_t n)
{
    const gshmemi_dev_state_t &s = gshmemi_dstate;
    if (s.n_pes == 0)
        gshmemi_dev_fail_state(call);
    printf("gshmem: PE %d: %s: %s %p (%llu bytes) is not inside the symmetric heap "
           "[%p, %p)\n", s.my_pe, call, what, addr, (unsigned long long)n,
           (void *)s.heap_base, (void *)(s.heap_base + s.heap_size));
    gshmemi_dev_trap();
}

GSHMEMI_DEV_COLD void gshmemi_dev_fail_arg(const char *call, const char *what, long long v)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
    printf("gshmem: PE %d: %s: invalid %s %lld\n", gshmemi_dstate.my_pe, call, what, v);
    gshmemi_dev_trap();
}

/* ==== the queue path's entry point ==========================================
 * Every device call that finds no load/store mapping of a remote PE takes
 * the queue path (impl/gshmem_dev_queue.h: WQEs to the proxy engine through
 * the channel rings). This is its last resort: no engine runs (the device
 * state has no channels), which happens only when every PE was mapped. */
GSHMEMI_DEV_COLD void gshmemi_dev_queue_off(const char *call, int pe)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
    printf("gshmem: PE %d: %s: PE %d is not reachable by load/store and no proxy engine "
           "runs for the queue path\n", gshmemi_dstate.my_pe, call, pe);
    gshmemi_dev_trap();
}
/* ==== end of the queue path's entry point =================================== */

/* ---- checks ------------------------------------------------------------------ */

/* Calls that touch no argument that would catch it (barriers, teams). */
GSHMEMI_DEV void gshmemi_dev_require_state(const char *call)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
}

GSHMEMI_DEV bool gshmemi_dev_checks_on(void)
{
    return (gshmemi_dstate.flags & GSHMEMI_DEV_F_NO_CHECKS) == 0;
}

/* [addr, addr+n) inside the heap; branch-free (an address below the heap
 * wraps to an offset above its size). */
GSHMEMI_DEV bool gshmemi_dev_in_heap(const void *addr, size_t n)
{
    uint64_t off = (uint64_t)((uintptr_t)addr - (uintptr_t)gshmemi_dstate.heap_base);
    uint64_t size = gshmemi_dstate.heap_size;
    return (off <= size) & (n <= size - off);
}

/* What a failed gshmemi_dev_check or _check_local found (the state, the
 * PE, or the address; pe < 0 with n_pes > 0 only from _check_local). */
GSHMEMI_DEV_COLD void gshmemi_dev_fail_check(const char *call, const char *what,
                                             const void *addr, size_t n, int pe, bool remote)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
    if (remote && (pe < 0 || pe >= gshmemi_dstate.n_pes))
        gshmemi_dev_fail_pe(call, pe);
    gshmemi_dev_fail_addr(call, what, addr, n);
}

/* A remote access of [addr, addr+n) at pe. Zero-byte operations are not
 * checked (they are no-ops). Every thread of a group runs its call's
 * checks, and at a few KiB per block their instructions are a measurable
 * part of the put: one combined test (no short-circuit branches) and one
 * call site (docs/results/device-perf-2026-11-27-s16). */
GSHMEMI_DEV void gshmemi_dev_check(const char *call, const char *what, const void *addr,
                                   size_t n, int pe)
{
    if (!gshmemi_dev_checks_on())
        return;
    bool ok = ((unsigned)pe < (unsigned)gshmemi_dstate.n_pes) & gshmemi_dev_in_heap(addr, n);
    if (!ok)
        gshmemi_dev_fail_check(call, what, addr, n, pe, true);
}

/* A local symmetric object (signals, ivars), naturally aligned. */
GSHMEMI_DEV void gshmemi_dev_check_local(const char *call, const char *what,
                                         const void *addr, size_t n)
{
    if (!gshmemi_dev_checks_on())
        return;
    bool ok = (gshmemi_dstate.n_pes != 0) & gshmemi_dev_in_heap(addr, n) &
              (((uintptr_t)addr & (n - 1)) == 0);
    if (!ok)
        gshmemi_dev_fail_check(call, what, addr, n, -1, false);
}

/* ---- address translation ----------------------------------------------------- */

/* addr's twin at pe as a load/store address here, or NULL (queue path).
 * The first GSHMEMI_DEV_PEER_INLINE PEs from the state itself (one
 * constant load: this PE's offset is 0, an unmapped PE's
 * GSHMEMI_DEV_PEER_NONE), the others from the peer table. */
GSHMEMI_DEV char *gshmemi_dev_peer_addr(const void *addr, int pe)
{
    const gshmemi_dev_state_t &s = gshmemi_dstate;
    if ((unsigned)pe < GSHMEMI_DEV_PEER_INLINE) {
        int64_t d = s.peer_delta[pe];
        return d == GSHMEMI_DEV_PEER_NONE ? NULL : (char *)addr + d;
    }
    if (pe == s.my_pe)
        return (char *)addr;
    if (s.peer_base == NULL)
        return NULL;
    char *b = (char *)gshmemi_dev_ldg_u64((const unsigned long long *)&s.peer_base[pe]);
    return b == NULL ? NULL : b + ((const char *)addr - s.heap_base);
}

/* Word w of the device barrier area at pe (pe == my_pe: local). */
GSHMEMI_DEV uint64_t *gshmemi_dev_sync_word(int w)
{
    return (uint64_t *)(gshmemi_dstate.sync_base + (size_t)w * GSHMEMI_DEV_SYNC_STRIDE);
}

/* ---- thread groups ------------------------------------------------------------- */

typedef struct gshmemi_dev_group {
    unsigned rank, size;   /* this thread's index in the group, group size */
} gshmemi_dev_group_t;

GSHMEMI_DEV gshmemi_dev_group_t gshmemi_dev_thread(void)
{
    gshmemi_dev_group_t g = {0u, 1u};
    return g;
}

GSHMEMI_DEV unsigned gshmemi_dev_block_rank(void);

/* The warp of the calling thread: lanes by linear thread index, 32 of
 * them (HIP: warpSize, 64 on gfx90a; fewer in a block's last, partial
 * warp). Every thread of the warp must call with the same arguments.
 * Computed from the block shape, not from __activemask(), which may show a
 * warp that has not reconverged. */
GSHMEMI_DEV gshmemi_dev_group_t gshmemi_dev_warp(gshmemi_dev_lanemask_t *mask_p)
{
    const unsigned ws = GSHMEMI_DEV_WARP_SIZE;
    unsigned lin = gshmemi_dev_block_rank();
    unsigned nthr = blockDim.x * blockDim.y * blockDim.z, base = lin & ~(ws - 1u);
    unsigned size = nthr - base < ws ? nthr - base : ws;
    gshmemi_dev_group_t g = {lin & (ws - 1u), size};
    *mask_p = gshmemi_dev_lanes(size);
    return g;
}

GSHMEMI_DEV unsigned gshmemi_dev_block_rank(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

GSHMEMI_DEV gshmemi_dev_group_t gshmemi_dev_block(void)
{
    gshmemi_dev_group_t g = {gshmemi_dev_block_rank(), blockDim.x * blockDim.y * blockDim.z};
    return g;
}

/* True for a thread of a cooperative put or get (g of more than one
 * thread) that has nothing to do: the copy is of 16-byte words (both
 * addresses and n multiples of 16), none of them is this thread's, and pe
 * is an inline peer that is mapped (so the copy takes the P2P path, which
 * needs no group barrier). It leaves before the checks and the lookup: at
 * a few KiB per block most of the block's warps have no word, and their
 * setup competed with the others' (docs/results/device-perf-2026-11-27-s16).
 * The threads that store run the checks. */
GSHMEMI_DEV bool gshmemi_dev_group_idle(const void *a, const void *b, size_t n, int pe,
                                        gshmemi_dev_group_t g)
{
    return g.size > 1 &&
           (((unsigned)(uintptr_t)a | (unsigned)(uintptr_t)b | (unsigned)n) & 15u) == 0 &&
           g.rank >= (n >> 4) && (unsigned)pe < GSHMEMI_DEV_PEER_INLINE &&
           gshmemi_dstate.peer_delta[pe] != GSHMEMI_DEV_PEER_NONE;
}

/* ---- the copy loop --------------------------------------------------------------- */

/* nw words of W from s to d, split over the group, with index type I.
 * Loads in flight per thread: in groups under 256 threads four, the last
 * words two at a time (a thread's or a warp's put is bound by the loads'
 * latency: with two, one thread's 4 KiB put took 1.8x as long;
 * docs/results/device-perf-2026-11-26-s10). In larger groups (blocks) as
 * many as a thread's words ask for: one while each thread has at most two
 * words (a grid's put of 128 KiB-4 MiB gives each block 1-32 KiB; a
 * block's 4-32 KiB), four from 16 words a thread (a block's 256 KiB and
 * more: 1.02-1.05x the bandwidth of two, which had left a block's
 * 256 KiB-1 MiB at 1.005x NVSHMEM's), two between (against two always:
 * a grid's 128-512 KiB put 1.01-1.03x, a block's 4-16 KiB 1.06-1.07x).
 * Blocks share the four-word loop of threads and warps: a second copy of
 * it for blocks cost a block's 4-64 KiB put 2-5 % of its bandwidth (code
 * placement: those sizes never reach it), the shared one 0.99-1.05x the
 * bandwidth before (docs/results/device-perf-2026-11-27-s16, -s17). */
template <typename W, typename I>
GSHMEMI_DEV void gshmemi_dev_copy_words_i(W *d, const W *s, I nw, gshmemi_dev_group_t g)
{
    I i = g.rank, st = g.size;
    if (st >= 256 && nw <= 2 * st) {
        for (; i < nw; i += st)
            d[i] = s[i];
        return;
    }
    if (st < 256 || nw >= 16 * st)
        for (; i + 3 * st < nw; i += 4 * st) {
            W a = s[i], b = s[i + st], c = s[i + 2 * st], e = s[i + 3 * st];
            d[i] = a;
            d[i + st] = b;
            d[i + 2 * st] = c;
            d[i + 3 * st] = e;
        }
    for (; i + st < nw; i += 2 * st) {
        W a = s[i], b = s[i + st];
        d[i] = a;
        d[i + st] = b;
    }
    if (i < nw)
        d[i] = s[i];
}

/* 32-bit indices below 2^31 words (a group is at most a block, 1024
 * threads, so i + 4 x size stays below 2^32): one instruction per compare
 * and address instead of two; one block's 4-16 KiB put 1.10-1.14x, a thread's 1-64 KiB put 0.96x
 * the time of 64-bit indices (docs/results/device-perf-2026-11-26-s12). */
template <typename W>
GSHMEMI_DEV void gshmemi_dev_copy_words(W *d, const W *s, size_t nw, gshmemi_dev_group_t g)
{
    if (nw < ((size_t)1 << 31))
        gshmemi_dev_copy_words_i<W, unsigned>(d, s, (unsigned)nw, g);
    else
        gshmemi_dev_copy_words_i<W, size_t>(d, s, nw, g);
}

GSHMEMI_DEV void gshmemi_dev_copy_bytes(char *d, const char *s, size_t n, gshmemi_dev_group_t g)
{
    for (size_t i = g.rank; i < n; i += g.size)
        d[i] = s[i];
}

/* One naturally aligned word of p (8, 4, 2, 1) bytes at d + o from s + o,
 * written when this thread is the group's rank for piece k (pieces of a
 * head or a tail: at most four, k < size gives each its own thread). */
GSHMEMI_DEV void gshmemi_dev_copy_piece(char *d, const char *s, size_t o, unsigned p, unsigned k,
                                        gshmemi_dev_group_t g)
{
    if ((k < g.size ? k : k % g.size) != g.rank)
        return;
    switch (p) {
    case 8: *(uint64_t *)(d + o) = *(const uint64_t *)(s + o); break;
    case 4: *(uint32_t *)(d + o) = *(const uint32_t *)(s + o); break;
    case 2: *(uint16_t *)(d + o) = *(const uint16_t *)(s + o); break;
    default: d[o] = s[o]; break;
    }
}

/* The head (from d up to the next multiple of w: 1, 2, 4 then 8 bytes as
 * d's address bits say) or the tail (n < w bytes from a multiple of w: 8,
 * 4, 2 then 1 as n's bits say) of a copy whose words are w bytes wide:
 * aligned words, not bytes, so an 8-byte put is one store. */
GSHMEMI_DEV void gshmemi_dev_copy_head(char *d, const char *s, size_t w, gshmemi_dev_group_t g)
{
    unsigned k = 0;
    size_t o = 0;
#pragma unroll
    for (unsigned p = 1; p < 16; p <<= 1)
        if (p < w && (((uintptr_t)d + o) & p)) {
            gshmemi_dev_copy_piece(d, s, o, p, k++, g);
            o += p;
        }
}

GSHMEMI_DEV void gshmemi_dev_copy_tail(char *d, const char *s, size_t n, gshmemi_dev_group_t g)
{
    unsigned k = 0;
    size_t o = 0;
#pragma unroll
    for (unsigned p = 8; p > 0; p >>= 1)
        if (n & p) {
            gshmemi_dev_copy_piece(d, s, o, p, k++, g);
            o += p;
        }
}

/* The copies gshmemi_dev_copy does not decide at once. Where both
 * addresses can share 16-byte words it copies the head and the tail and
 * narrows [*d, *d + *n) to the 16-byte words between them, for the caller's
 * one 16-byte loop (returns true); otherwise it copies everything, in the
 * widest words both addresses share (8, 4, 2 bytes) or in bytes (false). */
GSHMEMI_DEV bool gshmemi_dev_copy_edges(char **dp, const char **sp, size_t *np,
                                        gshmemi_dev_group_t g)
{
    char *d = *dp;
    const char *s = *sp;
    size_t n = *np;
    uintptr_t a = (uintptr_t)d;
    unsigned diff = (unsigned)((a ^ (uintptr_t)s) & 15u);
    /* shifts, not a 64-bit division (with 1024 threads, a division per
     * call cost more than moving 4 KiB) */
    unsigned lw = diff == 0 ? 4u : (diff & 7u) == 0 ? 3u : (diff & 3u) == 0 ? 2u
                : (diff & 1u) == 0 ? 1u : 0u;   /* log2 of the word */
    size_t w = (size_t)1 << lw;
    size_t head = (w - (a & (w - 1))) & (w - 1);
    if (w == 1 || head > n) {   /* no common alignment, or short of the first word: bytes */
        gshmemi_dev_copy_bytes(d, s, n, g);
        return false;
    }
    if (head > 0)
        gshmemi_dev_copy_head(d, s, w, g);
    d += head;
    s += head;
    size_t nw = (n - head) >> lw, tail = n - head - (nw << lw);
    if (tail > 0)
        gshmemi_dev_copy_tail(d + (nw << lw), s + (nw << lw), tail, g);
    if (lw == 4u) {
        *dp = d;
        *sp = s;
        *np = nw << 4;
        return true;
    }
    if (lw == 3u)
        gshmemi_dev_copy_words((uint64_t *)d, (const uint64_t *)s, nw, g);
    else if (lw == 2u)
        gshmemi_dev_copy_words((uint32_t *)d, (const uint32_t *)s, nw, g);
    else
        gshmemi_dev_copy_words((uint16_t *)d, (const uint16_t *)s, nw, g);
    return false;
}

/* n bytes, widest words (16, 8, 4, 2, 1 bytes) that both addresses can
 * share: a head up to the alignment, the words, a tail; head and tail in
 * aligned words (gshmemi_dev_copy_head, _tail). Every thread of a block
 * runs this setup, and at 4 KiB it costs more than the stores: the common
 * case (both addresses and n multiples of 16) decides with one test and
 * goes straight to the one 16-byte loop, which the other 16-byte cases
 * reach too (gshmemi_dev_copy_edges narrows them): one copy of that loop
 * (two took put_bw's kernel from 40 registers to 56). addr_bits:
 * the low bits of both addresses, or of their untranslated twins
 * (gshmemi_dev_copy_p2p), for that one test. */
GSHMEMI_DEV void gshmemi_dev_copy_as(void *dst, const void *src, size_t n, gshmemi_dev_group_t g,
                                     unsigned addr_bits)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (((addr_bits | (unsigned)n) & 15u) != 0) {
        addr_bits = (unsigned)(uintptr_t)d | (unsigned)(uintptr_t)s;
        unsigned m = (unsigned)n - 1u;
        /* 1, 2, 4 or 8 bytes, both aligned to it: one word */
        if (n - 1 < 15 && (n & m) == 0 && (addr_bits & m) == 0) {
            gshmemi_dev_copy_piece(d, s, 0, (unsigned)n, 0, g);
            return;
        }
        if (!gshmemi_dev_copy_edges(&d, &s, &n, g))
            return;
    }
    gshmemi_dev_copy_words((int4 *)d, (const int4 *)s, n >> 4, g);   /* the common case */
}

GSHMEMI_DEV void gshmemi_dev_copy(void *dst, const void *src, size_t n, gshmemi_dev_group_t g)
{
    gshmemi_dev_copy_as(dst, src, n, g, (unsigned)(uintptr_t)dst | (unsigned)(uintptr_t)src);
}

/* A P2P put or get: d or s translated to a peer, the 16-byte test on the
 * untranslated addresses a, b (a peer's heap shares this one's 16-byte
 * alignment), so it does not wait for the lookup. */
GSHMEMI_DEV void gshmemi_dev_copy_p2p(void *d, const void *s, size_t n, gshmemi_dev_group_t g,
                                      const void *a, const void *b)
{
    gshmemi_dev_copy_as(d, s, n, g, (unsigned)(uintptr_t)a | (unsigned)(uintptr_t)b);
}

/* ---- a thread's small put: the source first ------------------------------------ */

/* A thread's put of at most GSHMEMI_DEV_SMALL_WORDS 8-byte words (dest,
 * source and n multiples of 8) is bound by latency, not bandwidth. The
 * copy loop issues its loads once the peer address and its alignment are
 * known, after the checks and the lookup; a small put loads its words
 * before them (gshmemi_dev_small_load), so the source's latency (an L2
 * hit: the acquire of a wait, or the system fence of a previous signal,
 * leaves L1 empty) runs under that work instead of after it. nw 0: not a
 * small put (gshmemi_dev_small_none: the group forms, which the compiler
 * then drops the path from). */
#define GSHMEMI_DEV_SMALL_WORDS 4u   /* 8 (64 B): more registers, 64 B 0.96 -> 0.92 (s16) */

typedef struct gshmemi_dev_small {
    uint64_t w[GSHMEMI_DEV_SMALL_WORDS];
    unsigned nw;   /* words loaded; 0: not a small put */
} gshmemi_dev_small_t;

GSHMEMI_DEV gshmemi_dev_small_t gshmemi_dev_small_none(void)
{
    gshmemi_dev_small_t v;
    v.nw = 0;
    return v;
}

GSHMEMI_DEV gshmemi_dev_small_t gshmemi_dev_small_load(const void *dest, const void *source,
                                                       size_t n)
{
    gshmemi_dev_small_t v;
    v.nw = 0;
    if (n - 1 >= 8 * GSHMEMI_DEV_SMALL_WORDS ||
        (((unsigned)(uintptr_t)dest | (unsigned)(uintptr_t)source | (unsigned)n) & 7u) != 0)
        return v;
    const uint64_t *s = (const uint64_t *)source;
    v.nw = (unsigned)n >> 3;
#pragma unroll
    for (unsigned i = 0; i < GSHMEMI_DEV_SMALL_WORDS; i++)
        if (i < v.nw)
            v.w[i] = s[i];
    return v;
}

/* Stores a small put's words at d, its peer address (which shares dest's
 * alignment: gshmemi_dev_state_t.peer_delta). */
GSHMEMI_DEV void gshmemi_dev_small_store(char *d, const gshmemi_dev_small_t &v)
{
    uint64_t *w = (uint64_t *)d;
#pragma unroll
    for (unsigned i = 0; i < GSHMEMI_DEV_SMALL_WORDS; i++)
        if (i < v.nw)
            w[i] = v.w[i];
}

/* ---- one element as a word ------------------------------------------------------ */

/* The bits of a T of 1, 2, 4 or 8 bytes in the low bytes of a word, and
 * back (little-endian; any T: integers, float, __half ...). */
template <typename T> GSHMEMI_DEV uint64_t gshmemi_dev_bits(T v)
{
    uint64_t b = 0;
    __builtin_memcpy(&b, &v, sizeof(T));
    return b;
}
template <typename T> GSHMEMI_DEV T gshmemi_dev_from_bits(uint64_t b)
{
    T v;
    __builtin_memcpy(&v, &b, sizeof(T));
    return v;
}

/* A single volatile access of a T of 1, 2, 4 or 8 bytes, as the unsigned
 * word of its size (a class such as __half has no volatile copy). */
template <typename T> GSHMEMI_DEV T gshmemi_dev_ld_volatile(const T *p)
{
    uint64_t b = sizeof(T) == 8   ? *(const volatile uint64_t *)p
                 : sizeof(T) == 4 ? *(const volatile uint32_t *)p
                 : sizeof(T) == 2 ? *(const volatile uint16_t *)p
                                  : *(const volatile uint8_t *)p;
    return gshmemi_dev_from_bits<T>(b);
}
template <typename T> GSHMEMI_DEV void gshmemi_dev_st_volatile(T *p, T v)
{
    uint64_t b = gshmemi_dev_bits(v);
    if (sizeof(T) == 8)
        *(volatile uint64_t *)p = b;
    else if (sizeof(T) == 4)
        *(volatile uint32_t *)p = (uint32_t)b;
    else if (sizeof(T) == 2)
        *(volatile uint16_t *)p = (uint16_t)b;
    else
        *(volatile uint8_t *)p = (uint8_t)b;
}

/* gshmemi_dev_exch_u32/_u64 (relaxed, system scope): impl/gshmem_dev_port.h */

/* Spin-wait helper: a few hundred plain polls, then growing sleeps. */
GSHMEMI_DEV void gshmemi_dev_pause(uint32_t *spins, uint32_t *backoff)
{
    if (*spins < 256)
        (*spins)++;
    else
        gshmemi_backoff(backoff);
}

#endif /* GSHMEMI_DEV_PASS */

#include "gshmem_dev_queue.h"

#endif /* GSHMEMI_DEV_COMMON_H */

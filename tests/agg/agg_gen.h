/* agg_gen.h: the record generator of the aggregator's multi-PE tests
 * (tests/agg/pe_agg_host.c on the host, tests/gpu/pe_agg.cu in kernels).
 * Plain C, also __host__ __device__ under nvcc.
 *
 * Producer t of PE src, round r, draws its records one by one: a target
 * PE, a length of 4..256 bytes, a gap of 0..7 bytes, and a payload seed.
 * Each (src, t) owns a stripe of `stripe` bytes in every target's region
 * (region[src][t]), filled by a bump pointer per target, so that records
 * never overlap and the final memory is well defined: a checker replays
 * every producer of every PE to build the reference. A target whose stripe
 * is full is skipped for the next; when all are full the producer stops.
 * Payload bytes are never 0 (0 = not written). */
#ifndef GSHMEM_TESTS_AGG_GEN_H
#define GSHMEM_TESTS_AGG_GEN_H

#include <stdint.h>

#if defined(__CUDACC__)
#define AGG_GEN_HD __host__ __device__ inline
#else
#define AGG_GEN_HD static inline
#endif

#define AGG_GEN_MAX_PES 8
#define AGG_GEN_MAX_LEN 256

typedef struct agg_gen {
    uint64_t rng;
    uint32_t bump[AGG_GEN_MAX_PES];
} agg_gen_t;

AGG_GEN_HD uint64_t agg_gen_mix(uint64_t x)   /* splitmix64 finalizer */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

AGG_GEN_HD void agg_gen_init(agg_gen_t *g, uint64_t seed, uint32_t round, uint32_t src,
                             uint32_t t)
{
    g->rng = agg_gen_mix(seed ^ agg_gen_mix(((uint64_t)round << 48) ^ ((uint64_t)src << 32) ^ t));
    for (int i = 0; i < AGG_GEN_MAX_PES; i++)
        g->bump[i] = 0;
}

AGG_GEN_HD uint64_t agg_gen_rand(agg_gen_t *g)
{
    g->rng += 0x9e3779b97f4a7c15ull;
    return agg_gen_mix(g->rng);
}

/* Next record: 1 with its target, offset inside the stripe, length and
 * payload seed; 0 when every stripe is full. */
AGG_GEN_HD int agg_gen_next(agg_gen_t *g, uint32_t npes, uint32_t stripe, uint32_t *pe_p,
                            uint32_t *off_p, uint32_t *len_p, uint64_t *pseed_p)
{
    uint64_t r = agg_gen_rand(g);
    uint32_t len = 4 + (uint32_t)(r % 253), gap = (uint32_t)(r >> 16) % 8;
    uint32_t pe = (uint32_t)(r >> 32) % npes;
    for (uint32_t tries = 0; tries < npes; tries++, pe = (pe + 1) % npes) {
        if (g->bump[pe] + gap + len <= stripe) {
            *pe_p = pe;
            *off_p = g->bump[pe] + gap;
            *len_p = len;
            *pseed_p = agg_gen_rand(g);
            g->bump[pe] += gap + len;
            return 1;
        }
    }
    return 0;
}

AGG_GEN_HD uint8_t agg_gen_byte(uint64_t pseed, uint32_t b)
{
    /* one mix per 8 bytes: the checkers replay millions of records */
    return (uint8_t)((agg_gen_mix(pseed + b / 8) >> (8 * (b % 8))) | 1u);
}

/* The whole payload: agg_gen_byte(pseed, b) for b < len. */
AGG_GEN_HD void agg_gen_fill(uint8_t *d, uint64_t pseed, uint32_t len)
{
    for (uint32_t w = 0; w * 8 < len; w++) {
        uint64_t x = agg_gen_mix(pseed + w);
        for (uint32_t b = w * 8; b < len && b < w * 8 + 8; b++, x >>= 8)
            d[b] = (uint8_t)(x | 1u);
    }
}

#endif

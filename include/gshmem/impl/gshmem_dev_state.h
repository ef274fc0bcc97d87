/* gshmem_dev_state.h: the state the device API reads, and how the library
 * hands it to each user translation unit. Plain C (the library side is C);
 * included by gshmem_device.h and by src/api/core/device_state.c.
 *
 * Without -rdc every .cu file is its own device module, so there is no one
 * device symbol the library could fill. Instead gshmem_device.h defines, in
 * each translation unit that includes it,
 *     static __constant__ gshmemi_dev_state_t gshmemi_dstate;
 * plus a static host function that copies a host struct into it with
 * cudaMemcpyToSymbol (through the cudart instance that TU links, so a
 * program with a static cudart works too), and a static object whose
 * initializer (run at load, after nvcc's module registration) registers
 * that function here. The library calls every registered
 * function when init publishes the state (and at once for a TU registered
 * after init, e.g. a dlopen'ed module). Finalize publishes a zeroed state.
 */
#ifndef GSHMEMI_DEV_STATE_H
#define GSHMEMI_DEV_STATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump on any change of gshmemi_dev_state_t's layout or meaning (2: the
 * device teams, team_area; 3: the inline peer table; 4: that table holds
 * this PE and marks unmapped PEs itself, no mask). */
#define GSHMEMI_DEV_STATE_ABI 4u

/* PEs whose heap offsets the state holds itself (peer_delta): their
 * address lookup is one constant-cache load, where the peer_base table is
 * a global load that a system fence sends back to L2 (0.13 us a put,
 * docs/results/device-perf-2026-11-26). */
#define GSHMEMI_DEV_PEER_INLINE 16
/* peer_delta of a PE not reachable by load/store (and of pe >= n_pes) */
#define GSHMEMI_DEV_PEER_NONE INT64_MIN

/* Bytes the runtime reserves in the symmetric heap for the device
 * barriers (same offset on every PE; zeroed before the init barrier).
 * Layout: one counter per 128-byte line, see gshmemi_dev_sync_word. */
#define GSHMEMI_DEV_SYNC_BYTES 1024u
enum gshmemi_dev_sync_word {
    GSHMEMI_DEV_SYNC_GRID_ARRIVE = 0,  /* peers add 1 per device sync_all */
    GSHMEMI_DEV_SYNC_GRID_EPOCH = 1,   /* local: arrivals expected so far */
    GSHMEMI_DEV_SYNC_GRID_COUNT = 2,   /* local: blocks arrived this round */
    GSHMEMI_DEV_SYNC_GRID_GEN = 3,     /* local: release generation */
    GSHMEMI_DEV_SYNC_BLOCK_ARRIVE = 4, /* peers add 1 per block-level barrier */
    GSHMEMI_DEV_SYNC_BLOCK_EPOCH = 5,  /* local: arrivals expected so far */
    GSHMEMI_DEV_SYNC_N_WORDS = 6
};
#define GSHMEMI_DEV_SYNC_STRIDE 128u   /* bytes between two counters */

/* ---- device teams (impl/gshmem_dev_team.h) ------------------------------
 * The host's teams as the device sees them: one descriptor per team slot
 * (a team handle is its slot, GSHMEM_TEAM_MAX of them), rewritten by the
 * library whenever a team is created or destroyed on this PE. Team PE i is
 * world PE start + i * stride. size 0: no live team in the slot. stride 0
 * (size > 1): a live team whose PEs are not evenly spaced in WORLD (SHARED
 * or NODE with an irregular placement, and their splits): the device API
 * refuses it. */
typedef struct gshmemi_dev_team {
    int32_t start;    /* world PE of team PE 0 */
    int32_t stride;   /* world PEs between two team PEs (>= 1; 0: not evenly spaced) */
    int32_t size;     /* team PEs; 0: not a live team on this PE */
    int32_t my_idx;   /* this PE's team PE number */
} gshmemi_dev_team_t;

#define GSHMEMI_DEV_TEAM_SLOTS 64u        /* = GSHMEM_TEAM_MAX (gshmem.h) */
#define GSHMEMI_DEV_TEAM_CHUNK 8192u      /* bytes a reduction combines per round */
/* The team area, reserved in the heap right after the barrier area (same
 * offset on every PE), zeroed at init: the descriptors, then per slot
 *   +0    arrive    peers add 1 per team barrier (own 128-byte line)
 *   +128  expected  local: arrivals expected so far (own line)
 *   +256  acc       CHUNK bytes: a reduction's partial results (local)
 *   +256 + CHUNK    in: CHUNK bytes, a member's source fetched by the
 *                   queue path (local) */
#define GSHMEMI_DEV_TEAM_TABLE_BYTES (GSHMEMI_DEV_TEAM_SLOTS * 16u)
#define GSHMEMI_DEV_TEAM_ACC_OFF (2u * GSHMEMI_DEV_SYNC_STRIDE)
#define GSHMEMI_DEV_TEAM_IN_OFF (GSHMEMI_DEV_TEAM_ACC_OFF + GSHMEMI_DEV_TEAM_CHUNK)
#define GSHMEMI_DEV_TEAM_SLOT_BYTES (GSHMEMI_DEV_TEAM_IN_OFF + GSHMEMI_DEV_TEAM_CHUNK)
#define GSHMEMI_DEV_TEAM_AREA_BYTES                                                \
    (GSHMEMI_DEV_TEAM_TABLE_BYTES + GSHMEMI_DEV_TEAM_SLOTS * GSHMEMI_DEV_TEAM_SLOT_BYTES)

/* flags. Error checks are on when the flag is clear, so a zeroed
 * (unpublished) state is checked, and its n_pes of 0 makes every call
 * report "device state not published" instead of touching memory. */
#define GSHMEMI_DEV_F_NO_CHECKS (1u << 0)

typedef struct gshmemi_dev_state {
    uint32_t abi;             /* GSHMEMI_DEV_STATE_ABI */
    uint32_t size;            /* sizeof(gshmemi_dev_state_t) */
    int32_t my_pe;
    int32_t n_pes;            /* 0: not published (no init, or no CUDA heap) */
    uint32_t flags;           /* GSHMEMI_DEV_F_* */
    int32_t cuda_device;      /* the GPU of the heap (each TU's callback sets it) */
    char *heap_base;          /* this PE's heap, device address */
    uint64_t heap_size;
    /* device array [n_pes] of peers' heap bases mapped here (p2p
     * transport), NULL entries for PEs not reachable by load/store; the
     * pointer itself is NULL when no peer is reachable. */
    void *const *peer_base;
    char *sync_base;          /* GSHMEMI_DEV_SYNC_BYTES in the local heap */
    uint64_t sync_off;        /* its heap offset (the same on every PE) */
    void *channels;           /* queue path: a gshmemi_queue_t * (first member gshmemi_channels_t); NULL without an engine */
    /* GSHMEMI_DEV_TEAM_AREA_BYTES in the local heap, right after the
     * barrier area (its table: gshmemi_dev_team_t[GSHMEMI_DEV_TEAM_SLOTS]);
     * NULL when not published */
    char *team_area;
    uint64_t reserved[3];     /* zero */
    /* peer_base[pe] - heap_base for pe < GSHMEMI_DEV_PEER_INLINE: 0 for
     * this PE, GSHMEMI_DEV_PEER_NONE for one not mapped. Every mapped
     * PE's offset (inline or in peer_base) is a multiple of 16 (the
     * library checks it at init): a copy takes its word width from the
     * untranslated addresses. */
    int64_t peer_delta[GSHMEMI_DEV_PEER_INLINE];
} gshmemi_dev_state_t;

/* Copies *s into one TU's __constant__ state; returns 0 or a cudaError_t. */
typedef int (*gshmemi_dev_state_sync_fn)(const gshmemi_dev_state_t *s);

/* Library side (src/api/core/device_state.c); register and unregister are
 * called by every device TU's static object (gshmem_dev_common.h), so they
 * carry an exported prefix. register: records fn and, when
 * a state is published, calls it at once (its error is logged). Returns 0
 * or a negative gshmem_status_t. unregister: forgets fn (TU unloaded). */
int gshmemx_device_state_register(gshmemi_dev_state_sync_fn fn);
void gshmemx_device_state_unregister(gshmemi_dev_state_sync_fn fn);
/* Keeps a copy of *s and calls every registered fn with it. Returns 0, or
 * GSHMEM_ERR_NO_DEVICE when a copy failed (logged with the CUDA error). */
int gshmemi_device_state_publish(const gshmemi_dev_state_t *s);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEMI_DEV_STATE_H */

/* coll_alg.h: what the host collectives' algorithms share (coll.c,
 * coll_bcast.c, reduce.c, coll_aset.c): the threshold table, each team
 * slot's collective state (signal words and push scratch, coll_scratch.c)
 * and the signal, wait and push steps built on them. docs/DESIGN.md,
 * "Collectives on any team", says why the algorithms are what they are. */
#ifndef GSHMEMI_COLL_ALG_H
#define GSHMEMI_COLL_ALG_H

#include <stddef.h>
#include <stdint.h>
#include "core.h"

/* ---- thresholds -------------------------------------------------------------- */

/* Every size that picks an algorithm (bytes, "up to" inclusive), the same
 * on every PE: a choice depends only on them, the call's sizes and the
 * team's size. [GSHMEMI_COLL_CLASSES]: by the team's size class (2 PEs, 3
 * or 4, more: gshmemi_coll_class). */
#define GSHMEMI_COLL_CLASSES 3
typedef struct gshmemi_coll_tune {
    size_t bcast_small_max;   /* broadcast: a tree of radix bcast_small_radix up to
                               * this (a radix of at least the team's size: the
                               * root puts to every member itself) */
    int bcast_small_radix;
    size_t bcast_tree_max[GSHMEMI_COLL_CLASSES];   /* then a tree of radix
                               * bcast_tree_radix up to this; above, scatter +
                               * allgather */
    int bcast_tree_radix;
    size_t reduce_push_max[GSHMEMI_COLL_CLASSES];   /* reductions: one-round push
                               * into the scratch up to this (and the room);
                               * above, reduce-scatter + allgather */
    size_t push_slot_max;     /* the push scratch's room per sender */
    size_t push_total_max;    /* the push scratch of all slots together, at most */
} gshmemi_coll_tune_t;

extern const gshmemi_coll_tune_t gshmemi_coll_tune;

/* The size class of a team of n > 1 PEs. */
static inline int gshmemi_coll_class(int n)
{
    return n <= 2 ? 0 : n <= 4 ? 1 : 2;
}

/* ---- per-slot state ------------------------------------------------------------ */

/* The collective state of one team slot on this PE (GSHMEM_TEAM_MAX of
 * them, and one shared by every active set). Symmetric: sig[pe] counts
 * the signals world PE pe sent here (it alone adds to it; the word only
 * grows); push holds, per parity and sender world PE, one push of up to
 * push_room bytes. Host memory: seen[pe], the signals of pe this PE has
 * waited for; pushed[pe] / pulled[pe], the pushes sent to / taken from pe
 * (their parities); buf, this slot's private buffer. */
typedef struct gshmemi_coll_state {
    uint64_t *sig;
    unsigned char *push;
    uint64_t *seen, *pushed, *pulled;
    void *buf;
    size_t buf_cap;
} gshmemi_coll_state_t;

/* One collective call: its team, its slot's state, the caller's name. */
typedef struct gshmemi_coll {
    const char *call;
    gshmemi_team_t *t;
    gshmemi_coll_state_t *st;
} gshmemi_coll_t;

/* Reserve and zero every slot's symmetric state (at init, right after the
 * team area, before anything else is allocated: the same offset on every
 * PE); give it back (finalize; safe after a failed or no setup). */
int gshmemi_coll_setup(gshmemi_state_t *g);
void gshmemi_coll_teardown(gshmemi_state_t *g);

/* *c for a call on team t: its slot's state (a slot team: the slot of its
 * handle; an active set: the one the active sets share). */
void gshmemi_coll_begin(const char *call, gshmemi_team_t *t, gshmemi_coll_t *c);

/* Bytes one push may carry (0: no push scratch, a small heap). */
size_t gshmemi_coll_push_room(void);

/* The slot's private buffer of at least n bytes (kept for the next call). */
void *gshmemi_coll_buf(gshmemi_coll_t *c, size_t n);

/* ---- steps --------------------------------------------------------------------- */

/* Signal team PE j: its word for this PE grows by 1, for data this PE
 * completed (a quiet) before. signal_others: a quiet, then every other
 * member. */
void gshmemi_coll_signal(gshmemi_coll_t *c, int j);
void gshmemi_coll_signal_others(gshmemi_coll_t *c);
/* Put n bytes of src at dest on team PE j and signal it, the signal seen
 * only once the data is (self: a local copy, no signal): one write where
 * the transport carries the count in it (put_count), else the put, its
 * completion, the signal. Non-blocking: src stays valid until a quiet.
 * _others: to every other member. */
void gshmemi_coll_put_signal(gshmemi_coll_t *c, void *dest, const void *src, size_t n, int j);
void gshmemi_coll_put_signal_others(gshmemi_coll_t *c, void *dest, const void *src, size_t n);
/* _each: n bytes to every other member, where at(c, arg, j, &dest, &src)
 * says (dest NULL: none to j; at may be asked twice per member and must
 * answer the same); on a GPU heap (and where the data takes another transport than
 * the signals) every put first, one quiet, then the signals. */
typedef void gshmemi_coll_at_fn(gshmemi_coll_t *c, void *arg, int j, void **dest,
                                const void **src);
void gshmemi_coll_put_signal_each(gshmemi_coll_t *c, gshmemi_coll_at_fn *at, void *arg,
                                  size_t n);
/* Wait for k more signals from team PE j than this PE has waited for.
 * wait_others: one more from every other member. */
void gshmemi_coll_wait(gshmemi_coll_t *c, int j, uint64_t k);
void gshmemi_coll_wait_others(gshmemi_coll_t *c);
/* push_all: n (<= gshmemi_coll_push_room()) bytes of src into every
 * other member's scratch, a signal to each. push_take: member j's push
 * here, once it has come, as host memory (in place on a host heap, else
 * copied into the caller's out[n]), valid until this member's next
 * push_all. Every member takes every other member's push, in any order,
 * before its next push_all (two buffers: coll_scratch.c). */
void gshmemi_coll_push_all(gshmemi_coll_t *c, const void *src, size_t n);
/* One member's part of a push round in which every member pushes to every
 * other member once (each its own bytes): n bytes of src to team PE j. */
void gshmemi_coll_push_to(gshmemi_coll_t *c, int j, const void *src, size_t n);
/* 1 on a host heap with a member this PE cannot load from (a network
 * transport: ofi); the same on every member, as the transports' reach is. */
int gshmemi_coll_over_network(gshmemi_coll_t *c);
const void *gshmemi_coll_push_take(gshmemi_coll_t *c, int j, size_t n, void *out);

/* Where the host may read team PE j's copy of the symmetric object sym
 * (this PE's address of it) in place: a host heap mapped here (shm, or
 * this PE's own); else NULL. */
const void *gshmemi_coll_peer_ptr(gshmemi_coll_t *c, int j, const void *sym);

/* Part i of m of total items in runs of whole units (the last may be
 * short): [*lo_p, *lo_p + *len_p), near-equal, in order. */
void gshmemi_coll_split(size_t total, size_t unit, int m, int i, size_t *lo_p, size_t *len_p);

#endif /* GSHMEMI_COLL_ALG_H */

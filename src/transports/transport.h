/* transport.h: one ops table for every transport (host control path).
 * Remote addresses are offsets into the target PE's symmetric heap; local
 * buffers are plain pointers (inside the local heap, a registered region,
 * or any host memory: a transport that needs registered local memory
 * bounces through its own buffers). A missing operation is a stub that
 * returns GSHMEM_ERR_NOT_SUPPORTED, never a NULL slot. */
#ifndef GSHMEMI_TRANSPORT_H
#define GSHMEMI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "base/bootstrap/bootstrap.h"
#include "base/heap/heap.h"
#include "base/util/config.h"
#include "gshmem/impl/gshmem_amo_op.h"   /* gshmemi_amo_op_t, gshmemi_dtype_t */


/* What a transport sees of the runtime at init. */
typedef struct gshmemi_tp_env {
    const gshmemi_config_t *cfg;
    gshmemi_bootstrap_t *boot;     /* collective exchange */
    gshmemi_heap_t *heap;          /* the local heap, already created */
    const int *node_of;            /* node index of each PE */
    int my_pe, n_pes;
    int n_machine;                 /* PEs sharing this machine's cores; 0: this node's */
} gshmemi_tp_env_t;

typedef struct gshmemi_transport gshmemi_transport_t;

typedef struct gshmemi_transport_ops {
    size_t size;                                   /* sizeof(gshmemi_transport_ops_t) */
    const char *name;                              /* "shm", "ofi", "p2p" */
    /* Collective over all PEs (every PE calls it, even one that reaches no
     * peer). Sets tp->reach[pe] for the PEs it can serve. */
    int (*init)(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env);
    /* Collective; completes everything outstanding first. */
    int (*finalize)(gshmemi_transport_t *tp);
    /* Not collective: the process exits without finalize (src/api/core/
     * exit.c, before the CUDA runtime's own exit handler). Stops the
     * transport's threads, joining them by deadline_ns (gshmemi_now_ns's
     * clock), and makes its waits return GSHMEM_ERR_NOT_INITIALIZED at once
     * from then on (the engine, told to leave first, may still be in one,
     * or call another op before it leaves). Frees nothing, tells no peer.
     * Returns the number of threads joined, or GSHMEM_ERR_TIMEOUT (logged
     * at WARN) when one still runs at the deadline. Stub
     * gshmemi_tp_no_threads: 0. */
    int (*exit_threads)(gshmemi_transport_t *tp, uint64_t deadline_ns);
    /* Blocking unless nbi: returns when src may be reused (put) or the
     * data is in dst (get). nbi: completes at quiet. */
    int (*put)(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
               size_t n, int nbi);
    int (*get)(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off,
               size_t n, int nbi);
    /* Non-blocking put of 1..64 bytes (GSHMEMI_QPAYLOAD) from HOST memory
     * (valid until the next quiet, as for nbi puts); completes at quiet. For
     * the engine's inline data and payloads: a transport may batch these
     * (p2p does up to 8 bytes: no CUDA call per put).
     * Stub: put with nbi (gshmemi_tp_put_value_by_put). */
    int (*put_value)(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                     size_t n);
    /* Atomic on dt at pe's heap offset off. operand/compare/result point to
     * one dt value each (result NULL for non-fetching ops). Blocking. */
    int (*amo)(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
               uint64_t off, const void *operand, const void *compare, void *result);
    /* Non-blocking non-fetching atomic (signals): ordered after all earlier
     * puts to the same pe when after_fence is set; completes at quiet. */
    int (*amo_nbi)(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op,
                   gshmemi_dtype_t dt, uint64_t off, const void *operand, int after_fence);
    /* Non-blocking write of value to the 8-byte-aligned word at pe's heap
     * offset off, for a peer that polls that word (the barriers' round
     * flags: one writer per word, values that only grow, so a peer that
     * sees the bytes land in any order still decides right). No order with
     * other operations and no remote completion: quiet completes it at this
     * PE only (it is on its way), and the peer sees it when it lands; a
     * transport that batches small writes (p2p) sends it at the next
     * progress or quiet, so a caller that will not wait calls progress.
     * Stub gshmemi_tp_flag_set_by_amo: amo_nbi SET on uint64. */
    int (*flag_set)(gshmemi_transport_t *tp, int pe, uint64_t off, uint64_t value);
    /* Non-blocking put of n bytes (0 allowed) from src to pe's heap offset
     * dst_off, then 1 added to the uint64 at pe's heap offset sig_off,
     * seen there only once the data is. quiet completes it at this PE
     * (src reusable, the write on its way) and may not wait for the
     * target: the count is what tells the target. For counter words that
     * no AMO touches and only this PE adds to (the collectives' signals):
     * the target may apply the add itself, so every add to such a word
     * must come through put_count of one transport.
     * Stub gshmemi_tp_put_count_by_amo: put with nbi, then amo_nbi ADD
     * after a fence. */
    int (*put_count)(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                     size_t n, uint64_t sig_off);
    /* Order earlier puts/AMOs before later ones, per target PE. */
    int (*fence)(gshmemi_transport_t *tp);
    /* Complete and make visible everything this PE issued. */
    int (*quiet)(gshmemi_transport_t *tp);
    /* Optional (NULL, or GSHMEM_ERR_NOT_SUPPORTED from mark: use quiet): a
     * quiet that does not wait. mark names everything issued so far; test
     * drives progress once and returns 1 once all of it is complete and
     * visible (as quiet would have made it), 0 before, < 0 on failure.
     * Marks complete in the order they were made. */
    int (*quiet_mark)(gshmemi_transport_t *tp, uint64_t *mark_p);
    int (*quiet_test)(gshmemi_transport_t *tp, uint64_t mark);
    /* Channels (communication contexts). chan_open gives a channel with its
     * own completion and ordering. An instance of tp on it is a copy of tp
     * whose chan is the channel: put, get, put_value, amo, amo_nbi, fence
     * and quiet through the instance issue on the channel, the instance's
     * quiet completes (its fence orders) what was issued on it only, and
     * the transport's own quiet and fence (chan NULL) what was issued
     * without a channel only. finalize and mem_unregister complete
     * everything. Stub gshmemi_tp_chan_shared: *chan_p = NULL, the
     * instance shares the transport's one channel (for a transport whose
     * operations complete at return, or whose quiet completes everything:
     * correct, not isolated). chan_close frees a channel whose operations
     * the caller completed (a quiet of its instance) first. */
    int (*chan_open)(gshmemi_transport_t *tp, void **chan_p);
    int (*chan_close)(gshmemi_transport_t *tp, void *chan);
    /* Local load/store address of pe's heap offset off, or NULL. */
    void *(*ptr)(gshmemi_transport_t *tp, int pe, uint64_t off);
    /* Drive progress once (called from wait loops); may be a no-op. */
    int (*progress)(gshmemi_transport_t *tp);
    /* Local memory registration for gshmem_register (may be a no-op). */
    int (*mem_register)(gshmemi_transport_t *tp, void *addr, size_t len);
    int (*mem_unregister)(gshmemi_transport_t *tp, void *addr);
    /* Not an instance op (called before any transport starts, before the
     * heap): a transport that reaches PEs on devices picks this PE's device
     * and makes it current (node_of[n_pes]: node index of each PE). Stub:
     * GSHMEM_ERR_NOT_SUPPORTED (gshmemi_tp_no_select_device). */
    int (*select_device)(const int *node_of, int my_pe, int n_pes, int *device_p);
    /* The device-memory table [n_pes] of peer heap bases for the device
     * API's load/store path (NULL where tp does not reach the PE), valid
     * from init to finalize; NULL when tp has none (stub
     * gshmemi_tp_no_peer_bases_device). */
    void *const *(*peer_bases_device)(gshmemi_transport_t *tp);
    /* Not an instance op (no init, no job needed), for gshmem-info: the
     * library the transport runs on and its version at run time (ofi:
     * "libfabric 1.17"), and a comma list of what it finds on this machine
     * (ofi: the providers libfabric offers). Stub gshmemi_tp_no_describe:
     * both "". */
    void (*describe)(char *version, size_t vlen, char *found, size_t flen);
} gshmemi_transport_ops_t;

struct gshmemi_transport {
    const gshmemi_transport_ops_t *ops;
    unsigned char *reach;      /* [n_pes]: 1 where this transport serves pe */
    int hw_atomics;            /* 1: AMOs are CPU atomics on mapped memory */
    void *priv;
    void *chan;                /* the channel it issues on: NULL for the transport
                                * itself, chan_open's for an instance (a copy) */
    char detail[96];           /* what GSHMEM_INFO adds to its name (ofi: provider
                                * and NIC), set by init; "" for none */
};

/* Registered transports, by name; NULL when not built in. */
const gshmemi_transport_ops_t *gshmemi_transport_lookup(const char *name);
/* The name of built-in transport i (0, 1, ...), NULL past the last. */
const char *gshmemi_transport_name(size_t i);

/* Asks every built-in transport's select_device in turn; the first that
 * supports it decides. When none does (a build without CUDA), *device_p =
 * -1 and GSHMEM_SUCCESS: creating the heap then reports the cause. */
int gshmemi_transport_select_device(const int *node_of, int my_pe, int n_pes, int *device_p);

/* The transport that carries AMOs to pe: amo_tp when the runtime routes
 * every AMO through one transport (src/api/core/select.c says when), else
 * pe's own transport. */
static inline gshmemi_transport_t *gshmemi_transport_amo(gshmemi_transport_t *amo_tp,
                                                         gshmemi_transport_t *const *pe_tp,
                                                         int pe)
{
    return amo_tp != NULL ? amo_tp : pe_tp[pe];
}

/* Stubs for the optional entries. */
int gshmemi_tp_put_value_by_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off,
                                const void *src, size_t n);
int gshmemi_tp_flag_set_by_amo(gshmemi_transport_t *tp, int pe, uint64_t off, uint64_t value);
int gshmemi_tp_put_count_by_amo(gshmemi_transport_t *tp, int pe, uint64_t dst_off,
                                const void *src, size_t n, uint64_t sig_off);
int gshmemi_tp_no_select_device(const int *node_of, int my_pe, int n_pes, int *device_p);
int gshmemi_tp_no_threads(gshmemi_transport_t *tp, uint64_t deadline_ns);
int gshmemi_tp_chan_shared(gshmemi_transport_t *tp, void **chan_p);
int gshmemi_tp_chan_close_shared(gshmemi_transport_t *tp, void *chan);
void *const *gshmemi_tp_no_peer_bases_device(gshmemi_transport_t *tp);
void gshmemi_tp_no_describe(char *version, size_t vlen, char *found, size_t flen);

extern const gshmemi_transport_ops_t gshmemi_shm_ops;
extern const gshmemi_transport_ops_t gshmemi_ofi_ops;

#endif /* GSHMEMI_TRANSPORT_H */

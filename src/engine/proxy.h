/* proxy.h: the proxy engine (the "software NIC") that executes the device
 * API's queue-path entries through the host transports, and the validation
 * of those entries. The wire protocol: include/gshmem/impl/gshmem_dev_queue.h and docs/DESIGN.md, "The queue protocol".
 *
 * Life cycle (src/api/core/init.c): gshmemi_proxy_start after the transports
 * and before the device state is published (it provides the channels);
 * gshmemi_proxy_stop at finalize before the final barrier (it drains every
 * ring first, so entries posted by kernels that ended before finalize are
 * executed and complete before any PE leaves) and on init's unwinding;
 * gshmemi_proxy_exit_begin / _wait when the process exits without
 * finalize (no drain). */
#ifndef GSHMEMI_PROXY_H
#define GSHMEMI_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem.h"
#include "base/util/log.h"
#include "base/heap/heap.h"
#include "transports/transport.h"
#include "gshmem/impl/gshmem_dev_queue.h"

/* What the engine sees of the runtime (the api layer fills it: see
 * gshmemi_proxy_env_of in src/api/core/init.c). The engine copies it at
 * start; the pointed-to tables must live until gshmemi_proxy_stop. */
typedef struct gshmemi_proxy_env {
    int my_pe, n_pes;
    int device_queue_only;                /* GSHMEM_DEVICE_QUEUE_ONLY */
    const gshmemi_heap_t *heap;           /* the local symmetric heap */
    gshmemi_transport_t *tps;             /* [n_tps]: the transports in use */
    int n_tps;
    gshmemi_transport_t *const *pe_tp;    /* [n_pes]: transport serving each PE */
    gshmemi_transport_t *amo_tp;          /* NULL: AMOs go through pe_tp */
    gshmemi_reg_t *const *regs;           /* gshmem_register's list (read at use) */
    long idle_spin_us, idle_nap_us;       /* GSHMEM_IDLE_SPIN_US, _NAP_US (base/util/idle.h) */
} gshmemi_proxy_env_t;

/* Not collective. With a CUDA heap, when some PE has no load/store mapping
 * here or GSHMEM_DEVICE_QUEUE_ONLY=1: allocates the channels (ring slots,
 * counters and result slots in pinned mapped memory, heads and producer
 * caches in device memory) and starts the engine thread, pinned near the
 * GPU. Otherwise does nothing. Returns 0 or a logged error. */
int gshmemi_proxy_start(const gshmemi_proxy_env_t *env);

/* TESTING: an engine over host-memory channels, whatever the heap and the
 * settings, for host threads acting as producers (tests/multipe). */
int gshmemi_proxy_start_host(const gshmemi_proxy_env_t *env);

/* Drains every ring (executes and completes everything posted so far),
 * stops the thread, frees the channels. No-op when no engine runs. */
void gshmemi_proxy_stop(void);

/* The process exits without finalize (src/api/core/exit.c). begin: the
 * engine thread leaves after the entry it is on, without draining (a
 * kernel may still be posting, a peer may be gone), and from then on its
 * failures are logged at DEBUG only (the transports' exit_threads makes
 * their waits fail on purpose). wait: joins it by deadline_ns
 * (gshmemi_now_ns's clock); 1 when joined, 0 when no engine thread runs
 * (or the caller is it), GSHMEM_ERR_TIMEOUT (logged at WARN). Frees
 * nothing: kernels may still use the rings; gshmemi_proxy_stop after it
 * frees without joining again. */
void gshmemi_proxy_exit_begin(void);
int gshmemi_proxy_exit_wait(uint64_t deadline_ns);

/* The queue descriptor the producers use (device memory for a CUDA
 * engine, host memory for a host one); NULL when no engine runs. */
gshmemi_queue_t *gshmemi_proxy_queue(void);

/* Host producers (tests, benchmarks: the device producer's side of the
 * protocol, on the host). take: the value fetched by complete entry idx of
 * channel ch; frees its result slot. quiet: waits until every ring's
 * entries up to its head are complete; 0 or the engine's error. */
uint64_t gshmemi_proxy_host_take(const gshmemi_queue_t *q, uint32_t ch, uint64_t idx);
int gshmemi_proxy_host_quiet(const gshmemi_queue_t *q, uint32_t *ch_p);

typedef struct gshmemi_proxy_stats {
    uint64_t entries;       /* entries taken from the rings */
    uint64_t quiets;        /* transport quiets issued */
    uint64_t marks;         /* quiets begun without waiting (quiet_mark) */
    uint64_t fences;        /* transport fences issued */
    uint64_t idle_sleeps;   /* naps once idle past GSHMEM_IDLE_SPIN_US */
    uint64_t deferred;      /* passes a fetching entry waited for its result slot */
    uint64_t passes;        /* passes that took at least one entry */
    uint64_t busy_ns;       /* time in those passes (issuing, and quiets inside them) */
    uint64_t quiet_ns;      /* time in transport quiets (inside passes or when idle) */
    int status;             /* 0, or the error the engine stopped on */
} gshmemi_proxy_stats_t;

/* Counters of the running engine (approximate while it runs). Returns
 * GSHMEM_ERR_NOT_INITIALIZED when none runs. */
int gshmemi_proxy_get_stats(gshmemi_proxy_stats_t *stats_p);

/* ---- validation (plain C, no state: validate.c) ---------------------------- */

typedef struct gshmemi_proxy_bounds {
    int n_pes;
    const void *heap_base;    /* local heap; remote heaps have the same size */
    uint64_t heap_size;       /* gshmemi_heap_t.size: the symmetric window (the heap,
                               * then a host heap's data segments) */
    /* 1 when [p, p+n) is registered local memory (gshmem_register); NULL: none */
    int (*local_ok)(void *ctx, const void *p, size_t n);
    void *ctx;
} gshmemi_proxy_bounds_t;

/* Checks one entry (w, plus its continuation ext when gshmemi_qwqe_slots(w)
 * is 2; ext may be NULL otherwise): op and flags known, PE in range, remote
 * range inside the heap (and aligned for AMOs and signals), local range in
 * the local heap or registered. Returns 0, or GSHMEM_ERR_INVALID_ARG /
 * GSHMEM_ERR_INVALID_PE / GSHMEM_ERR_OUT_OF_HEAP with the reason in why
 * (cap bytes, may be 0). Logs nothing (the engine logs with the channel). */
int gshmemi_proxy_validate(const gshmemi_proxy_bounds_t *b, const gshmemi_wqe_t *w,
                           const gshmemi_wqe_t *ext, char *why, size_t cap);

/* The op's name for messages ("PUT", "AMO", ..., "op 77"). buf: >= 16 bytes. */
const char *gshmemi_proxy_op_name(uint32_t op, char *buf, size_t cap);

#endif /* GSHMEMI_PROXY_H */

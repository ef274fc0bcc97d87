/* ofi.h: private state of the ofi transport (libfabric RDM endpoint, one per
 * PE). Internal to src/transports/ofi; tests include it for the debug knobs.
 *
 * Completion model: every operation takes an ofi_op_t from a registered
 * arena (its fi_context2 is the provider's context, its small buffers hold
 * AMO operands and results, so they have a local descriptor), and names an
 * ofi_sync_t that is bumped when the op completes: its channel's for nbi
 * operations (quiet waits until done == posted), a stack one for blocking
 * calls. The CQ is read by the progress thread and by every wait loop;
 * each entry's op_context leads to the op, so to its channel.
 *
 * Channels (transport.h's chan): the transport's own (dchan) and one per
 * communication context (ofi_chan_open), all on the one endpoint and CQ.
 * A channel is its nbi counts, its pending fences and its written PEs, so
 * a channel's quiet waits for (and flushes) its own operations only and
 * its fence orders its own. Not per channel: the active-message path
 * (every channel issues on dchan there: a quiet completes everything). */
#ifndef GSHMEMI_OFI_H
#define GSHMEMI_OFI_H

#include <pthread.h>
#include <stdint.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transports/transport.h"
#include "transports/ofi/ofi_test_hooks.h"
#include "gshmem_types.h"
#include "base/util/log.h"
#include "base/util/idle.h"
#include "base/util/trace.h"

#define OFI_API_VERSION FI_VERSION(1, 10)
#define OFI_SUBSYS GSHMEMI_SUBSYS_TRANSPORT
#define OFI_ADDR_MAX 240          /* bytes of an endpoint name we exchange */
#define OFI_ARENA_OPS 4096        /* operations in flight at most */
#define OFI_BOUNCE_SLOTS 64
#define OFI_BOUNCE_SIZE (64u << 10)
#define OFI_RAILS_MAX 8           /* endpoints per PE of the active-message path */

typedef enum ofi_op_kind {
    OFI_OP_PUT = 0, OFI_OP_GET, OFI_OP_AMO, OFI_OP_FETCH_AMO, OFI_OP_FLUSH,
    /* active-message path (ofi_am_source.c): completions handled by ofi_am_event */
    OFI_OP_AM_SEND,       /* a request sent from a send buffer */
    OFI_OP_AM_RECV,       /* a posted receive buffer */
    OFI_OP_AM_REPLY       /* a receive buffer being sent back as a reply */
} ofi_op_kind_t;

/* Completion target of a group of operations. */
typedef struct ofi_sync {
    uint64_t posted;              /* ops issued against this sync */
    uint64_t done;                /* ops completed (atomic) */
    int err;                      /* first error (atomic), 0 if none */
    int held;                     /* test hook (chan_hold, atomic): completions parked */
    struct ofi_op *parked;        /* ops completed while held (under hold_lock) */
} ofi_sync_t;

/* A channel: what a quiet or fence of it covers. */
typedef struct ofi_chan {
    ofi_sync_t nbi;               /* its nbi ops */
    unsigned char *fence_pending; /* [n_pes] (atomic), only with has_fence */
    unsigned char *dirty;         /* [n_pes] (atomic), writes since quiet (!has_dc) */
    struct ofi_chan *next;        /* the contexts' channels (chan_lock) */
} ofi_chan_t;

typedef struct ofi_op {
    struct fi_context2 ctx;       /* first: the provider's context */
    struct ofi_op *next_free;
    ofi_sync_t *sync;
    ofi_op_kind_t kind;
    int pe;
    uint64_t off;                 /* remote heap offset (for messages) */
    size_t len;
    int bounce;                   /* bounce slot index, -1 if none */
    int rail;                     /* active messages: the endpoint it was posted on */
    void *copy_out;               /* get via bounce / fetch result: user dst */
    size_t copy_len;
    int parked_err;               /* its completion's error while parked (held) */
    uint64_t operand, compare, result;   /* registered AMO buffers */
} ofi_op_t;

/* Per remote PE: what we need to target its heap. */
typedef struct ofi_peer {
    fi_addr_t addr;
    uint64_t key;
    uint64_t base;                /* remote address of offset 0 */
} ofi_peer_t;

/* Endpoint names of the active-message path's rails 1.. (rail 0 is the
 * transport's endpoint), published at init beside the rest. */
typedef struct ofi_names {
    uint32_t n_rails;             /* 0 on the RMA path */
    uint32_t len[OFI_RAILS_MAX];
    unsigned char addr[OFI_RAILS_MAX][OFI_ADDR_MAX];
} ofi_names_t;

typedef struct ofi_reg {          /* mem_register list entry */
    struct ofi_reg *next;
    void *addr;
    size_t len;
    struct fid_mr *mr;
} ofi_reg_t;

typedef struct ofi_state {
    int my_pe, n_pes;
    gshmemi_bootstrap_t *boot;
    gshmemi_heap_t *heap;

    /* what the provider gave (ofi_info.c) */
    struct fi_info *info;
    char prov_name[64];
    int mr_local, mr_virt, mr_prov_key, mr_endpoint, mr_hmem;
    int has_dc;                   /* FI_DELIVERY_COMPLETE accepted */
    int has_fence;                /* FI_FENCE honoured */
    int has_rma_event;            /* FI_RMA_EVENT: rcntr counts RMA/atomics aimed at us */
    int has_raw;                  /* read-after-write ordered (flush path) */
    int has_waw;                  /* FI_ORDER_WAW with every write's data placed in
                                   * order (max_order_waw_size unlimited): fence and
                                   * amo_nbi after_fence need no wait */
    int has_cq_data;              /* put_count's count rides in the write as CQ data
                                   * (host heap, no FI_ORDER_WAW, 8-byte CQ data) */
    int amo_as_fetch;             /* issue set/add as fetching atomics (shm quirk) */
    int am_mode;               /* active-message path: FI_MSG active messages (ofi_am_source.c) */
    size_t max_msg, inject_size;
    int ip;                       /* an IP provider's endpoint (ofi_secure.c) */
    char bound[160];              /* where it listens, in words */
    uint64_t key_mask;            /* the bits a requested key may have (mr_key_size) */
    uint64_t msg_key;             /* active messages: this PE's key, in every message it
                                   * sends (random, published at init like an MR key) */

    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *rcntr;       /* remote reads/writes served (NULL without FI_RMA_EVENT) */
    uint64_t rcntr_seen;          /* its value at the progress thread's last look */
    int cq_fd;                    /* the CQ's wait fd (FI_WAIT_FD) where there is no
                                   * rcntr and the provider has one; else -1 */
    struct fid_ep *ep;
    struct fid_mr *heap_mr;
    void *heap_desc;
    ofi_peer_t *peers;            /* [n_pes] */

    /* op arena (registered) and bounce slots (registered) */
    ofi_op_t *arena;
    struct fid_mr *arena_mr;
    void *arena_desc;
    ofi_op_t *free_ops;
    pthread_mutex_t free_lock;
    char *bounce;
    struct fid_mr *bounce_mr;
    void *bounce_desc;
    uint64_t bounce_free;         /* bitmap of free slots (atomic) */

    ofi_reg_t *regs;
    pthread_mutex_t reg_lock;

    ofi_chan_t dchan;             /* the transport's own channel (no context) */
    ofi_chan_t *chans;            /* the contexts' channels */
    pthread_mutex_t chan_lock;    /* chans (open, close, quiet of all) */
    pthread_mutex_t hold_lock;    /* held syncs' parked lists */

    struct ofi_am *am;        /* active-message path state, NULL on the RMA path */

    unsigned char *own_reach;     /* reach array allocated here, if any */
    pthread_t thread;
    gshmemi_idle_t idle;          /* the progress thread's waits (base/util/idle.h) */
    int thread_started;
    int stop;                     /* atomic */
    uint64_t polls_elsewhere;     /* atomic: CQ polls by the PE's other threads (their
                                   * waits, quiet, posts); the progress thread steps
                                   * aside while it moves (ofi_progress.c) */
    uint64_t aside_ns;            /* how long it steps aside each time */
    int exiting;                  /* atomic: the process exits (ofi_exit_threads):
                                   * progress and waits return at once */
} ofi_state_t;

/* ofi.c: an AV (FI_AV_TABLE, one entry per PE) and an endpoint of info in
 * domain bound to it and to cq, not enabled yet (the caller may bind more
 * first); returns 0 or a libfabric error, *what_p the call that failed. */
int ofi_ep_open(ofi_state_t *s, struct fid_domain *domain, struct fi_info *info,
                struct fid_cq *cq, struct fid_av **av_p, struct fid_ep **ep_p, const char **what_p);

/* ofi_info.c */
int ofi_info_select(ofi_state_t *s, const gshmemi_tp_env_t *env);
/* The ops table's describe: libfabric's version at run time, its providers. */
void ofi_describe(char *version, size_t vlen, char *found, size_t flen);
/* ofi_secure.c: an IP endpoint's source address (loopback for a job on one
 * node), before the endpoint opens; the note on what protects it, after
 * connect. */
int ofi_bind_address(ofi_state_t *s, const gshmemi_tp_env_t *env);
/* 1 when every PE of the job is on this node (env->node_of). */
int ofi_single_node(const gshmemi_tp_env_t *env);
/* 0, or an error naming the interface variable when a job over several
 * nodes would publish a loopback address (addr: the endpoint's name). */
int ofi_check_reach(ofi_state_t *s, const gshmemi_tp_env_t *env, const void *addr,
                    size_t len);
void ofi_security_note(ofi_state_t *s, const gshmemi_tp_env_t *env);
/* 8 random bytes from the kernel (getrandom); logs what failed. */
int ofi_random_u64(uint64_t *out, const char *what);
int ofi_info_check_atomics(ofi_state_t *s);
int ofi_mr_register(ofi_state_t *s, void *addr, size_t len, uint64_t access,
                    struct fid_mr **mr_p, void **desc_p);
/* The same in another domain (ep: for FI_MR_ENDPOINT providers). */
int ofi_mr_register_in(ofi_state_t *s, struct fid_domain *domain, struct fid_ep *ep, void *addr,
                       size_t len, uint64_t access, struct fid_mr **mr_p, void **desc_p);

/* ofi_progress.c */
/* How long the progress thread steps aside while another thread polls:
 * GSHMEM_IDLE_NAP_US, or 1 ms where this node's PEs' pollers and progress
 * threads outnumber the cores this PE may run on. */
uint64_t ofi_progress_aside_ns(const gshmemi_tp_env_t *env);
int ofi_progress_start(ofi_state_t *s);
void ofi_progress_stop(ofi_state_t *s);
/* transport.h's exit_threads: sets exiting, then joins the progress thread
 * and the rails' threads by deadline_ns. */
int ofi_exit_threads(gshmemi_transport_t *tp, uint64_t deadline_ns);
/* One progress pass: completions read (ops completed), or < 0; at exit
 * (s->exiting) GSHMEM_ERR_NOT_INITIALIZED at once, touching nothing. */
int ofi_progress_once(ofi_state_t *s);
/* Read the CQ until empty, completing ops; returns entries read or < 0. */
int ofi_cq_poll(ofi_state_t *s);
/* Read up to max completions of cq without completing them: ops[i] and
 * errs[i] (0, or the failure, already logged); returns how many or < 0. */
int ofi_cq_take(ofi_state_t *s, struct fid_cq *cq, ofi_op_t **ops, int *errs, int max);
/* Nap ns (0: none), on the CQ's wait fd where there is one (fd >= 0). */
void ofi_cq_nap(ofi_state_t *s, struct fid_cq *cq, int fd, uint64_t ns);
/* Open a CQ for the progress thread: FI_WAIT_FD where the provider has one
 * and want_fd (*fd_p = the fd), else FI_WAIT_NONE (*fd_p = -1). */
int ofi_cq_open(ofi_state_t *s, struct fid_domain *domain, int want_fd, struct fid_cq **cq_p,
                int *fd_p);
/* An op is done (err 0) or failed: copy out, free it, count it in its sync. */
void ofi_op_complete(ofi_state_t *s, ofi_op_t *op, int err);
ofi_op_t *ofi_op_get(ofi_state_t *s, ofi_sync_t *sync, ofi_op_kind_t kind, int pe,
                     uint64_t off, size_t len);
void ofi_op_put(ofi_state_t *s, ofi_op_t *op);
int ofi_bounce_get(ofi_state_t *s);
char *ofi_bounce_ptr(ofi_state_t *s, int slot);
/* Wait until sync->done reaches sync->posted; returns its first error
 * (a held sync: GSHMEM_ERR_INTERNAL at once, logged). */
int ofi_sync_wait(ofi_state_t *s, ofi_sync_t *sync);
/* An op of sync completed, with fi error err (0: success): keep the
 * first error, count it done. */
void ofi_sync_complete(ofi_sync_t *sync, int err);
/* Test hook: hold (park) or release the completions of sync. */
void ofi_sync_hold(ofi_state_t *s, ofi_sync_t *sync, int hold);

/* ofi_chan.c: channels */
int ofi_chan_init(ofi_state_t *s, ofi_chan_t *ch);   /* the arrays of one */
void ofi_chan_fini(ofi_chan_t *ch);
int ofi_chan_open(gshmemi_transport_t *tp, void **chan_p);
int ofi_chan_close(gshmemi_transport_t *tp, void *chan);
/* ofi_chan_pending, ofi_chan_hold: ofi_test_hooks.h (tests only) */
/* Complete (and make visible) what was issued on ch; on every channel. */
int ofi_quiet(ofi_state_t *s, ofi_chan_t *ch);
int ofi_quiet_all(ofi_state_t *s);

/* ofi_rma.c */
/* Post one write (op->kind OFI_OP_PUT) or read of op->len bytes between
 * buf and op->pe's heap offset op->off. The op is counted in its sync
 * before posting; on failure it is uncounted, freed, and the error logged. */
int ofi_rma_post(ofi_state_t *s, ofi_op_t *op, void *buf, void *desc, uint64_t flags);
int ofi_rma_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                size_t n, int nbi);
int ofi_rma_put_value(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                      size_t n);
int ofi_rma_flag_set(gshmemi_transport_t *tp, int pe, uint64_t off, uint64_t value);
int ofi_rma_put_count(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                      size_t n, uint64_t sig_off);
int ofi_rma_get(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off, size_t n,
                int nbi);
/* Flags of the next op of ch to pe: FI_COMPLETION, FI_FENCE if one is
 * pending on ch (FI_DELIVERY_COMPLETE for writes, or pe noted written). */
uint64_t ofi_op_flags(ofi_state_t *s, ofi_chan_t *ch, int pe, int remote_write);
/* 1 and *desc_p when [p, p+n) can be used as a local buffer as is (heap,
 * registration, or a provider without FI_MR_LOCAL); 0: bounce it. */
int ofi_local_desc(ofi_state_t *s, const void *p, size_t n, void **desc_p);
/* Remote address of pe's heap offset off, per FI_MR_VIRT_ADDR. */
static inline uint64_t ofi_raddr(const ofi_peer_t *peer, int virt, uint64_t off)
{
    return virt ? peer->base + off : off;
}

/* ofi_amo.c */
int ofi_amo(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
            uint64_t off, const void *operand, const void *compare, void *result);
int ofi_amo_nbi(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                uint64_t off, const void *operand, int after_fence);

#ifdef GSHMEM_HAVE_CUDA
/* ofi_am_source.c / ofi_am_target.c: the active-message path (CUDA heap without FI_HMEM).
 * Entered from the RMA path's functions when s->am is set. */
/* Before the first fi_getinfo: provider settings the path wants (FI_OFI_RXM_*). */
void ofi_am_env(const gshmemi_config_t *cfg);
int ofi_am_setup(ofi_state_t *s, const gshmemi_config_t *cfg);
void ofi_am_close(ofi_state_t *s);    /* after the endpoint is closed */
int ofi_am_put(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n, int nbi);
int ofi_am_put_value(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n);
int ofi_am_get(ofi_state_t *s, int pe, void *dst, uint64_t off, size_t n, int nbi);
int ofi_am_amo(ofi_state_t *s, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                  uint64_t off, const void *operand, const void *compare, void *result);
int ofi_am_amo_nbi(ofi_state_t *s, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                      uint64_t off, const void *operand);
int ofi_am_quiet(ofi_state_t *s);
/* Marks every PE's next put record as fenced (applied after the earlier ones). */
void ofi_am_fence(ofi_state_t *s);
int ofi_am_quiet_mark(ofi_state_t *s, uint64_t *mark_p);
int ofi_am_quiet_test(ofi_state_t *s, uint64_t mark);
int ofi_am_progress(ofi_state_t *s);
/* Rails (ofi_am_rail.c): names to publish, peers' names into the AVs,
 * the threads of rails 1.. (started with the progress thread) */
void ofi_am_names(ofi_state_t *s, ofi_names_t *names);
int ofi_am_connect(ofi_state_t *s, int pe, const ofi_names_t *names);
int ofi_am_threads_start(ofi_state_t *s);
void ofi_am_threads_stop(ofi_state_t *s);
/* At exit (s->stop already set): joins the rails' threads by deadline_ns;
 * how many, or GSHMEM_ERR_TIMEOUT (logged) when one still runs. */
int ofi_am_threads_exit(ofi_state_t *s, uint64_t deadline_ns);
int ofi_am_source_progress(ofi_state_t *s);
void ofi_am_event(ofi_state_t *s, ofi_op_t *op, int err);
void ofi_am_thread_start(ofi_state_t *s);
/* For the progress thread after an empty pass: 1 = poll again soon (work
 * in flight or recent); *hot_p is its countdown of idle passes. */
int ofi_am_hot(ofi_state_t *s, int *hot_p);
/* Test knob: take the active-message path whatever the heap and provider (a host
 * heap then exercises the protocol without a GPU). Default 0. */
extern int gshmemi_ofi_force_am;
#endif

/* Test knob: treat every local buffer outside the heap as unregistered and
 * bounce it, as an FI_MR_LOCAL provider would (verbs). Default 0. */
extern int gshmemi_ofi_force_bounce;

static inline ofi_state_t *ofi_state(gshmemi_transport_t *tp)
{
    return (ofi_state_t *)tp->priv;
}

/* The channel an instance of the transport issues on. */
static inline ofi_chan_t *ofi_chan_of(gshmemi_transport_t *tp)
{
    return tp->chan != NULL ? (ofi_chan_t *)tp->chan : &ofi_state(tp)->dchan;
}

static inline int ofi_check_pe(ofi_state_t *s, int pe, const char *what)
{
    if (pe < 0 || pe >= s->n_pes) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi %s: PE %d out of range [0, %d)", what, pe, s->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    return 0;
}

static inline int ofi_check_range(ofi_state_t *s, uint64_t off, size_t n, const char *what,
                                  int pe)
{
    if (off > s->heap->size || n > s->heap->size - off) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi %s to PE %d: [offset %llu, +%zu) outside the %zu-byte heap",
                      what, pe, (unsigned long long)off, n, s->heap->size);
        return GSHMEM_ERR_OUT_OF_HEAP;
    }
    return 0;
}

#endif /* GSHMEMI_OFI_H */

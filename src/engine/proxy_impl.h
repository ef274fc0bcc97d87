/* proxy_impl.h: the engine's private state, shared by the files of
 * src/engine. One engine per process (one PE per process). */
#ifndef GSHMEMI_PROXY_IMPL_H
#define GSHMEMI_PROXY_IMPL_H

#include <pthread.h>
#include "proxy.h"
#include "base/util/idle.h"
#include "base/util/trace.h"

#define PROXY_SUBSYS GSHMEMI_SUBSYS_PROXY

#define GSHMEMI_PROXY_BURST 64           /* entries per ring per pass */
#define GSHMEMI_PROXY_QUIET_NBI 256      /* transport quiet after this many nbi ops */
#define GSHMEMI_PROXY_PUBLISH 32         /* ring consumer publish batch */
#define GSHMEMI_PROXY_RESULT_GRACE_NS 2000000000ull  /* stopping: a result slot never
                                                      * freed is overwritten after this */
#define GSHMEMI_PROXY_MAX_MEM 32
#define GSHMEMI_PROXY_MARKS 4            /* quiets in flight (transports with quiet_mark) */

enum { GSHMEMI_PROXY_MEM_HOST = 0, GSHMEMI_PROXY_MEM_PINNED, GSHMEMI_PROXY_MEM_DEVICE };

typedef struct gshmemi_proxy_chan {
    gshmemi_ring_consumer_t c;     /* host view of the ring */
    gshmemi_qresult_t *results;    /* host view: [capacity] */
    uint64_t *operands;            /* [capacity]: inline data and nbi operands, by slot */
    const unsigned char *payload;  /* host view: [2 * capacity][GSHMEMI_QPAYLOAD], F_PAYLOAD
                                    * puts' bytes by index modulo 2 x capacity, written
                                    * by their producers (gshmemi_devq_post_payload) */
    uint64_t executed;             /* entries [0, executed) were issued */
    /* a fetching entry taken from the ring whose result slot still holds
     * the value of the entry a lap earlier: retried on every pass, and the
     * ring is not polled past it (entries run in ring order) */
    struct {
        int has;
        uint64_t idx, since;
        gshmemi_wqe_t w, x;
    } pend;
} gshmemi_proxy_chan_t;

/* A quiet begun and not waited for (exec.c: gshmemi_proxy_quiet_begin):
 * once the transport's mark tests complete, each ring's entries before
 * executed[k] are complete. */
typedef struct gshmemi_proxy_mark {
    uint64_t token;                 /* the transport's mark */
    int tp;                         /* index in env.tps */
    uint64_t executed[GSHMEMI_QUEUE_CHANNELS];
} gshmemi_proxy_mark_t;

typedef struct gshmemi_proxy {
    gshmemi_proxy_env_t env;        /* copied at start */
    int cuda;                       /* channels in CUDA memory (else host) */
    uint32_t n_chan, capacity;
    gshmemi_proxy_chan_t chan[GSHMEMI_QUEUE_CHANNELS];
    gshmemi_queue_t *queue;         /* the producers' descriptor */
    gshmemi_proxy_bounds_t bounds;
    struct { void *p; int kind; } mem[GSHMEMI_PROXY_MAX_MEM];
    int n_mem;
    pthread_t thread;
    int started;
    int stop;                       /* set (release) by gshmemi_proxy_stop */
    int abandon;                    /* set (release) by gshmemi_proxy_exit_begin */
    int status;                     /* 0 or the error the engine stopped on */
    uint64_t nbi_out;               /* non-blocking transport ops since the last quiet */
    unsigned used;                  /* bit i: env.tps[i] has such ops in flight */
    gshmemi_proxy_mark_t marks[GSHMEMI_PROXY_MARKS];   /* oldest first */
    unsigned mark_head, mark_tail;
    gshmemi_proxy_stats_t st;
    gshmemi_idle_t idle;            /* how the thread waits when a pass finds nothing */
    int n_pend;                     /* channels with chan[k].pend.has */
    int ready;                      /* set (release) once the thread is warmed up */
    void *bounce_stream;            /* bounce.c: cudaStream_t, non-blocking */
    void *arena;                    /* bounce.c: pinned bounce arena */
    size_t arena_size, arena_used;
} gshmemi_proxy_t;

/* An error the engine decided (a transport call failed): ERROR, but DEBUG
 * once the process exits (abandon: the transports fail on purpose then,
 * and a normal exit prints no error). */
#define PROXY_FAIL_LOG(p, ...)                                                    \
    GSHMEMI_LOG(__atomic_load_n(&(p)->abandon, __ATOMIC_ACQUIRE) ? GSHMEMI_LOG_DEBUG \
                                                                 : GSHMEMI_LOG_ERROR, \
                PROXY_SUBSYS, __VA_ARGS__)

/* channels.c */
int gshmemi_proxy_channels_create(gshmemi_proxy_t *p);
void gshmemi_proxy_channels_destroy(gshmemi_proxy_t *p);

/* exec.c: one validated entry (x: its EXT slot or NULL). 0 or the error
 * (logged; the caller fails the engine). */
int gshmemi_proxy_exec(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                       const gshmemi_wqe_t *x);
/* Transport quiet of everything in flight, then every issued entry is
 * complete. 0 or the error (logged). */
/* Begin a quiet without waiting where the one transport in use can mark
 * (else quiet); gshmemi_proxy_marks_poll completes the marks that are done
 * (settle after it: the entries after the last mark). */
int gshmemi_proxy_quiet_begin(gshmemi_proxy_t *p);
int gshmemi_proxy_marks_poll(gshmemi_proxy_t *p);
int gshmemi_proxy_quiet(gshmemi_proxy_t *p);
/* Entries issued with nothing non-blocking in flight are complete. */
void gshmemi_proxy_settle(gshmemi_proxy_t *p);
/* 1 when entry idx of ring k (w) writes a result slot that still holds an
 * earlier entry's value nobody took yet (the engine must not wait for it:
 * it defers the entry). */
int gshmemi_proxy_result_busy(gshmemi_proxy_t *p, uint32_t k, uint64_t idx,
                              const gshmemi_wqe_t *w);
/* Stops executing: logs nothing, stores rc in every ring's status. */
void gshmemi_proxy_fail(gshmemi_proxy_t *p, int rc);

/* bounce.c: device buffers bounced through pinned host memory for
 * transports that map the target (see bounce.c for why). wanted: 1 when the
 * op (target pe/off through tp, local buffer laddr) must bounce. put:
 * non-blocking transport puts from the arena; get: the data lands in dst
 * after the next engine quiet. sync: the engine's stream, then the arena is
 * free again (part of gshmemi_proxy_quiet). */
int gshmemi_proxy_bounce_init(gshmemi_proxy_t *p);
void gshmemi_proxy_bounce_fini(gshmemi_proxy_t *p);
int gshmemi_proxy_bounce_wanted(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                               uint64_t off, uint64_t laddr);
int gshmemi_proxy_bounce_put(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe,
                            uint64_t off, const void *src, size_t n);
int gshmemi_proxy_bounce_get(gshmemi_proxy_t *p, gshmemi_transport_t *tp, int pe, void *dst,
                            uint64_t off, size_t n);
int gshmemi_proxy_bounce_sync(gshmemi_proxy_t *p);

/* The transport of AMOs to pe. */
static inline gshmemi_transport_t *gshmemi_proxy_amo_tp(gshmemi_proxy_t *p, int pe)
{
    return gshmemi_transport_amo(p->env.amo_tp, p->env.pe_tp, pe);
}

/* pin.c: binds the calling thread near the GPU (INFO line on fallback). */
void gshmemi_proxy_pin(int cuda_device);

#endif /* GSHMEMI_PROXY_IMPL_H */

/* init.c: gshmem_init / gshmem_init_attr / gshmem_finalize, the global
 * state, gshmemi_fatal and gshmem_global_exit.
 *
 * Init order: configuration (an invalid GSHMEM_* value returns
 * GSHMEM_ERR_CONFIG before anything else is touched) and the heap's kind
 * (GSHMEM_HEAP, below), bootstrap, node map, symmetric heap (with the
 * program's data segments when the job shares them, symdata.c),
 * transports (select.c). A failure at any step undoes the
 * steps before it, in reverse, and returns the status: the runtime is
 * never left half-initialized, and gshmem_init may be called again.
 * Finalize undoes the same steps: the live contexts destroyed (each
 * quieted), quiet, barrier, transports in reverse order, heap, bootstrap;
 * a second finalize does nothing, another call after it is fatal naming
 * it ("called after gshmem_finalize"). A process that exits without
 * finalize stops the threads in an exit handler (exit.c), registered
 * right after the heap. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core.h"
#include "base/util/thread.h"   /* GSHMEMI_TSAN_BARRIER_* */
#include "base/util/peers.h"
#include "base/util/signals.h"
#include "base/util/trace.h"
#include "select.h"
#include "device_state.h"
#include "engine/proxy.h"   /* proxy engine: start/stop (queue path) */
#include "api/agg/agg.h"    /* gshmemi_agg_shutdown, before the engine stops */
#ifdef GSHMEM_HAVE_CUDA
#include "api/stream/stream_impl.h"   /* the on-stream paths' INFO line */
#endif

gshmemi_state_t gshmemi_g;
/* 1 from gshmem_finalize to the next gshmem_init (outside gshmemi_g, which
 * finalize clears): a second finalize is a no-op, a call says "after". */
static int gshmemi_finalized;

/* ---- the proxy engine's view of the runtime ------------------------- */

static void gshmemi_proxy_env_of(gshmemi_state_t *g, gshmemi_proxy_env_t *env_p)
{
    gshmemi_proxy_env_t env = {
        .my_pe = g->my_pe,
        .n_pes = g->n_pes,
        .device_queue_only = g->cfg.device_queue_only,
        .heap = &g->heap,
        .tps = g->tps,
        .n_tps = g->n_tps,
        .pe_tp = g->pe_tp,
        .amo_tp = g->amo_tp,
        .regs = &g->regs,
        .idle_spin_us = g->cfg.idle_spin_us,
        .idle_nap_us = g->cfg.idle_nap_us,
    };
    *env_p = env;
}

int gshmemi_engine_start_host(void)
{
    gshmemi_proxy_env_t env;

    gshmemi_proxy_env_of(&gshmemi_g, &env);
    return gshmemi_proxy_start_host(&env);
}

void gshmemi_engine_stop(void)
{
    gshmemi_agg_shutdown();   /* the aggregator's service posts into the rings: first */
    gshmemi_proxy_stop();
}

/* ---- misuse: print and end the job ---------------------------------- */

void gshmemi_fatal(const char *call, const char *fmt, ...)
{
    char msg[1024], line[1200];
    va_list ap;
    int len;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (gshmemi_g.boot != NULL)
        len = snprintf(line, sizeof line, "gshmem: PE %d: %s: %s\n", gshmemi_g.my_pe, call,
                       msg);
    else
        len = snprintf(line, sizeof line, "gshmem: %s: %s\n", call, msg);
    if (len < 0 || (size_t)len >= sizeof line)
        len = (int)strlen(line);
    fflush(stdout);
    if (write(STDERR_FILENO, line, (size_t)len) < 0) {
        /* nothing more we can do */
    }
    if (gshmemi_g.boot != NULL) {
        line[len > 0 ? len - 1 : 0] = '\0';   /* the abort message has no newline */
        gshmemi_g.boot->ops->abort(gshmemi_g.boot, 1, line);
    }
    exit(1);
}

void gshmemi_fatal_uninit(const char *call)
{
    gshmemi_fatal(call, gshmemi_finalized ? "called after gshmem_finalize"
                                          : "called before gshmem_init");
}

void gshmem_global_exit(int status)
{
    GSHMEMI_REQUIRE_INIT("gshmem_global_exit");
    char msg[64];
    snprintf(msg, sizeof msg, "gshmem_global_exit(%d) called by PE %d", status,
             gshmemi_g.my_pe);
    fflush(stdout);
    fflush(stderr);
    gshmemi_g.boot->ops->global_exit(gshmemi_g.boot, status, msg);
    exit(status);   /* not reached */
}

/* ---- configuration -------------------------------------------------- */

/* GSHMEM_DEBUG / GSHMEM_DEBUG_SUBSYS take effect at once, so that the rest
 * of init logs at the requested level. */
static int gshmemi_init_apply_log(const gshmemi_config_t *cfg)
{
    int level;
    unsigned mask;

    if (gshmemi_log_parse_level(cfg->debug, &level) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT,
                      "GSHMEM_DEBUG=%s is invalid: expected NONE, ERROR, WARN, INFO, DEBUG "
                      "or TRACE", cfg->debug);
        return GSHMEM_ERR_CONFIG;
    }
    if (gshmemi_log_parse_subsys(cfg->debug_subsys, &mask) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT,
                      "GSHMEM_DEBUG_SUBSYS=%s is invalid: expected a comma list of INIT, "
                      "HEAP, TRANSPORT, PROXY, AGG, BOOTSTRAP, COLL or ALL",
                      cfg->debug_subsys);
        return GSHMEM_ERR_CONFIG;
    }
    gshmemi_log_level = level;
    gshmemi_log_mask = mask;
    return GSHMEM_SUCCESS;
}

/* ---- the heap's kind ------------------------------------------------ */

/* GSHMEM_HEAP, the one place of the rule (tests/unit/test_heap_kind.c
 * takes it case by case):
 *   host, cuda  that heap; a CUDA heap lives on the PE's GPU (its index
 *               among the node's PEs modulo the GPUs it sees, chosen after
 *               the node map by gshmemi_transport_select_device);
 *   auto        a CUDA heap when the library was built with CUDA and the
 *               PE sees at least one GPU, a host heap otherwise: a CUDA
 *               build on a GPU machine gives GPU memory, as NVSHMEM does.
 * The library cannot tell a program that only calls the host API and
 * dereferences heap memory, or that wants its globals symmetric (host
 * heaps only: symdata.c), from a GPU program: such a program sets
 * GSHMEM_HEAP=host (gshmem-demo and the host benchmarks do it for
 * themselves). Pure: the GPU count and why none is seen (gpu_err, may be
 * NULL) are arguments. why[cap] gets the reason GSHMEM_INFO prints. */
int gshmemi_heap_kind_choose(const char *setting, int built_with_cuda, int n_gpus,
                             const char *gpu_err, gshmemi_heap_kind_t *kind_p, char *why,
                             size_t cap)
{
    if (strcasecmp(setting, "host") == 0 || strcasecmp(setting, "cuda") == 0) {
        *kind_p = strcasecmp(setting, "host") == 0 ? GSHMEMI_HEAP_HOST : GSHMEMI_HEAP_CUDA;
        snprintf(why, cap, "GSHMEM_HEAP=%s", setting);
        return GSHMEM_SUCCESS;
    }
    if (strcasecmp(setting, "auto") != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "GSHMEM_HEAP=%s is invalid: expected auto, host or "
                      "cuda", setting);
        return GSHMEM_ERR_CONFIG;
    }
    if (!built_with_cuda) {
        *kind_p = GSHMEMI_HEAP_HOST;
        snprintf(why, cap, "auto: built without CUDA -> host");
    } else if (n_gpus <= 0) {
        *kind_p = GSHMEMI_HEAP_HOST;
        snprintf(why, cap, "auto: no GPU visible%s%s%s -> host",
                 gpu_err ? " (cudaGetDeviceCount: " : "", gpu_err ? gpu_err : "",
                 gpu_err ? ")" : "");
    } else {
        *kind_p = GSHMEMI_HEAP_CUDA;
        snprintf(why, cap, "auto: built with CUDA and %d GPU%s visible -> cuda", n_gpus,
                 n_gpus == 1 ? "" : "s");
    }
    return GSHMEM_SUCCESS;
}

/* GSHMEM_HEAP as the rule above decides it here; only auto asks CUDA. */
static int gshmemi_init_heap_kind(const gshmemi_config_t *cfg, gshmemi_heap_kind_t *kind_p,
                                  char *why, size_t cap)
{
#ifdef GSHMEM_HAVE_CUDA
    const int built_with_cuda = 1;
#else
    const int built_with_cuda = 0;
#endif
    const char *gpu_err = NULL;
    int n_gpus = 0;

    if (strcasecmp(cfg->heap, "auto") == 0 && built_with_cuda)
        n_gpus = gshmemi_heap_cuda_devices(&gpu_err);
    return gshmemi_heap_kind_choose(cfg->heap, built_with_cuda, n_gpus, gpu_err, kind_p, why,
                                    cap);
}

/* GSHMEM_INFO=1 (or GSHMEM_DEBUG=INFO): each PE's heap and why it has it. */
static void gshmemi_init_report_heap(const gshmemi_state_t *g)
{
    char dev[32] = "";

    if (!g->cfg.info && gshmemi_log_level < GSHMEMI_LOG_INFO)
        return;
    if (g->heap.kind == GSHMEMI_HEAP_CUDA)
        snprintf(dev, sizeof dev, " on GPU %d", g->heap.cuda_device);
    gshmemi_log_write(GSHMEMI_LOG_INFO, GSHMEMI_SUBSYS_HEAP, __FILE__, __LINE__,
                      "heap: %s%s, %zu bytes (%s)",
                      g->heap.kind == GSHMEMI_HEAP_CUDA ? "cuda" : "host", dev,
                      g->heap.heap_size, g->heap_why);
}

static int gshmemi_init_config(gshmemi_state_t *g, gshmemi_heap_kind_t *kind_p,
                               gshmemi_tp_list_t *tps_p)
{
    gshmemi_config_t *cfg = &g->cfg;

    if (gshmemi_config_load(cfg) != 0)
        return GSHMEM_ERR_CONFIG;   /* config_load named the variable */
    GSHMEMI_CHECK(gshmemi_init_apply_log(cfg));
    GSHMEMI_CHECK(gshmemi_init_heap_kind(cfg, kind_p, g->heap_why, sizeof g->heap_why));
    if (*kind_p == GSHMEMI_HEAP_HOST)
        GSHMEMI_CHECK(gshmemi_config_check_host_heap(cfg, gshmemi_config_phys_bytes()));
    GSHMEMI_CHECK(gshmemi_select_parse(cfg->transports, tps_p));
    return GSHMEM_SUCCESS;
}

/* ---- init / finalize ------------------------------------------------ */

static int gshmemi_init_node_map(gshmemi_state_t *g)
{
    g->node_of = calloc((size_t)g->n_pes, sizeof(int));
    if (g->node_of == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "out of memory for the node map of %d PEs",
                      g->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    /* each PE's pid too, for the watch of stopped PEs on this node (peers.c) */
    int *pid_of = calloc((size_t)g->n_pes, sizeof(int));
    int rc = pid_of ? gshmemi_bootstrap_node_map_pids(g->boot, g->node_of, pid_of,
                                                         &g->n_machine, &g->n_nodes)
                    : GSHMEM_ERR_NOMEM;
    if (rc == 0)
        rc = gshmemi_peers_set(pid_of, g->node_of, g->my_pe, g->n_pes,
                               (int)g->cfg.stopped_timeout);
    free(pid_of);
    if (rc != 0) {
        free(g->node_of);
        g->node_of = NULL;
        return rc;
    }
    gshmemi_wait_setup(g);
    return GSHMEM_SUCCESS;
}

/* The heap, with the program's writable segments in its window when the
 * job shares them (symdata.c); those are also local memory the engine
 * accepts as a source or destination (the registration list). */
static int gshmemi_init_heap(gshmemi_state_t *g, gshmemi_heap_kind_t kind)
{
    gshmemi_seg_t segs[GSHMEMI_HEAP_MAX_SEGS];
    int n_segs, rc;

    GSHMEMI_CHECK(gshmemi_symdata_plan(g, kind, segs, &n_segs));
    GSHMEMI_CHECK(gshmemi_heap_create_sym(&g->heap, kind, g->cfg.symmetric_size, segs,
                                          n_segs));
    for (int i = 0; i < g->heap.n_segs; i++) {
        rc = gshmemi_reg_add(&g->regs, (void *)g->heap.segs[i].addr, g->heap.segs[i].size);
        if (rc != 0) {
            gshmemi_reg_clear(&g->regs);
            gshmemi_heap_destroy(&g->heap);
            return rc;
        }
    }
    return GSHMEM_SUCCESS;
}

static int gshmemi_init_impl(const gshmemi_boot_args_t *boot_args)
{
    gshmemi_state_t *g = &gshmemi_g;
    gshmemi_heap_kind_t kind;
    gshmemi_tp_list_t tps;
    gshmemi_proxy_env_t env;
    int rc;

    if (g->initialized) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init: already initialized "
                      "(call gshmem_finalize first)");
        return GSHMEM_ERR_ALREADY;
    }
    memset(g, 0, sizeof *g);
    /* before any CUDA call of ours (GSHMEM_HEAP=auto counts the GPUs) */
    int eager = gshmemi_heap_cuda_loading_prefer_eager();
    GSHMEMI_CHECK(gshmemi_init_config(g, &kind, &tps));
    gshmemi_signals_default_fatal();   /* a killed PE dies of its signal (signals.c) */
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_open(&g->cfg, boot_args, &g->boot), rc, fail_state);
    g->my_pe = g->boot->my_pe;
    g->n_pes = g->boot->n_pes;
    gshmemi_log_set_pe(g->my_pe);
    GSHMEMI_CHECK_GOTO(gshmemi_trace_init(g->cfg.trace, g->my_pe), rc, fail_bootstrap);
    if (g->cfg.info && g->my_pe == 0) {
        gshmemi_config_print(&g->cfg, stdout);
        fflush(stdout);
    }
    GSHMEMI_CHECK_GOTO(gshmemi_init_node_map(g), rc, fail_bootstrap);
    if (kind == GSHMEMI_HEAP_CUDA) {
        int dev;   /* this PE's GPU (the device transport decides) */
        GSHMEMI_CHECK_GOTO(gshmemi_transport_select_device(g->node_of, g->my_pe, g->n_pes,
                                                           &dev), rc, fail_node_map);
    }
    GSHMEMI_CHECK_GOTO(gshmemi_init_heap(g, kind), rc, fail_node_map);
    /* the exit handler that stops the threads started from here on: after
     * the heap's CUDA init, so that it runs before CUDA's (exit.c) */
    gshmemi_exit_register(kind == GSHMEMI_HEAP_CUDA);
    gshmemi_init_report_heap(g);
    if (kind == GSHMEMI_HEAP_CUDA) {
        if (eager)
            GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "CUDA_MODULE_LOADING=EAGER set by gshmem_init");
        gshmemi_heap_cuda_loading_check();
    }
    GSHMEMI_CHECK_GOTO(gshmemi_select_init(g, &tps), rc, fail_heap);
    /* proxy engine: after the transports, before the device state (it
     * provides the channels) and the barrier */
    gshmemi_proxy_env_of(g, &env);
    GSHMEMI_CHECK_GOTO(gshmemi_proxy_start(&env), rc, fail_transports);
    /* The areas peers write into (the device API's sync words, the teams'
     * flags and exchange words, the collectives' slots) are placed here,
     * before the barrier, and are not cleared: the heap is zero since it
     * was made, and peers may write into them before this PE reaches the
     * barrier. Under Slurm's PMIx server (srun --mpi=pmix, 4 PEs on 2
     * simulated nodes, loaded cores) a peer's first exchange word landed
     * before this PE had cleared its team area here in 5 of 30 runs: the
     * clearing erased it, and the PEs then disagreed on a malloc's check
     * (cluster::srun_2x2); 0 of 30 without the clearing. Why the barrier
     * let the peer go first is not understood. */
    GSHMEMI_CHECK_GOTO(gshmemi_device_state_setup(g), rc, fail_transports);
    GSHMEMI_CHECK_GOTO(gshmemi_team_setup(g), rc, fail_transports);   /* same reason */
    /* Peers write into this PE's areas (a barrier's signals) once they
     * leave this barrier: the order ThreadSanitizer is told of
     * (base/util/thread.h). */
    GSHMEMI_TSAN_BARRIER_ENTER();
    rc = g->boot->ops->barrier(g->boot);
    GSHMEMI_TSAN_BARRIER_EXIT();
    if (rc != 0)
        goto fail_transports;
    g->initialized = 1;
    gshmemi_finalized = 0;
    GSHMEMI_INFO(GSHMEMI_SUBSYS_INIT, "initialized: PE %d of %d, %d node(s), %s heap of %zu "
                 "bytes at %p", g->my_pe, g->n_pes, g->n_nodes,
                 kind == GSHMEMI_HEAP_CUDA ? "cuda" : "host", g->heap.heap_size, g->heap.base);
#ifdef GSHMEM_HAVE_CUDA
    if (kind == GSHMEMI_HEAP_CUDA)
        gshmemi_stream_report();
#endif
    return GSHMEM_SUCCESS;

fail_transports:
    gshmemi_team_teardown(g);
    gshmemi_engine_stop();   /* proxy engine (no-op when none runs) */
    gshmemi_device_state_teardown(g);
    gshmemi_select_finalize(g);
fail_heap:
    gshmemi_reg_clear(&g->regs);
    gshmemi_heap_destroy(&g->heap);
fail_node_map:
    gshmemi_peers_clear();
    free(g->node_of);
fail_bootstrap:
    gshmemi_trace_fini(0);
    g->boot->ops->finalize(g->boot);
    gshmemi_log_set_pe(-1);
fail_state:
    memset(g, 0, sizeof *g);
    return rc;
}

int gshmem_init(void)
{
    return gshmemi_init_impl(NULL);
}

int gshmem_init_attr(unsigned flags, const gshmem_init_attr_t *attr)
{
    const unsigned known = GSHMEM_INIT_WITH_MPI_COMM | GSHMEM_INIT_WITH_UNIQUEID;
    gshmemi_boot_args_t args = {0};
    char uid[GSHMEM_UNIQUEID_BYTES];

    if (flags & ~known) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_attr: unknown flags 0x%x",
                      flags & ~known);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if ((flags & GSHMEM_INIT_WITH_MPI_COMM) && (flags & GSHMEM_INIT_WITH_UNIQUEID)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_attr: GSHMEM_INIT_WITH_MPI_COMM and "
                      "GSHMEM_INIT_WITH_UNIQUEID together (one bootstrap: pick one)");
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* an attr of an older gshmem (no uid fields) serves the MPI flag */
    size_t need = (flags & GSHMEM_INIT_WITH_UNIQUEID) ? sizeof(gshmem_init_attr_t)
                  : offsetof(gshmem_init_attr_t, mpi_comm) + sizeof(void *);
    if (attr != NULL && attr->size != 0 && attr->size < need) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_attr: attr->size %zu is too small "
                      "(expected sizeof(gshmem_init_attr_t) = %zu)", attr->size,
                      sizeof(gshmem_init_attr_t));
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (flags & GSHMEM_INIT_WITH_MPI_COMM) {
        if (attr == NULL || attr->mpi_comm == NULL) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_attr: GSHMEM_INIT_WITH_MPI_COMM "
                          "needs attr->mpi_comm (a pointer to an MPI_Comm)");
            return GSHMEM_ERR_INVALID_ARG;
        }
        args.mpi_comm = attr->mpi_comm;
    }
    if (flags & GSHMEM_INIT_WITH_UNIQUEID) {
        if (attr == NULL) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_attr: GSHMEM_INIT_WITH_UNIQUEID "
                          "needs attr (set by gshmem_set_attr_uniqueid_args)");
            return GSHMEM_ERR_INVALID_ARG;
        }
        memcpy(uid, attr->uid.internal, sizeof uid);
        uid[sizeof uid - 1] = '\0';
        args.uid = uid;
        args.uid_pe = attr->uid_pe;
        args.uid_n_pes = attr->uid_n_pes;
    }
    return gshmemi_init_impl(&args);
}

int gshmem_get_uniqueid(gshmem_uniqueid_t *id)
{
    static gshmemi_config_t cfg;   /* GSHMEM_BOOTSTRAP_UID_IFACE; large for a stack */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

    if (id == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_get_uniqueid: id is NULL");
        return GSHMEM_ERR_INVALID_ARG;
    }
    memset(id, 0, sizeof *id);
    pthread_mutex_lock(&lock);
    int rc = gshmemi_config_load(&cfg);
    if (rc == 0)
        rc = gshmemi_bootstrap_uid_make(&cfg, id->internal, sizeof id->internal);
    pthread_mutex_unlock(&lock);
    return rc;
}

int gshmem_set_attr_uniqueid_args(int pe, int n_pes, const gshmem_uniqueid_t *id,
                                  gshmem_init_attr_t *attr)
{
    if (id == NULL || attr == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_set_attr_uniqueid_args: %s is NULL",
                      id == NULL ? "id" : "attr");
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (n_pes < 1 || pe < 0 || pe >= n_pes) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_set_attr_uniqueid_args: PE %d of %d PEs: "
                      "expected n_pes >= 1 and 0 <= pe < n_pes", pe, n_pes);
        return GSHMEM_ERR_INVALID_ARG;
    }
    attr->size = sizeof *attr;
    attr->uid_pe = pe;
    attr->uid_n_pes = n_pes;
    attr->uid = *id;
    return 0;
}

/* Thread safety: the state is written only by init and finalize; the
 * transports serialize what they share themselves (shm: CPU atomics and
 * copies; ofi: an FI_THREAD_SAFE domain and its locks; p2p: CUDA streams
 * and the batch's lock), so every level is provided. pe_api_shmem15 runs
 * puts and AMOs from 4 threads per PE over shm and ofi. */
int gshmem_init_thread(int requested, int *provided)
{
    if (requested < GSHMEM_THREAD_SINGLE || requested > GSHMEM_THREAD_MULTIPLE) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "gshmem_init_thread: requested %d is not a thread "
                      "level (GSHMEM_THREAD_SINGLE = 0 .. GSHMEM_THREAD_MULTIPLE = 3)",
                      requested);
        return GSHMEM_ERR_INVALID_ARG;
    }
    int rc = gshmemi_init_impl(NULL);
    if (rc == 0 && provided != NULL)
        *provided = GSHMEM_THREAD_MULTIPLE;
    return rc;
}

void gshmem_query_thread(int *provided)
{
    GSHMEMI_REQUIRE_INIT("gshmem_query_thread");
    if (provided == NULL)
        gshmemi_fatal("gshmem_query_thread", "provided is NULL");
    *provided = GSHMEM_THREAD_MULTIPLE;
}

void gshmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, GSHMEM_MAX_NAME_LEN, "%s", GSHMEM_VENDOR_STRING);
}

void gshmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = 1;
    if (minor != NULL)
        *minor = 5;
}

void gshmem_pcontrol(int level, ...)
{
    (void)level;
}

void gshmem_finalize(void)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (!g->initialized && gshmemi_finalized)
        return;   /* a second finalize: nothing left to do (as in OpenSHMEM libraries) */
    GSHMEMI_REQUIRE_INIT("gshmem_finalize");
    if (gshmemi_exit_began()) {
        GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "gshmem_finalize: called while the process exits, "
                     "after gshmem's exit handler stopped the library's threads (from an "
                     "atexit handler registered before gshmem_init?): skipped; call "
                     "gshmem_finalize before exit");
        return;
    }
    /* proxy engine: drain every ring (device entries posted before
     * finalize) and stop, before the barrier that lets peers go */
    gshmemi_engine_stop();
    /* the contexts' operations complete before peers may leave (and close) */
    gshmemi_ctx_destroy_all("gshmem_finalize");
    gshmemi_barrier_all("gshmem_finalize");
    gshmemi_peers_clear();   /* past this barrier a PE may leave: no longer a death */
    gshmemi_team_teardown(g);
    gshmemi_device_state_teardown(g);   /* before p2p frees the peer table */
    gshmemi_select_finalize(g);
    gshmemi_reg_clear(&g->regs);
    gshmemi_heap_destroy(&g->heap);
    free(g->node_of);
    gshmemi_trace_fini(1);
    int rc = g->boot->ops->finalize(g->boot);
    if (rc != 0)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "gshmem_finalize: bootstrap finalize: %s",
                     gshmem_strerror(rc));
    memset(g, 0, sizeof *g);
    gshmemi_finalized = 1;
    gshmemi_log_set_pe(-1);
}

int gshmem_initialized(void)
{
    return gshmemi_g.initialized;
}

int gshmem_my_pe(void)
{
    GSHMEMI_REQUIRE_INIT("gshmem_my_pe");
    return gshmemi_g.my_pe;
}

int gshmem_n_pes(void)
{
    GSHMEMI_REQUIRE_INIT("gshmem_n_pes");
    return gshmemi_g.n_pes;
}

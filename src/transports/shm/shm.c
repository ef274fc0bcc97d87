/* shm.c: the shm transport. It serves the PEs of this node whose heap is
 * host memory (a memfd), this PE included: at init the node's PEs pass
 * their heap descriptors to each other over Unix sockets in the bootstrap's
 * private node directory (SCM_RIGHTS, see shm_fdpass.c) and map them
 * MAP_SHARED; afterwards every operation is a load, a store, a memcpy or a
 * CPU atomic on the mapping, complete when it returns.
 *
 * Init exchange (every PE runs the same collectives, in the same order):
 *   1. a PE with a host heap and local peers listens on <node_dir>/shm.<pe>;
 *   2. allgather of each PE's state (1 listening/serving, 0 out, -1 failed);
 *   3. a thread accepts the local peers and answers each with a hello and
 *      the heap descriptor, while the main thread connects to every local
 *      peer in turn, receives its descriptor, checks it and maps it;
 *   4. the socket is closed and unlinked; allgather of each PE's result, so
 *      that all PEs fail together when one does. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/log.h"
#include "transports/transport.h"
#include "shm_fdpass.h"

#define SHM_SUBSYS GSHMEMI_SUBSYS_TRANSPORT
#define SHM_MAGIC 0x67736d68u /* "gsmh" */

/* Request (client -> server) and answer (server -> client, with the fd). */
typedef struct shm_hello {
    uint32_t magic;
    int32_t pe;      /* the sender */
    uint64_t size;   /* the sender's heap size */
} shm_hello_t;

typedef struct shm_priv {
    int my_pe, n_pes;
    size_t size;               /* heap bytes, the same on every PE */
    unsigned char **base;      /* [n_pes]: the heap of each reached PE, else NULL */
    int own_reach;             /* tp->reach was allocated here */
} shm_priv_t;

/* The serving side of one init exchange (runs in its own thread). */
typedef struct shm_server {
    const gshmemi_tp_env_t *env;
    int lsock;
    int n_clients;             /* local listening peers, each connects once */
    int timeout_ms;
    int rc;
} shm_server_t;

static int shm_local(const gshmemi_tp_env_t *env, int pe)
{
    return env->node_of[pe] == env->node_of[env->my_pe];
}

static int shm_sock_path(const gshmemi_tp_env_t *env, int pe, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/shm.%d", env->boot->node_dir, pe);

    if (env->boot->node_dir[0] == '\0' || n < 0 || (size_t)n >= len) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: no usable node directory for PE %d's socket "
                      "(node_dir '%s')", pe, env->boot->node_dir);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    return GSHMEM_SUCCESS;
}

/* Accept one peer, check its request, answer with the heap descriptor. */
static int shm_serve_one(shm_server_t *s)
{
    const gshmemi_tp_env_t *env = s->env;
    shm_hello_t req, ans = {.magic = SHM_MAGIC, .pe = env->my_pe, .size = env->heap->size};
    int sock, fd = -1, rc;

    GSHMEMI_CHECK(gshmemi_shm_sock_accept(s->lsock, s->timeout_ms, &sock));
    GSHMEMI_CHECK_GOTO(gshmemi_shm_fd_recv(sock, &req, sizeof(req), &fd), rc, out);
    if (fd >= 0 || req.magic != SHM_MAGIC || req.pe < 0 || req.pe >= env->n_pes ||
        req.pe == env->my_pe || !shm_local(env, req.pe)) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: PE %d got a bad request (magic 0x%x, PE %d, fd %d)",
                      env->my_pe, req.magic, req.pe, fd);
        rc = GSHMEM_ERR_TRANSPORT;
        goto out;
    }
    rc = gshmemi_shm_fd_send(sock, &ans, sizeof(ans), env->heap->fd);
out:
    if (fd >= 0)
        close(fd);
    close(sock);
    return rc;
}

static void *shm_serve_thread(void *arg)
{
    shm_server_t *s = arg;

    s->rc = GSHMEM_SUCCESS;
    for (int i = 0; i < s->n_clients && s->rc == GSHMEM_SUCCESS; i++)
        s->rc = shm_serve_one(s);
    return NULL;
}

/* Ask pe for its heap descriptor; *fd_p on success. */
static int shm_fetch_fd(const gshmemi_tp_env_t *env, int pe, int timeout_ms, int *fd_p)
{
    shm_hello_t req = {.magic = SHM_MAGIC, .pe = env->my_pe, .size = env->heap->size}, ans;
    char path[512];
    int sock, fd = -1, rc;

    GSHMEMI_CHECK(shm_sock_path(env, pe, path, sizeof(path)));
    GSHMEMI_CHECK(gshmemi_shm_sock_connect(path, timeout_ms, &sock));
    GSHMEMI_CHECK_GOTO(gshmemi_shm_fd_send(sock, &req, sizeof(req), -1), rc, out);
    GSHMEMI_CHECK_GOTO(gshmemi_shm_fd_recv(sock, &ans, sizeof(ans), &fd), rc, out);
    if (fd < 0 || ans.magic != SHM_MAGIC || ans.pe != pe) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: bad answer from PE %d at '%s' (magic 0x%x, PE %d, "
                      "fd %d)", pe, path, ans.magic, ans.pe, fd);
        rc = GSHMEM_ERR_TRANSPORT;
    } else if (ans.size != env->heap->size) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: PE %d's heap is %llu bytes, PE %d's is %zu: "
                      "heap sizes must match", pe, (unsigned long long)ans.size,
                      env->my_pe, env->heap->size);
        rc = GSHMEM_ERR_MISMATCH;
    }
out:
    close(sock);
    if (rc != GSHMEM_SUCCESS) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    *fd_p = fd;
    return GSHMEM_SUCCESS;
}

static int shm_map_peer(shm_priv_t *priv, const gshmemi_tp_env_t *env, int pe, int timeout_ms)
{
    struct stat st;
    void *p;
    int fd, rc = GSHMEM_SUCCESS;

    GSHMEMI_CHECK(shm_fetch_fd(env, pe, timeout_ms, &fd));
    if (fstat(fd, &st) != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: fstat of PE %d's heap descriptor: %s", pe,
                      strerror(errno));
        rc = GSHMEM_ERR_SYSTEM;
    } else if ((uint64_t)st.st_size != (uint64_t)priv->size) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: PE %d's heap memory is %lld bytes, expected %zu "
                      "(the heap size of PE %d)", pe, (long long)st.st_size, priv->size,
                      priv->my_pe);
        rc = GSHMEM_ERR_MISMATCH;
    } else {
        p = mmap(NULL, priv->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: mmap of PE %d's heap (%zu bytes): %s", pe,
                          priv->size, strerror(errno));
            rc = GSHMEM_ERR_SYSTEM;
        } else {
            priv->base[pe] = p;
        }
    }
    close(fd);
    return rc;
}

/* Step 3: serve and fetch descriptors among the listening local PEs. */
static int shm_exchange(shm_priv_t *priv, const gshmemi_tp_env_t *env, const int32_t *state,
                        int lsock, int timeout_ms)
{
    shm_server_t srv = {.env = env, .lsock = lsock, .timeout_ms = timeout_ms};
    pthread_t thread;
    int rc = GSHMEM_SUCCESS, err;

    for (int pe = 0; pe < env->n_pes; pe++)
        srv.n_clients += pe != env->my_pe && shm_local(env, pe) && state[pe] == 1;
    err = pthread_create(&thread, NULL, shm_serve_thread, &srv);
    if (err != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: pthread_create of the descriptor server: %s",
                      strerror(err));
        return GSHMEM_ERR_SYSTEM;
    }
    /* Start after this PE so that the peers do not all queue on PE 0. */
    for (int k = 1; k < env->n_pes; k++) {
        int pe = (env->my_pe + k) % env->n_pes;
        if (shm_local(env, pe) && state[pe] == 1) {
            int prc = shm_map_peer(priv, env, pe, timeout_ms);
            rc = rc != GSHMEM_SUCCESS ? rc : prc;
        }
    }
    pthread_join(thread, NULL);
    return rc != GSHMEM_SUCCESS ? rc : srv.rc;
}

static void shm_priv_free(gshmemi_transport_t *tp)
{
    shm_priv_t *priv = tp->priv;

    if (priv == NULL)
        return;
    for (int pe = 0; priv->base != NULL && pe < priv->n_pes; pe++)
        if (pe != priv->my_pe && priv->base[pe] != NULL)
            munmap(priv->base[pe], priv->size);
    free(priv->base);
    if (priv->own_reach) {
        free(tp->reach);
        tp->reach = NULL;
    }
    free(priv);
    tp->priv = NULL;
}

/* Index of the first PE whose entry of all[] is not ok (ok: >= 0 for the
 * states of step 2, == 0 for the results of step 4), or -1. */
static int shm_first_failed(const int32_t *all, int n_pes, int zero_is_ok)
{
    for (int pe = 0; pe < n_pes; pe++)
        if (zero_is_ok ? all[pe] != 0 : all[pe] < 0)
            return pe;
    return -1;
}

/* Steps 1-4 above; returns this PE's status, an error on every PE when one
 * PE failed. */
static int shm_connect_all(shm_priv_t *priv, const gshmemi_tp_env_t *env, int host_heap,
                           int32_t *all)
{
    gshmemi_bootstrap_t *b = env->boot;
    int32_t mine = host_heap;
    int n_local = 0, lsock = -1, rc = GSHMEM_SUCCESS, brc, fail_pe;
    long tmo = gshmemi_config_bounded_wait_s(env->cfg);
    int timeout_ms = tmo > 1000000 ? 1000000000 : (int)(tmo * 1000);
    char path[512] = "";

    for (int pe = 0; pe < env->n_pes; pe++)
        n_local += pe != env->my_pe && shm_local(env, pe);
    if (host_heap && n_local > 0) {
        rc = shm_sock_path(env, env->my_pe, path, sizeof(path));
        if (rc == GSHMEM_SUCCESS)
            rc = gshmemi_shm_sock_listen(path, n_local + 1, &lsock);
        mine = rc == GSHMEM_SUCCESS ? 1 : -1;
    }
    GSHMEMI_CHECK_GOTO(b->ops->allgather(b, &mine, all, sizeof(mine)), rc, out_sock);
    fail_pe = shm_first_failed(all, env->n_pes, 0);
    if (fail_pe < 0 && mine == 1 && lsock >= 0)
        rc = shm_exchange(priv, env, all, lsock, timeout_ms);
    if (lsock >= 0) {
        close(lsock);
        unlink(path);
        lsock = -1;
    }
    mine = rc;
    brc = b->ops->allgather(b, &mine, all, sizeof(mine));
    if (brc != GSHMEM_SUCCESS)
        return brc;
    if (fail_pe < 0)
        fail_pe = shm_first_failed(all, env->n_pes, 1);
    if (fail_pe >= 0 && rc == GSHMEM_SUCCESS) {
        GSHMEMI_DEBUG(SHM_SUBSYS, "shm: init failed on PE %d", fail_pe);
        rc = GSHMEM_ERR_TRANSPORT;
    }
out_sock:
    if (lsock >= 0) {
        close(lsock);
        unlink(path);
    }
    return rc;
}

static int shm_priv_alloc(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env)
{
    shm_priv_t *priv = calloc(1, sizeof(*priv));

    tp->priv = priv;
    if (priv == NULL)
        goto err;
    priv->my_pe = env->my_pe;
    priv->n_pes = env->n_pes;
    priv->size = env->heap->size;
    priv->base = calloc((size_t)env->n_pes, sizeof(*priv->base));
    if (priv->base == NULL)
        goto err;
    if (tp->reach == NULL) {
        tp->reach = calloc((size_t)env->n_pes, 1);
        priv->own_reach = 1;
        if (tp->reach == NULL)
            goto err;
    }
    memset(tp->reach, 0, (size_t)env->n_pes);
    return GSHMEM_SUCCESS;
err:
    GSHMEMI_ERROR(SHM_SUBSYS, "shm: out of memory for the state of %d PEs", env->n_pes);
    shm_priv_free(tp);
    return GSHMEM_ERR_NOMEM;
}

static int shm_init(gshmemi_transport_t *tp, const gshmemi_tp_env_t *env)
{
    int host_heap = env->heap->kind == GSHMEMI_HEAP_HOST && env->heap->fd >= 0;
    shm_priv_t *priv;
    int32_t *all;
    int rc, n_reached = 0;

    all = calloc((size_t)env->n_pes, sizeof(*all));
    if (all == NULL) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: out of memory for the state of %d PEs", env->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    GSHMEMI_CHECK_GOTO(shm_priv_alloc(tp, env), rc, out);
    priv = tp->priv;
    tp->hw_atomics = 1;
    rc = shm_connect_all(priv, env, host_heap, all);
    if (rc != GSHMEM_SUCCESS) {
        shm_priv_free(tp);
        goto out;
    }
    if (host_heap)
        priv->base[env->my_pe] = env->heap->base;
    for (int pe = 0; pe < env->n_pes; pe++) {
        tp->reach[pe] = priv->base[pe] != NULL;
        n_reached += tp->reach[pe];
    }
    GSHMEMI_INFO(SHM_SUBSYS, "shm: %s heap of %zu bytes; reaches %d PE(s), this one included",
                 host_heap ? "host" : "non-host", priv->size, n_reached);
out:
    free(all);
    return rc;
}

static int shm_finalize(gshmemi_transport_t *tp)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shm_priv_free(tp);
    return GSHMEM_SUCCESS;
}

/* The mapped address of [off, off+n) at pe, checked; logs what is wrong. */
static int shm_addr(gshmemi_transport_t *tp, int pe, uint64_t off, size_t n, const char *op,
                    unsigned char **addr_p)
{
    shm_priv_t *priv = tp->priv;

    if (pe < 0 || pe >= priv->n_pes || priv->base[pe] == NULL) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: %s to PE %d: not reached by shm (%d PEs)", op, pe,
                      priv->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    if (off > priv->size || n > priv->size - off) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: %s of %zu bytes at offset %llu of PE %d is outside "
                      "its %zu-byte heap", op, n, (unsigned long long)off, pe, priv->size);
        return GSHMEM_ERR_OUT_OF_HEAP;
    }
    *addr_p = priv->base[pe] + off;
    return GSHMEM_SUCCESS;
}

static int shm_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off, const void *src,
                   size_t n, int nbi)
{
    unsigned char *dst;

    (void)nbi; /* complete at return either way */
    GSHMEMI_CHECK(shm_addr(tp, pe, dst_off, n, "put", &dst));
    memcpy(dst, src, n);
    return GSHMEM_SUCCESS;
}

static int shm_get(gshmemi_transport_t *tp, int pe, void *dst, uint64_t src_off, size_t n,
                   int nbi)
{
    unsigned char *src;

    (void)nbi;
    GSHMEMI_CHECK(shm_addr(tp, pe, src_off, n, "get", &src));
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    memcpy(dst, src, n);
    return GSHMEM_SUCCESS;
}

/* One typed atomic; op, operand and compare were checked by the caller. */
#define SHM_AMO_DEFINE(sfx, T)                                                     \
    static void shm_amo_##sfx(T *p, gshmemi_amo_op_t op, const void *operand,      \
                              const void *compare, void *result)                   \
    {                                                                              \
        T v = 0, c = 0, old = 0;                                                   \
        if (operand != NULL)                                                       \
            memcpy(&v, operand, sizeof(T));                                        \
        switch (op) {                                                              \
        case GSHMEMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return;    \
        case GSHMEMI_AMO_ADD: __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); return;  \
        case GSHMEMI_AMO_FETCH: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_ADD:                                                \
            old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                      \
            break;                                                                 \
        case GSHMEMI_AMO_SWAP: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_CSWAP:                                                    \
            memcpy(&c, compare, sizeof(T));                                        \
            __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST,             \
                                        __ATOMIC_SEQ_CST);                         \
            old = c; /* the value seen, whether or not it was swapped */           \
            break;                                                                 \
        case GSHMEMI_AMO_AND: __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); return;  \
        case GSHMEMI_AMO_OR: __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); return;    \
        case GSHMEMI_AMO_XOR: __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); return;  \
        case GSHMEMI_AMO_FETCH_AND: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_OR: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break; \
        case GSHMEMI_AMO_FETCH_XOR: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break; \
        }                                                                          \
        if (result != NULL)                                                        \
            memcpy(result, &old, sizeof(T));                                       \
    }
SHM_AMO_DEFINE(i32, int32_t)
SHM_AMO_DEFINE(i64, int64_t)
SHM_AMO_DEFINE(u64, uint64_t)

static int shm_amo(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                   uint64_t off, const void *operand, const void *compare, void *result)
{
    size_t sz = gshmemi_dtype_size(dt);
    unsigned char *p;

    if ((unsigned)op > GSHMEMI_AMO_OP_MAX || (unsigned)dt > GSHMEMI_DT_UINT64 ||
        (operand == NULL && op != GSHMEMI_AMO_FETCH) ||
        (compare == NULL && op == GSHMEMI_AMO_CSWAP)) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: AMO op %d dtype %d to PE %d: unknown op/type or "
                      "missing operand (%p) / compare (%p)", (int)op, (int)dt, pe,
                      operand, compare);
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(shm_addr(tp, pe, off, sz, "AMO", &p));
    if (off % sz != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: AMO on %zu-byte type at offset %llu of PE %d is "
                      "misaligned", sz, (unsigned long long)off, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
    switch (dt) {
    case GSHMEMI_DT_INT32: shm_amo_i32((int32_t *)(void *)p, op, operand, compare, result); break;
    case GSHMEMI_DT_INT64: shm_amo_i64((int64_t *)(void *)p, op, operand, compare, result); break;
    case GSHMEMI_DT_UINT64: shm_amo_u64((uint64_t *)(void *)p, op, operand, compare, result); break;
    }
    return GSHMEM_SUCCESS;
}

static int shm_amo_nbi(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op,
                       gshmemi_dtype_t dt, uint64_t off, const void *operand, int after_fence)
{
    (void)after_fence; /* always ordered: earlier stores are made visible first */
    if (gshmemi_amo_fetching(op)) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: non-blocking AMO op %d to PE %d: only non-fetching "
                      "ones (set, add, and, or, xor) are allowed", (int)op, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return shm_amo(tp, pe, op, dt, off, operand, NULL, NULL);
}

/* Stores to the mappings are plain CPU stores: a full fence orders them
 * before later ones and makes them visible to the other processes. */
static int shm_fence(gshmemi_transport_t *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return GSHMEM_SUCCESS;
}

static int shm_quiet(gshmemi_transport_t *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return GSHMEM_SUCCESS;
}

static void *shm_ptr(gshmemi_transport_t *tp, int pe, uint64_t off)
{
    shm_priv_t *priv = tp->priv;

    if (priv == NULL || pe < 0 || pe >= priv->n_pes || priv->base[pe] == NULL ||
        off > priv->size)
        return NULL;
    return priv->base[pe] + off;
}

static int shm_progress(gshmemi_transport_t *tp)
{
    (void)tp;
    return GSHMEM_SUCCESS;
}

static int shm_mem_register(gshmemi_transport_t *tp, void *addr, size_t len)
{
    (void)tp, (void)addr, (void)len;
    return GSHMEM_SUCCESS;
}

static int shm_mem_unregister(gshmemi_transport_t *tp, void *addr)
{
    (void)tp, (void)addr;
    return GSHMEM_SUCCESS;
}

const gshmemi_transport_ops_t gshmemi_shm_ops = {
    .size = sizeof(gshmemi_transport_ops_t),
    .name = "shm",
    .init = shm_init,
    .finalize = shm_finalize,
    .exit_threads = gshmemi_tp_no_threads,   /* no threads of its own */
    .put = shm_put,
    .get = shm_get,
    .put_value = gshmemi_tp_put_value_by_put,
    .amo = shm_amo,
    .amo_nbi = shm_amo_nbi,
    .flag_set = gshmemi_tp_flag_set_by_amo,
    .put_count = gshmemi_tp_put_count_by_amo,
    .fence = shm_fence,
    .quiet = shm_quiet,
    .ptr = shm_ptr,
    .progress = shm_progress,
    .mem_register = shm_mem_register,
    .mem_unregister = shm_mem_unregister,
    .chan_open = gshmemi_tp_chan_shared,
    .chan_close = gshmemi_tp_chan_close_shared,
    .select_device = gshmemi_tp_no_select_device,
    .peer_bases_device = gshmemi_tp_no_peer_bases_device,
    .describe = gshmemi_tp_no_describe,
};

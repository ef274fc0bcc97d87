/* sar_host.c: the algorithm of sar.h on host PEs, through the gshmem host
 * API (put, fence, put-with-signal, remote fetch-add, signal fetch). The
 * phases, messages and summation order are those of the GPU version
 * (sar_gpu.cu), so both give bit-identical sums. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gshmem.h"
#include "sar_internal.h"

typedef struct sar_host {
    int32_t *cnt;       /* [n_rows] PEs holding each index this call */
    int32_t *upos;      /* [n_rows] output position of each index (exclusive scan) */
    int32_t *map;       /* [np][chunk] receive slot of (sender, index - lo), -1: none */
    uint64_t want_idx, want_recv, want_done;   /* signal values awaited so far */
    int broken;         /* a wait timed out: the PEs' counters no longer agree */
} sar_host_t;

typedef struct { int64_t key; int64_t pos; } kp_t;

static int kp_cmp(const void *a, const void *b)
{
    const kp_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);   /* stable, like the GPU's radix sort */
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int sar_host_create(sar_t *s)
{
    sar_host_t *h = calloc(1, sizeof *h);
    size_t n = (size_t)s->p.n_rows, m = (size_t)s->np * (size_t)s->chunk;
    s->gpu = (sar_gpu_t *)h;   /* the backend's private state (host flavour) */
    if (h == NULL)
        return sar_fail(s, SAR_ERR_NOMEM, "out of host memory");
    h->cnt = calloc(n, sizeof(int32_t));
    h->upos = calloc(n, sizeof(int32_t));
    h->map = malloc(m * sizeof(int32_t));
    s->out_idx = malloc((size_t)s->p.out_cap * sizeof(int64_t));
    if (h->cnt == NULL || h->upos == NULL || h->map == NULL || s->out_idx == NULL)
        return sar_fail(s, SAR_ERR_NOMEM, "out of host memory (%zu index entries)", n);
    for (size_t i = 0; i < m; i++)
        h->map[i] = -1;
    return 0;
}

void sar_host_destroy(sar_t *s)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    if (h != NULL) {
        free(h->cnt);
        free(h->upos);
        free(h->map);
        free(h);
    }
    free(s->out_idx);
    s->gpu = NULL;
    s->out_idx = NULL;
}

/* Waits until *sig >= want (bounded by timeout_s); 0 or SAR_ERR_TIMEOUT. */
static int wait_sig(sar_t *s, uint64_t *sig, uint64_t want, int phase)
{
    double t0 = now_s();
    uint64_t v;
    while ((v = gshmem_signal_fetch(sig)) < want) {
        if (now_s() - t0 > s->p.timeout_s) {
            sar_msg_t m = {.err = SAR_ERR_TIMEOUT, .err_pe = s->me, .err_pos = phase,
                           .err_val = (int64_t)(v - (want - (uint64_t)s->np))};
            ((sar_host_t *)s->gpu)->broken = 1;
            return sar_fail_msg(s, &m);
        }
        sched_yield();
    }
    return 0;
}

/* The first error (lowest PE) among the messages of this call, or 0. */
static int first_error(sar_t *s, const sar_msg_t *msgs, sar_msg_t *out)
{
    for (int p = 0; p < s->np; p++) {
        if (msgs[p].epoch != s->epoch) {
            *out = (sar_msg_t){.epoch = s->epoch, .err = SAR_ERR_PROTOCOL, .err_pe = s->me,
                               .err_pos = p, .err_val = (int64_t)msgs[p].epoch};
            return out->err;
        }
        if (msgs[p].err != 0) {
            *out = msgs[p];
            return out->err;
        }
    }
    return 0;
}

/* Every PE puts msg into slot[me] of each PE, then adds 1 to sig there
 * (after a fence: the rows put before arrive first). */
static void post(sar_t *s, sar_msg_t *slots, const sar_msg_t *msg, uint64_t *sig)
{
    gshmem_fence();
    for (int i = 1; i <= s->np; i++) {
        int p = (s->me + i) % s->np;
        gshmem_putmem_signal(&slots[s->me], &msg[p], sizeof *msg, sig, 1, GSHMEM_SIGNAL_ADD, p);
    }
}

/* d += the rows pos[a..b) of val, in order (d starts at 0). */
static void add_rows(float *d, const float *val, int dim, const kp_t *kp, int64_t a, int64_t b)
{
    for (int64_t i = a; i < b; i++) {
        const float *v = val + (size_t)kp[i].pos * dim;
        for (int c = 0; c < dim; c++)
            d[c] += v[c];
    }
}

/* Local coalesce: sorted unique keys uk[u] and their summed rows cv[u][dim]
 * in the GPU's order (sar_coal.cuh): a run of up to SAR_CHUNK rows in input
 * order, a longer one as the sum of its chunks' sums. */
static int coalesce(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                    int64_t **uk_p, float **cv_p, int64_t *u_p)
{
    int dim = s->p.dim;
    size_t n1 = (size_t)(nnz > 0 ? nnz : 1);
    kp_t *kp = malloc(n1 * sizeof *kp);
    int64_t *uk = malloc(n1 * sizeof *uk);
    float *cv = calloc(n1 * (size_t)dim, sizeof *cv), *part = malloc((size_t)dim * sizeof *part);
    if (kp == NULL || uk == NULL || cv == NULL || part == NULL) {
        free(kp);
        free(uk);
        free(cv);
        free(part);
        return sar_fail(s, SAR_ERR_NOMEM, "out of host memory (%lld rows)", (long long)nnz);
    }
    for (int64_t i = 0; i < nnz; i++)
        kp[i] = (kp_t){idx[i], i};
    qsort(kp, (size_t)nnz, sizeof *kp, kp_cmp);
    int64_t u = 0;
    for (int64_t a = 0, b; a < nnz; a = b) {
        for (b = a + 1; b < nnz && kp[b].key == kp[a].key; b++)
            ;
        float *d = cv + (size_t)u * dim;
        uk[u++] = kp[a].key;
        if (b - a <= SAR_CHUNK) {
            add_rows(d, val, dim, kp, a, b);
            continue;
        }
        for (int64_t c = a; c < b; c += SAR_CHUNK) {
            memset(part, 0, (size_t)dim * sizeof *part);
            add_rows(part, val, dim, kp, c, c + SAR_CHUNK < b ? c + SAR_CHUNK : b);
            for (int k = 0; k < dim; k++)
                d[k] += part[k];
        }
    }
    free(kp);
    free(part);
    *uk_p = uk;
    *cv_p = cv;
    *u_p = u;
    return 0;
}

/* This PE's index-phase message: u unique rows, or the first invalid input. */
static sar_msg_t validate(const sar_t *s, const int64_t *idx, int64_t nnz)
{
    sar_msg_t m = {.epoch = s->epoch};
    if (nnz > s->p.nnz_max)
        return (sar_msg_t){.epoch = s->epoch, .err = SAR_ERR_INDEX, .err_pe = s->me,
                           .err_pos = -1, .err_val = nnz};
    for (int64_t i = 0; i < nnz; i++)
        if (idx[i] < 0 || idx[i] >= s->p.n_rows)
            return (sar_msg_t){.epoch = s->epoch, .err = SAR_ERR_INDEX, .err_pe = s->me,
                               .err_pos = i, .err_val = idx[i]};
    return m;
}

/* Phase 1: the exchange of unique indices (and of input errors). */
static int phase_index(sar_t *s, const sar_msg_t *m, const int64_t *uk)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    sar_msg_t all[SAR_MAX_PES];
    if (m->err == 0) {
        for (int i = 1; i <= s->np; i++)
            gshmem_putmem(s->gidx + (size_t)s->me * s->p.nnz_max, uk,
                          (size_t)m->a * sizeof(int64_t), (s->me + i) % s->np);
    }
    for (int p = 0; p < s->np; p++)
        all[p] = *m;
    post(s, s->sym->idx_msg, all, &s->sym->sig_idx);
    h->want_idx += (uint64_t)s->np;
    int rc = wait_sig(s, &s->sym->sig_idx, h->want_idx, 0);
    if (rc != 0)
        return rc;
    sar_msg_t e;
    return first_error(s, s->sym->idx_msg, &e) != 0 ? sar_fail_msg(s, &e) : 0;
}

/* Phase 2: union of every PE's indices, output positions and indices. */
static int phase_union(sar_t *s, int64_t *U_p)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    int64_t n = s->p.n_rows, U = 0;
    memset(h->cnt, 0, (size_t)n * sizeof *h->cnt);
    for (int p = 0; p < s->np; p++) {
        const int64_t *g = s->gidx + (size_t)p * s->p.nnz_max;
        for (int64_t j = 0; j < s->sym->idx_msg[p].a; j++)
            h->cnt[g[j]]++;
    }
    for (int64_t k = 0; k < n; k++) {
        h->upos[k] = (int32_t)U;
        U += h->cnt[k] > 0;
    }
    if (U > s->p.out_cap) {
        sar_msg_t m = {.err = SAR_ERR_CAPACITY, .err_pos = -1, .err_val = U};
        return sar_fail_msg(s, &m);   /* every PE sees the same U: all stop here */
    }
    for (int64_t k = 0; k < n; k++)
        if (h->cnt[k] > 0)
            s->out_idx[h->upos[k]] = k;
    *U_p = U;
    return 0;
}

/* Phase 3: rows to owners (slots reserved by remote fetch-add) or, when no
 * other PE holds the index (SAR_ROUTE_DIRECT), into every PE's output. */
static void phase_send(sar_t *s, int64_t u, const int64_t *uk, const float *cv)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    int np = s->np, dim = s->p.dim;
    size_t row = (size_t)dim * sizeof(float);
    int64_t scnt[SAR_MAX_PES] = {0}, base[SAR_MAX_PES] = {0}, next[SAR_MAX_PES];
    sar_msg_t m[SAR_MAX_PES];
    for (int64_t j = 0; j < u; j++)
        if (s->p.route == SAR_ROUTE_OWNER || h->cnt[uk[j]] > 1)
            scnt[uk[j] / s->chunk]++;
    for (int q = 0; q < np; q++) {
        m[q] = (sar_msg_t){.epoch = s->epoch};
        if (scnt[q] > 0)
            base[q] = gshmem_int64_atomic_fetch_add(&s->sym->recv_ctr, scnt[q], q);
        if (base[q] + scnt[q] > s->p.recv_cap) {
            m[q] = (sar_msg_t){.epoch = s->epoch, .err = SAR_ERR_CAPACITY, .err_pe = q,
                               .err_pos = q, .err_val = base[q] + scnt[q]};
            scnt[q] = 0;   /* nothing is written past the area */
        }
        m[q].a = base[q];
        m[q].b = scnt[q];
        next[q] = base[q];
        if (q != s->me)
            s->stats.to_owner += scnt[q];
    }
    s->stats.exclusive = 0;
    for (int64_t j = 0; j < u; j++) {
        int64_t k = uk[j];
        int q = (int)(k / s->chunk);
        const float *src = cv + (size_t)j * dim;
        if (s->p.route == SAR_ROUTE_OWNER || h->cnt[k] > 1) {
            if (m[q].err != 0)
                continue;
            int64_t slot = next[q]++;
            gshmem_putmem(s->recv_val + (size_t)slot * dim, src, row, q);
            gshmem_putmem(s->recv_key + slot, &k, sizeof k, q);
        } else {
            s->stats.exclusive++;
            for (int i = 1; i <= np; i++)
                gshmem_putmem(s->out_val + (size_t)h->upos[k] * dim, src, row, (s->me + i) % np);
        }
    }
    post(s, s->sym->recv_msg, m, &s->sym->sig_recv);
}

/* Phase 4: the owner sums each index's rows in sender order and puts the
 * sum into every PE's output. */
static void phase_reduce(sar_t *s)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    int np = s->np, dim = s->p.dim;
    int64_t lo = (int64_t)s->me * s->chunk, R = 0;
    const sar_msg_t *seg = s->sym->recv_msg;
    float *sum = malloc((size_t)dim * sizeof *sum);
    for (int p = 0; p < np; p++)
        for (int64_t r = seg[p].a; r < seg[p].a + seg[p].b; r++)
            h->map[(size_t)p * s->chunk + (s->recv_key[r] - lo)] = (int32_t)r;
    for (int p = 0; p < np && sum != NULL; p++) {
        for (int64_t r = seg[p].a; r < seg[p].a + seg[p].b; r++) {
            int64_t l = s->recv_key[r] - lo;
            int first = 1;
            for (int q = 0; q < p; q++)
                first = first && h->map[(size_t)q * s->chunk + l] < 0;
            if (!first)
                continue;   /* a lower sender's row leads this index */
            memset(sum, 0, (size_t)dim * sizeof *sum);
            for (int q = p; q < np; q++) {
                int32_t rr = h->map[(size_t)q * s->chunk + l];
                for (int c = 0; rr >= 0 && c < dim; c++)
                    sum[c] += s->recv_val[(size_t)rr * dim + c];
            }
            R++;
            for (int i = 1; i <= np; i++)
                gshmem_putmem(s->out_val + (size_t)h->upos[lo + l] * dim, sum,
                              (size_t)dim * sizeof(float), (s->me + i) % np);
        }
    }
    for (int p = 0; p < np; p++)
        for (int64_t r = seg[p].a; r < seg[p].a + seg[p].b; r++)
            h->map[(size_t)p * s->chunk + (s->recv_key[r] - lo)] = -1;
    free(sum);
    s->stats.reduced = R;
}

int sar_host_run(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                 sar_result_t *res)
{
    sar_host_t *h = (sar_host_t *)s->gpu;
    if (h->broken)
        return sar_fail(s, SAR_ERR_TIMEOUT, "an earlier call timed out: the context is "
                        "unusable (PEs disagree on its signal counts)");
    s->epoch++;
    memset(&s->stats, 0, sizeof s->stats);
    int64_t *uk = NULL, u = 0, U = 0;
    float *cv = NULL;
    int rc = 0;
    /* A PE whose input is invalid still takes part in the index exchange,
     * which tells every PE to stop before any row is written. */
    sar_msg_t m = validate(s, idx, nnz);
    if (m.err == 0 && (rc = coalesce(s, idx, val, nnz, &uk, &cv, &u)) != 0)
        return rc;   /* out of host memory: the others time out, naming this PE */
    m.a = u;
    rc = phase_index(s, &m, uk);
    if (rc == 0)
        rc = phase_union(s, &U);
    if (rc != 0) {
        free(uk);
        free(cv);
        return rc;
    }
    phase_send(s, u, uk, cv);
    free(uk);
    free(cv);
    h->want_recv += (uint64_t)s->np;
    rc = wait_sig(s, &s->sym->sig_recv, h->want_recv, 1);
    if (rc != 0)
        return rc;
    sar_msg_t e, done[SAR_MAX_PES];
    int err = first_error(s, s->sym->recv_msg, &e);
    if (err == 0)
        phase_reduce(s);
    /* The owner's counter is reset before its done signal: no PE starts
     * its next call (and fetch-add) before it saw that signal. */
    __atomic_store_n(&s->sym->recv_ctr, 0, __ATOMIC_SEQ_CST);
    for (int p = 0; p < s->np; p++)
        done[p] = err != 0 ? e : (sar_msg_t){.epoch = s->epoch};
    for (int p = 0; p < s->np; p++)
        done[p].epoch = s->epoch;
    post(s, s->sym->done_msg, done, &s->sym->sig_done);
    h->want_done += (uint64_t)s->np;
    rc = wait_sig(s, &s->sym->sig_done, h->want_done, 2);
    if (rc != 0)
        return rc;
    if (first_error(s, s->sym->done_msg, &e) != 0)
        return sar_fail_msg(s, &e);
    s->stats.unique = u;
    s->stats.out_rows = U;
    s->stats.bytes_sent = (double)(s->np - 1) * (double)u * 8 +
                          (double)s->p.dim * 4 *
                              ((double)s->stats.to_owner +
                               (double)(s->np - 1) * (double)(s->stats.exclusive + s->stats.reduced));
    res->count = U;
    res->idx = s->out_idx;
    res->val = s->out_val;
    return 0;
}

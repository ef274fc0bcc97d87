/* dlrm_inputs.c: see dlrm_inputs.h. */
#include "dlrm_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void dlrm_inputs_gen(dlrm_inputs_t *in, const dlrm_case_t *c, uint32_t seed)
{
    memset(in, 0, sizeof *in);
    in->T = c->tables;
    in->B = c->batch;
    in->seed = seed;
    in->seeds = dlrm_seeds(seed);
    in->lmax = c->lmax;
    in->fixed = c->fixed_l;
    in->rows = c->rows;
}

int64_t dlrm_inputs_rows(const dlrm_inputs_t *in, int64_t t)
{
    return in->from_file ? in->rows_t[t] : in->rows;
}

int dlrm_inputs_lmax(const dlrm_inputs_t *in)
{
    return in->from_file ? in->lmax_seen : in->lmax;
}

/* ---- file ------------------------------------------------------------------ */

#define HDR_BYTES 24u   /* magic, version, T, B */

static int fail(char *why, size_t whylen, const char *path, const char *fmt, long long a,
                long long b, long long c)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a, b, c);
    snprintf(why, whylen, "%s: %s", path, msg);
    return -1;
}

/* Checks table t's offsets and indices. */
static int check_table(const dlrm_inputs_t *in, int64_t t, const char *path, char *why,
                       size_t whylen, int *lmax_p)
{
    const int64_t *o = in->off[t], *x = in->idx[t];
    if (o[0] != 0)
        return fail(why, whylen, path, "table %lld: offsets[0] = %lld, expected 0", t, o[0], 0);
    for (int64_t b = 0; b < in->B; b++) {
        int64_t len = o[b + 1] - o[b];
        if (len < 0)
            return fail(why, whylen, path, "table %lld: offsets decrease at sample %lld (%lld)",
                        t, b, o[b + 1]);
        if (len > *lmax_p)
            *lmax_p = len > 0x7fffffff ? 0x7fffffff : (int)len;
    }
    if (o[in->B] != in->nnz[t])
        return fail(why, whylen, path, "table %lld: offsets[B] = %lld, but nnz = %lld", t,
                    o[in->B], in->nnz[t]);
    for (int64_t k = 0; k < in->nnz[t]; k++)
        if (x[k] < 0 || x[k] >= in->rows_t[t])
            return fail(why, whylen, path, "table %lld: index %lld is %lld, outside the table",
                        t, k, x[k]);
    return 0;
}

/* Header and per-table sizes; sets the pointers into the mapping. */
static int parse_layout(dlrm_inputs_t *in, const unsigned char *m, const char *path, char *why,
                        size_t whylen)
{
    uint32_t version, T;
    uint64_t B;
    if (in->map_len < HDR_BYTES || memcmp(m, DLRM_FILE_MAGIC, 8) != 0)
        return fail(why, whylen, path, "not a GSDLRM01 file (magic or size: %lld bytes)",
                    (long long)in->map_len, 0, 0);
    memcpy(&version, m + 8, 4);
    memcpy(&T, m + 12, 4);
    memcpy(&B, m + 16, 8);
    if (version != DLRM_FILE_VERSION)
        return fail(why, whylen, path, "version %lld, expected %lld", version, DLRM_FILE_VERSION, 0);
    if (T == 0 || B == 0 || B > ((uint64_t)1 << 40))
        return fail(why, whylen, path, "T = %lld, B = %lld: both must be positive (B < 2^40)",
                    T, (long long)B, 0);
    uint64_t pos = HDR_BYTES + 16ull * T;
    if (pos > in->map_len)
        return fail(why, whylen, path, "%lld bytes: too short for %lld table headers",
                    (long long)in->map_len, T, 0);
    in->T = T;
    in->B = (int64_t)B;
    in->rows_t = calloc(T, sizeof(int64_t));
    in->nnz = calloc(T, sizeof(int64_t));
    in->off = calloc(T, sizeof(int64_t *));
    in->idx = calloc(T, sizeof(int64_t *));
    if (!in->rows_t || !in->nnz || !in->off || !in->idx)
        return fail(why, whylen, path, "out of memory for %lld tables", T, 0, 0);
    for (uint32_t t = 0; t < T; t++) {
        uint64_t rows, nnz;
        memcpy(&rows, m + HDR_BYTES + 16ull * t, 8);
        memcpy(&nnz, m + HDR_BYTES + 16ull * t + 8, 8);
        if (rows == 0 || rows > ((uint64_t)1 << 40) || nnz > ((uint64_t)1 << 40))
            return fail(why, whylen, path, "table %lld: rows %lld, nnz %lld out of range", t,
                        (long long)rows, (long long)nnz);
        uint64_t need = 8ull * (B + 1 + nnz);
        if (pos + need > in->map_len)
            return fail(why, whylen, path, "table %lld: data ends at byte %lld, beyond the file "
                        "(%lld bytes)", t, (long long)(pos + need), (long long)in->map_len);
        in->rows_t[t] = (int64_t)rows;
        in->nnz[t] = (int64_t)nnz;
        in->off[t] = (const int64_t *)(m + pos);
        in->idx[t] = (const int64_t *)(m + pos + 8ull * (B + 1));
        pos += need;
    }
    if (pos != in->map_len)
        return fail(why, whylen, path, "%lld bytes left over after the last table (file of %lld)",
                    (long long)(in->map_len - pos), (long long)in->map_len, 0);
    return 0;
}

int dlrm_inputs_open(dlrm_inputs_t *in, const char *path, char *why, size_t whylen)
{
    uint32_t seed = in->seed;   /* the caller may have set the weights' seed */
    memset(in, 0, sizeof *in);
    in->seed = seed;
    in->seeds = dlrm_seeds(seed);
    in->from_file = 1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(why, whylen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        snprintf(why, whylen, "%s: empty or unreadable", path);
        close(fd);
        return -1;
    }
    in->map_len = (size_t)st.st_size;
    in->map = mmap(NULL, in->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (in->map == MAP_FAILED) {
        in->map = NULL;
        snprintf(why, whylen, "%s: mmap failed: %s", path, strerror(errno));
        return -1;
    }
    if ((uintptr_t)in->map % 8 != 0 ||
        parse_layout(in, (const unsigned char *)in->map, path, why, whylen) != 0)
        goto bad;
    for (int64_t t = 0; t < in->T; t++)
        if (check_table(in, t, path, why, whylen, &in->lmax_seen) != 0)
            goto bad;
    in->lmax = in->lmax_seen;
    return 0;
bad:
    dlrm_inputs_close(in);
    return -1;
}

void dlrm_inputs_close(dlrm_inputs_t *in)
{
    if (in->map != NULL)
        munmap(in->map, in->map_len);
    free(in->rows_t);
    free(in->nnz);
    free((void *)in->off);
    free((void *)in->idx);
    uint32_t seed = in->seed;
    memset(in, 0, sizeof *in);
    in->seed = seed;
}

/* Bag lengths of table t (len[B]); returns nnz. */
static int64_t table_lengths(const dlrm_inputs_t *in, int64_t t, int64_t *len)
{
    int64_t nnz = 0;
    for (int64_t b = 0; b < in->B; b++) {
        len[b] = in->from_file ? in->off[t][b + 1] - in->off[t][b]
                               : dlrm_gen_len(in->seeds, t, b, in->lmax, in->fixed);
        nnz += len[b];
    }
    return nnz;
}

static int64_t table_index(const dlrm_inputs_t *in, int64_t t, int64_t k)
{
    return in->from_file ? in->idx[t][k] : dlrm_gen_idx(in->seeds, t, k, in->rows);
}

int dlrm_inputs_write(const dlrm_inputs_t *in, const char *path, char *why, size_t whylen)
{
    int64_t *len = malloc(sizeof(int64_t) * (size_t)(in->B + 1));
    int64_t *nnz = malloc(sizeof(int64_t) * (size_t)in->T);
    FILE *f = fopen(path, "wb");
    int rc = -1;
    if (len == NULL || nnz == NULL || f == NULL) {
        snprintf(why, whylen, "%s: %s", path, f == NULL ? strerror(errno) : "out of memory");
        goto out;
    }
    uint32_t version = DLRM_FILE_VERSION, T = (uint32_t)in->T;
    uint64_t B = (uint64_t)in->B;
    int ok = fwrite(DLRM_FILE_MAGIC, 1, 8, f) == 8 && fwrite(&version, 4, 1, f) == 1 &&
             fwrite(&T, 4, 1, f) == 1 && fwrite(&B, 8, 1, f) == 1;
    for (int64_t t = 0; ok && t < in->T; t++) {
        uint64_t h[2] = {(uint64_t)dlrm_inputs_rows(in, t), 0};
        nnz[t] = table_lengths(in, t, len);
        h[1] = (uint64_t)nnz[t];
        ok = fwrite(h, 8, 2, f) == 2;
    }
    for (int64_t t = 0; ok && t < in->T; t++) {
        int64_t k = 0;
        table_lengths(in, t, len);
        for (int64_t b = 0; ok && b <= in->B; b++) {
            ok = fwrite(&k, 8, 1, f) == 1;
            k += b < in->B ? len[b] : 0;
        }
        for (int64_t j = 0; ok && j < nnz[t]; j++) {
            int64_t r = table_index(in, t, j);
            ok = fwrite(&r, 8, 1, f) == 1;
        }
    }
    if (!ok) {
        snprintf(why, whylen, "%s: write failed: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (f != NULL && fclose(f) != 0 && rc == 0) {
        snprintf(why, whylen, "%s: close failed: %s", path, strerror(errno));
        rc = -1;
    }
    free(len);
    free(nnz);
    return rc;
}

/* ---- local CSR ------------------------------------------------------------- */

int dlrm_local_build(dlrm_local_t *l, const dlrm_inputs_t *in, int64_t t0, int64_t tn,
                     char *why, size_t whylen)
{
    int64_t pos = 0;
    memset(l, 0, sizeof *l);
    l->tn = tn;
    l->B = in->B;
    l->off = malloc(sizeof(int64_t) * (size_t)(tn * (in->B + 1)));
    l->wrow = malloc(sizeof(int64_t) * (size_t)(tn + 1));
    int64_t *len = malloc(sizeof(int64_t) * (size_t)(in->B + 1));
    if (l->off == NULL || l->wrow == NULL || len == NULL)
        goto nomem;
    l->wrow[0] = 0;
    for (int64_t t = 0; t < tn; t++) {
        int64_t *o = l->off + t * (in->B + 1);
        table_lengths(in, t0 + t, len);
        for (int64_t b = 0; b < in->B; b++) {
            o[b] = pos;
            pos += len[b];
        }
        o[in->B] = pos;
        l->wrow[t + 1] = l->wrow[t] + dlrm_inputs_rows(in, t0 + t);
    }
    l->nnz = pos;
    l->idx = malloc(sizeof(int64_t) * (size_t)(pos > 0 ? pos : 1));
    if (l->idx == NULL)
        goto nomem;
    for (int64_t t = 0; t < tn; t++) {
        const int64_t *o = l->off + t * (in->B + 1);
        for (int64_t k = 0; k < o[in->B] - o[0]; k++)
            l->idx[o[0] + k] = table_index(in, t0 + t, k);
    }
    free(len);
    return 0;
nomem:
    snprintf(why, whylen, "out of host memory for the local inputs of %lld tables "
             "(%lld indices)", (long long)tn, (long long)pos);
    free(len);
    dlrm_local_free(l);
    return -1;
}

void dlrm_local_free(dlrm_local_t *l)
{
    free(l->off);
    free(l->idx);
    free(l->wrow);
    memset(l, 0, sizeof *l);
}

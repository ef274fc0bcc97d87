/* app_nccl.c: see app_nccl.h. NCCL is reached through dlopen/dlsym; the
 * types below mirror nccl.h's C ABI (enums as int, the unique id as 128
 * bytes passed by value, communicators and streams as opaque pointers). */
#include "app_nccl.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_stats.h"
#include "gshmem.h"

enum { NCCL_ID_BYTES = 128, NCCL_UINT8 = 1, NCCL_FLOAT32 = 7, NCCL_SUM = 0 };
typedef struct { char internal[NCCL_ID_BYTES]; } nccl_id_t;
typedef void *nccl_comm_t;

struct app_nccl {
    void *lib;
    nccl_comm_t comm;
    int version;
    int (*get_unique_id)(nccl_id_t *);
    int (*comm_init_rank)(nccl_comm_t *, int, nccl_id_t, int);
    int (*comm_destroy)(nccl_comm_t);
    int (*get_version)(int *);
    const char *(*error_string)(int);
    int (*all_reduce)(const void *, void *, size_t, int, int, nccl_comm_t, void *);
    int (*all_gather)(const void *, void *, size_t, int, nccl_comm_t, void *);
    int (*send)(const void *, size_t, int, int, nccl_comm_t, void *);
    int (*recv)(void *, size_t, int, int, nccl_comm_t, void *);
    int (*group_start)(void);
    int (*group_end)(void);
};

/* dlopen of the NCCL library (GSHMEM_NCCL_LIB or libnccl.so.2), or NULL with
 * the reason in why; *file_out names the file tried. */
static void *nccl_open(const char **file_out, char *why, size_t whylen)
{
    const char *file = getenv("GSHMEM_NCCL_LIB");
    if (file == NULL || *file == '\0')
        file = "libnccl.so.2";
    *file_out = file;
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        snprintf(why, whylen, "cannot load NCCL (%s; set GSHMEM_NCCL_LIB or LD_LIBRARY_PATH): %s",
                 file, dlerror());
    return lib;
}

int app_nccl_available(char *why, size_t whylen)
{
    const char *file;
    void *lib = nccl_open(&file, why, whylen);
    if (lib == NULL)
        return 0;
    dlclose(lib);
    return 1;
}

/* Loads the library and every symbol; 0, or -1 with the reason in why. */
static int nccl_load(struct app_nccl *nc, char *why, size_t whylen)
{
    const char *file;
    nc->lib = nccl_open(&file, why, whylen);
    if (nc->lib == NULL)
        return -1;
    struct { const char *name; void **fn; } syms[] = {
        {"ncclGetUniqueId", (void **)&nc->get_unique_id},
        {"ncclCommInitRank", (void **)&nc->comm_init_rank},
        {"ncclCommDestroy", (void **)&nc->comm_destroy},
        {"ncclGetVersion", (void **)&nc->get_version},
        {"ncclGetErrorString", (void **)&nc->error_string},
        {"ncclAllReduce", (void **)&nc->all_reduce},
        {"ncclAllGather", (void **)&nc->all_gather},
        {"ncclSend", (void **)&nc->send},
        {"ncclRecv", (void **)&nc->recv},
        {"ncclGroupStart", (void **)&nc->group_start},
        {"ncclGroupEnd", (void **)&nc->group_end},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(nc->lib, syms[i].name);
        if (*syms[i].fn == NULL) {
            snprintf(why, whylen, "%s has no symbol %s", file, syms[i].name);
            return -1;
        }
    }
    if (nc->get_version(&nc->version) != 0)
        nc->version = 0;
    return 0;
}

static int nccl_check(const app_nccl_t *nc, const char *call, int rc)
{
    if (rc == 0)
        return 0;
    fprintf(stderr, "gshmem apps: PE %d: %s failed: %s (%d)\n", gshmem_my_pe(), call,
            nc->error_string(rc), rc);
    return -1;
}

/* Every PE learns whether all PEs got this far; ok is this PE's verdict. */
static int all_ok(int ok)
{
    int n = gshmem_n_pes(), all[n > 0 ? n : 1], res = 1;
    if (app_allgather_host(all, &ok, sizeof ok) != 0)
        return 0;
    for (int p = 0; p < n; p++)
        res = res && all[p];
    return res;
}

int app_nccl_init(app_nccl_t **out, char *why, size_t whylen)
{
    struct app_nccl *nc = calloc(1, sizeof *nc);
    char mine[256] = "";
    int ok = nc != NULL && nccl_load(nc, mine, sizeof mine) == 0;
    if (nc == NULL)
        snprintf(mine, sizeof mine, "out of memory");

    *out = NULL;
    if (!all_ok(ok)) {
        if (ok)
            snprintf(why, whylen, "NCCL is unavailable on another PE");
        else
            snprintf(why, whylen, "PE %d: %s", gshmem_my_pe(), mine);
        app_nccl_fini(nc);
        return -1;
    }
    /* PE 0's unique id reaches every PE through the symmetric heap. */
    nccl_id_t id, ids[gshmem_n_pes()];
    memset(&id, 0, sizeof id);
    ok = gshmem_my_pe() != 0 || nccl_check(nc, "ncclGetUniqueId", nc->get_unique_id(&id)) == 0;
    if (app_allgather_host(ids, &id, sizeof id) != 0 || !all_ok(ok)) {
        snprintf(why, whylen, "ncclGetUniqueId failed on PE 0");
        app_nccl_fini(nc);
        return -1;
    }
    ok = nccl_check(nc, "ncclCommInitRank",
                    nc->comm_init_rank(&nc->comm, gshmem_n_pes(), ids[0], gshmem_my_pe())) == 0;
    if (!all_ok(ok)) {
        snprintf(why, whylen, "ncclCommInitRank failed on %s",
                 ok ? "another PE" : "this PE");
        if (ok)
            nc->comm_destroy(nc->comm);
        nc->comm = NULL;
        app_nccl_fini(nc);
        return -1;
    }
    *out = nc;
    return 0;
}

void app_nccl_fini(app_nccl_t *nc)
{
    if (nc == NULL)
        return;
    if (nc->comm != NULL)
        nc->comm_destroy(nc->comm);
    if (nc->lib != NULL)
        dlclose(nc->lib);
    free(nc);
}

int app_nccl_version(const app_nccl_t *nc)
{
    return nc != NULL ? nc->version : 0;
}

int app_nccl_alltoallv(app_nccl_t *nc, const void *send, const size_t *send_bytes,
                       const size_t *send_off, void *recv, const size_t *recv_bytes,
                       const size_t *recv_off, void *stream)
{
    int n = gshmem_n_pes(), rc = nc->group_start();
    for (int p = 0; rc == 0 && p < n; p++) {
        if (send_bytes[p] > 0)
            rc = nc->send((const char *)send + send_off[p], send_bytes[p], NCCL_UINT8, p,
                          nc->comm, stream);
        if (rc == 0 && recv_bytes[p] > 0)
            rc = nc->recv((char *)recv + recv_off[p], recv_bytes[p], NCCL_UINT8, p, nc->comm,
                          stream);
    }
    int end = nc->group_end();   /* always closes the group */
    return nccl_check(nc, "NCCL all-to-all (grouped send/recv)", rc != 0 ? rc : end);
}

int app_nccl_alltoall(app_nccl_t *nc, const void *send, void *recv, size_t bytes_per_pe,
                      void *stream)
{
    int n = gshmem_n_pes();
    size_t bytes[n], off[n];
    for (int p = 0; p < n; p++) {
        bytes[p] = bytes_per_pe;
        off[p] = (size_t)p * bytes_per_pe;
    }
    return app_nccl_alltoallv(nc, send, bytes, off, recv, bytes, off, stream);
}

int app_nccl_allreduce_f32(app_nccl_t *nc, const float *send, float *recv, size_t count,
                           void *stream)
{
    return nccl_check(nc, "ncclAllReduce",
                      nc->all_reduce(send, recv, count, NCCL_FLOAT32, NCCL_SUM, nc->comm,
                                     stream));
}

int app_nccl_allgather(app_nccl_t *nc, const void *send, void *recv, size_t bytes_per_pe,
                       void *stream)
{
    return nccl_check(nc, "ncclAllGather",
                      nc->all_gather(send, recv, bytes_per_pe, NCCL_UINT8, nc->comm, stream));
}

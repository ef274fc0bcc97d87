/* nvshmem.c: what NVSHMEM's names need beyond a rename (include/nvshmem.h):
 * init and finalize as NVSHMEM does them (its environment variables read,
 * an init that joins a runtime already started through shmem.h), the
 * device state copied into modules the program loaded itself
 * (nvshmemx_cumodule_init), and the refusal of a user buffer mapped into
 * the heap. Exported under gshmemx_nvshmem_* so that a process holding
 * both libraries never binds one's names to the other. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/gshmemi.h"
#include "api/core/device_state.h"
#include "gshmem/nvshmem_compat.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda.h>
#include <cuda_runtime_api.h>
#endif

/* ---- environment --------------------------------------------------------- */

/* NVSHMEM settings with a gshmem equivalent: the GSHMEM_ one is set from it
 * unless the user set that too (GSHMEM_ wins). Values that differ in
 * spelling are translated by gshmemi_nv_value. */
static const struct {
    const char *nv, *gs;
} gshmemi_nv_env_map[] = {
    {"NVSHMEM_SYMMETRIC_SIZE", "GSHMEM_SYMMETRIC_SIZE"},
    {"NVSHMEM_DEBUG", "GSHMEM_DEBUG"},
    {"NVSHMEM_DISABLE_P2P", "GSHMEM_DISABLE_P2P"},
    {"NVSHMEM_BOOTSTRAP", "GSHMEM_BOOTSTRAP"},
    {"NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "GSHMEM_BOOTSTRAP_UID_IFACE"},
};

/* NVSHMEM library settings (prefixes) that have no gshmem equivalent. The
 * program's own NVSHMEM_* variables (its perftests read a few) are not
 * named: only these are reported as ignored. */
static const char *const gshmemi_nv_env_ignored[] = {
    "NVSHMEM_REMOTE_TRANSPORT", "NVSHMEM_IB_", "NVSHMEM_IBGDA_", "NVSHMEM_UCX_",
    "NVSHMEM_LIBFABRIC_", "NVSHMEM_HCA_", "NVSHMEM_ENABLE_NIC_PE_MAPPING", "NVSHMEM_CUMEM_",
    "NVSHMEM_DISABLE_CUDA_VMM", "NVSHMEM_MAX_TEAMS", "NVSHMEM_NVTX", "NVSHMEM_DISABLE_NVLS",
    "NVSHMEM_BOOTSTRAP_PMI", "NVSHMEM_BOOTSTRAP_PLUGIN", "NVSHMEM_BOOTSTRAP_MPI_PLUGIN",
    "NVSHMEM_BOOTSTRAP_SHMEM_PLUGIN", "NVSHMEM_BOOTSTRAP_PMIX_PLUGIN", "NVSHMEM_MAX_P2P_GPUS",
    "NVSHMEM_DISABLE_GDRCOPY", "NVSHMEM_CUDA_LIMIT_STACK_SIZE", "NVSHMEM_INFO",
    "NVSHMEM_ENABLE_ERROR_CHECKS",
};

/* gshmem's heap holds the runtime's own areas too (the device barrier and
 * team areas, the collectives' scratch: under 2 MiB today); NVSHMEM's
 * NVSHMEM_SYMMETRIC_SIZE is what the program may allocate (its perftests
 * ask for exactly what they nvshmem_malloc): the heap gets this much more. */
#define GSHMEMI_NV_HEAP_HEADROOM (32ull << 20)

/* NVSHMEM_SYMMETRIC_SIZE (digits, an optional K, M, G or T of 1024s) plus
 * the headroom, in bytes, into buf; NULL when it does not parse. */
static const char *gshmemi_nv_heap_size(const char *v, char *buf, size_t len)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10), unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1ull << 10; end++; break;
    case 'm': case 'M': unit = 1ull << 20; end++; break;
    case 'g': case 'G': unit = 1ull << 30; end++; break;
    case 't': case 'T': unit = 1ull << 40; end++; break;
    }
    if (end == v || *end != '\0' || n > (~0ull - GSHMEMI_NV_HEAP_HEADROOM) / unit)
        return NULL;
    snprintf(buf, len, "%llu", n * unit + GSHMEMI_NV_HEAP_HEADROOM);
    return buf;
}

/* An NVSHMEM value in gshmem's spelling (buf: room for it), or NULL when it
 * has none. */
static const char *gshmemi_nv_value(const char *gs, const char *v, char *buf, size_t len)
{
    if (strcmp(gs, "GSHMEM_SYMMETRIC_SIZE") == 0)
        return gshmemi_nv_heap_size(v, buf, len);
    if (strcmp(gs, "GSHMEM_DEBUG") == 0) {
        /* NVSHMEM: VERSION, WARN, INFO, ABORT, TRACE */
        if (strcasecmp(v, "WARN") == 0 || strcasecmp(v, "INFO") == 0 ||
            strcasecmp(v, "TRACE") == 0)
            return v;
        return strcasecmp(v, "VERSION") == 0 || strcasecmp(v, "ABORT") == 0 ? "INFO" : NULL;
    }
    if (strcmp(gs, "GSHMEM_BOOTSTRAP") == 0) {
        /* NVSHMEM: PMI (PMI-1, -2 or PMIx), MPI, SHMEM, UID, plugin */
        if (strcasecmp(v, "MPI") == 0)
            return "mpi";
        if (strcasecmp(v, "PMI") == 0 || strcasecmp(v, "PMIX") == 0)
            return "pmix";
        if (strcasecmp(v, "UID") == 0)
            return "uid";
        return NULL;
    }
    return v;
}

static void gshmemi_nv_env(void)
{
    extern char **environ;
    char ignored[512] = "";
    size_t used = 0;

    for (size_t i = 0; i < sizeof gshmemi_nv_env_map / sizeof gshmemi_nv_env_map[0]; i++) {
        const char *v = getenv(gshmemi_nv_env_map[i].nv);
        if (v == NULL || getenv(gshmemi_nv_env_map[i].gs) != NULL)
            continue;
        char buf[32];
        const char *g = gshmemi_nv_value(gshmemi_nv_env_map[i].gs, v, buf, sizeof buf);
        if (g == NULL) {
            GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "%s=%s has no gshmem equivalent: ignored (set "
                         "%s instead; README, \"Porting from NVSHMEM\")",
                         gshmemi_nv_env_map[i].nv, v, gshmemi_nv_env_map[i].gs);
            continue;
        }
        setenv(gshmemi_nv_env_map[i].gs, g, 0);
        GSHMEMI_INFO(GSHMEMI_SUBSYS_INIT, "%s=%s read as %s=%s", gshmemi_nv_env_map[i].nv, v,
                     gshmemi_nv_env_map[i].gs, g);
    }
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        for (size_t i = 0; i < sizeof gshmemi_nv_env_ignored / sizeof *gshmemi_nv_env_ignored;
             i++) {
            size_t n = strlen(gshmemi_nv_env_ignored[i]);
            if (strncmp(*e, gshmemi_nv_env_ignored[i], n) != 0)
                continue;
            size_t len = strcspn(*e, "=");
            if (used + len + 3 < sizeof ignored)
                used += (size_t)snprintf(ignored + used, sizeof ignored - used, "%s%.*s",
                                         used ? ", " : "", (int)len, *e);
            break;
        }
    }
    if (used > 0)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_INIT, "NVSHMEM settings with no gshmem equivalent, "
                     "ignored: %s (gshmem's are GSHMEM_*: gshmem-info or README, \"Settings\")",
                     ignored);
}

/* ---- init and finalize ------------------------------------------------------ */

/* 1 while the runtime this process uses was started by someone else (an
 * OpenSHMEM shmem_init before nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM)):
 * nvshmem_finalize then leaves it to its owner's shmem_finalize. */
static int gshmemi_nv_joined;
static pthread_mutex_t gshmemi_nv_lock = PTHREAD_MUTEX_INITIALIZER;

int gshmemx_nvshmem_init_attr(unsigned flags, const gshmem_init_attr_t *attr)
{
    int rc;

    pthread_mutex_lock(&gshmemi_nv_lock);
    if (flags & GSHMEMI_NV_INIT_WITH_SHMEM) {
        flags &= ~GSHMEMI_NV_INIT_WITH_SHMEM;
        if (flags != 0) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_init_attr: NVSHMEMX_INIT_WITH_SHMEM "
                          "with other flags (0x%x): it takes none", flags);
            pthread_mutex_unlock(&gshmemi_nv_lock);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if (gshmem_initialized()) {
            gshmemi_nv_joined = 1;
            pthread_mutex_unlock(&gshmemi_nv_lock);
            return GSHMEM_SUCCESS;
        }
    }
    gshmemi_nv_env();
    rc = flags == 0 ? gshmem_init() : gshmem_init_attr(flags, attr);
    pthread_mutex_unlock(&gshmemi_nv_lock);
    return rc;
}

void gshmemx_nvshmem_finalize(void)
{
    pthread_mutex_lock(&gshmemi_nv_lock);
    int joined = gshmemi_nv_joined;
    gshmemi_nv_joined = 0;
    pthread_mutex_unlock(&gshmemi_nv_lock);
    if (!joined)
        gshmem_finalize();
}

/* ---- modules the program loaded (cuModuleLoad) -------------------------------- */

#if defined(GSHMEM_HAVE_CUDA)
#define GSHMEMI_NV_MODULES 64

typedef CUresult (*gshmemi_nv_get_global_fn)(CUdeviceptr *, size_t *, CUmodule, const char *);

static struct {
    CUmodule module;
    CUdeviceptr state;   /* its copy of gshmemi_dstate */
} gshmemi_nv_mod[GSHMEMI_NV_MODULES];
static int gshmemi_nv_n_mod;

/* The device state callback of every module (device_state.c calls it at
 * registration and at each publish). */
static int gshmemi_nv_modules_sync(const gshmemi_dev_state_t *s)
{
    int e = 0;
    pthread_mutex_lock(&gshmemi_nv_lock);
    for (int i = 0; i < gshmemi_nv_n_mod && e == 0; i++)
        e = (int)cudaMemcpy((void *)(uintptr_t)gshmemi_nv_mod[i].state, s, sizeof *s,
                            cudaMemcpyHostToDevice);
    pthread_mutex_unlock(&gshmemi_nv_lock);
    return e;
}

static gshmemi_nv_get_global_fn gshmemi_nv_get_global(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    /* the driver's entry point through the runtime: libgshmem does not
     * link libcuda */
    if (cudaGetDriverEntryPointByVersion("cuModuleGetGlobal", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
        return NULL;
    return (gshmemi_nv_get_global_fn)fn;
}
#endif

int gshmemx_cumodule_init(void *module)
{
#if defined(GSHMEM_HAVE_CUDA)
    gshmemi_nv_get_global_fn get = gshmemi_nv_get_global();
    CUdeviceptr p = 0;
    size_t bytes = 0;

    if (get == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_init: no cuModuleGetGlobal in "
                      "the CUDA driver");
        return GSHMEM_ERR_CUDA;
    }
    if (get(&p, &bytes, (CUmodule)module, "gshmemi_dstate") != CUDA_SUCCESS &&
        get(&p, &bytes, (CUmodule)module, "_ZL14gshmemi_dstate") != CUDA_SUCCESS) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_init: module %p has no gshmem "
                      "device state: was it compiled with nvshmem.h or gshmem_device.h?",
                      module);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (bytes != sizeof(gshmemi_dev_state_t)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_init: module %p's device state "
                      "is %zu bytes, this library's %zu: rebuild the module", module, bytes,
                      sizeof(gshmemi_dev_state_t));
        return GSHMEM_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&gshmemi_nv_lock);
    if (gshmemi_nv_n_mod == GSHMEMI_NV_MODULES) {
        pthread_mutex_unlock(&gshmemi_nv_lock);
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_init: more than %d modules",
                      GSHMEMI_NV_MODULES);
        return GSHMEM_ERR_NOMEM;
    }
    gshmemi_nv_mod[gshmemi_nv_n_mod].module = (CUmodule)module;
    gshmemi_nv_mod[gshmemi_nv_n_mod++].state = p;
    pthread_mutex_unlock(&gshmemi_nv_lock);
    /* registering copies a published state at once, to every module so
     * far (the callback's list): registered again for each new module */
    gshmemx_device_state_unregister(gshmemi_nv_modules_sync);
    return gshmemx_device_state_register(gshmemi_nv_modules_sync);
#else
    (void)module;
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_init: gshmem was built without CUDA");
    return GSHMEM_ERR_NO_DEVICE;
#endif
}

int gshmemx_cumodule_finalize(void *module)
{
#if defined(GSHMEM_HAVE_CUDA)
    pthread_mutex_lock(&gshmemi_nv_lock);
    for (int i = 0; i < gshmemi_nv_n_mod; i++)
        if (gshmemi_nv_mod[i].module == (CUmodule)module) {
            gshmemi_nv_mod[i] = gshmemi_nv_mod[--gshmemi_nv_n_mod];
            pthread_mutex_unlock(&gshmemi_nv_lock);
            return GSHMEM_SUCCESS;
        }
    pthread_mutex_unlock(&gshmemi_nv_lock);
#endif
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_INIT, "nvshmemx_cumodule_finalize: module %p was not "
                  "initialized by nvshmemx_cumodule_init", module);
    return GSHMEM_ERR_INVALID_ARG;
}

/* ---- a user's buffer mapped into the heap ----------------------------------- */

void *gshmemx_buffer_register_symmetric(void *buf, size_t size, int flags)
{
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "nvshmemx_buffer_register_symmetric(%p, %zu, %d): not "
                  "supported: gshmem's symmetric heap is one allocation per PE and cannot "
                  "take in a user's memory; allocate with nvshmem_malloc (or register the "
                  "buffer for local use with nvshmemx_buffer_register)", buf, size, flags);
    return NULL;
}

int gshmemx_buffer_unregister_symmetric(void *ptr, size_t size)
{
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "nvshmemx_buffer_unregister_symmetric(%p, %zu): no "
                  "buffer is registered (nvshmemx_buffer_register_symmetric is not supported)",
                  ptr, size);
    return GSHMEM_ERR_NOT_SUPPORTED;
}

/* nvshmem.h: NVSHMEM's API on gshmem, so that NVSHMEM programs build
 * unchanged against gshmem (as shmem.h does for OpenSHMEM programs): link
 * -lgshmem, no -rdc, no static device library. nvshmemx.h includes this.
 *
 * - Every gshmem function whose NVSHMEM namesake means the same is that
 *   name (gshmem/nvshmem_names.h, generated from gshmem's headers):
 *   nvshmem_<x> is gshmem_<x>, nvshmemx_<x> gshmemx_<x>, host and device
 *   alike. The few that differ are below.
 * - A name gshmem cannot honour stops the compilation with a message that
 *   says why (GSHMEMI_NV_REFUSED); a name gshmem lacks is undeclared.
 * - Differences: the comparison constants have OpenSHMEM's values
 *   (NVSHMEM_CMP_GE is 3, not 5: use the names); failures return negative
 *   gshmem_status_t values (NVSHMEMX_SUCCESS is 0 in both);
 *   nvshmemx_mc_ptr returns NULL (gshmem does not use NVLink multicast);
 *   nvshmemx_buffer_register_symmetric is refused at run time (the heap
 *   cannot take in a user's allocation); the launcher is gshmemrun, mpirun
 *   or srun; NVSHMEM's settings with a gshmem equivalent are read at init
 *   (README, "Porting from NVSHMEM"). */
#ifndef GSHMEM_NVSHMEM_H
#define GSHMEM_NVSHMEM_H

#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <cuda.h>           /* NVSHMEM's headers include both CUDA APIs; */
#include <cuda_runtime.h>   /* programs rely on that */
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "gshmem_device.h"
#else
#include "gshmem.h"
#endif
#include "gshmemx.h"
#include "gshmem/nvshmem_compat.h"
#include "gshmem/nvshmem_names.h"

#if defined(__CUDACC__)
#define GSHMEMI_NV_HD __host__ __device__
#else
#define GSHMEMI_NV_HD
#endif

/* A name that gshmem cannot honour: using it is a compile error saying why. */
#define GSHMEMI_NV_PRAGMA(x) _Pragma(#x)
#define GSHMEMI_NV_REFUSED(msg) GSHMEMI_NV_PRAGMA(GCC error msg) 0

/* ---- versions: the OpenSHMEM level NVSHMEM claims, and the NVSHMEM
 * release whose API this follows (its examples and perftests pass) ---- */
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 5
#define NVSHMEM_VENDOR_PATCH_VERSION 1
#define NVSHMEM_VENDOR_VERSION                                                      \
    ((NVSHMEM_VENDOR_MAJOR_VERSION) * 10000 + (NVSHMEM_VENDOR_MINOR_VERSION) * 100 + \
     (NVSHMEM_VENDOR_PATCH_VERSION))
#define NVSHMEM_VENDOR_STRING "gshmem (NVSHMEM 3.5 API)"
#define NVSHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN
#define GSHMEM_NVSHMEM_COMPAT 1   /* a program may ask which library it has */

/* ---- types and constants ------------------------------------------------ */
typedef gshmem_team_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
typedef gshmem_team_config_t nvshmem_team_config_t;
typedef gshmem_init_attr_t nvshmemx_init_attr_t;
typedef gshmem_uniqueid_t nvshmemx_uniqueid_t;

#define NVSHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define NVSHMEMX_TEAM_NODE GSHMEM_TEAM_NODE
#define NVSHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
#define NVSHMEMX_TEAM_SAME_MYPE_NODE                                                \
    GSHMEMI_NV_REFUSED("NVSHMEMX_TEAM_SAME_MYPE_NODE: no such team in gshmem: split NVSHMEM_TEAM_WORLD")
#define NVSHMEM_TEAM_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

#define NVSHMEM_CMP_EQ GSHMEM_CMP_EQ
#define NVSHMEM_CMP_NE GSHMEM_CMP_NE
#define NVSHMEM_CMP_GT GSHMEM_CMP_GT
#define NVSHMEM_CMP_GE GSHMEM_CMP_GE
#define NVSHMEM_CMP_LT GSHMEM_CMP_LT
#define NVSHMEM_CMP_LE GSHMEM_CMP_LE
#define NVSHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define NVSHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD

#define NVSHMEM_THREAD_SINGLE GSHMEM_THREAD_SINGLE
#define NVSHMEM_THREAD_FUNNELED GSHMEM_THREAD_FUNNELED
#define NVSHMEM_THREAD_SERIALIZED GSHMEM_THREAD_SERIALIZED
#define NVSHMEM_THREAD_MULTIPLE GSHMEM_THREAD_MULTIPLE

/* NVSHMEM's status codes. gshmem's calls return 0 or a negative
 * gshmem_status_t (gshmem_strerror names it), never these positive ones. */
enum {
    NVSHMEMX_SUCCESS = 0,
    NVSHMEMX_ERROR_INVALID_VALUE,
    NVSHMEMX_ERROR_OUT_OF_MEMORY,
    NVSHMEMX_ERROR_NOT_SUPPORTED,
    NVSHMEMX_ERROR_SYMMETRY,
    NVSHMEMX_ERROR_GPU_NOT_SELECTED,
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
    NVSHMEMX_ERROR_INTERNAL
};
enum {
    NVSHMEM_STATUS_NOT_INITIALIZED = 0,
    NVSHMEM_STATUS_IS_BOOTSTRAPPED,
    NVSHMEM_STATUS_IS_INITIALIZED
};

#define NVSHMEMX_INIT_THREAD_PES 1   /* NVSHMEM's default bootstrap: the launcher's */
#define NVSHMEMX_INIT_WITH_MPI_COMM GSHMEM_INIT_WITH_MPI_COMM
#define NVSHMEMX_INIT_WITH_UNIQUEID GSHMEM_INIT_WITH_UNIQUEID
#define NVSHMEMX_INIT_WITH_SHMEM GSHMEMI_NV_INIT_WITH_SHMEM
#define NVSHMEMX_INIT_ATTR_INITIALIZER {sizeof(gshmem_init_attr_t), NULL, 0, 0, {{0}}}
#define NVSHMEMX_UNIQUEID_INITIALIZER {{0}}

/* ---- init and finalize ---------------------------------------------------- */
/* As NVSHMEM's: a failure of nvshmem_init ends the program (after the cause
 * is logged); the others return it. */
static inline void nvshmem_init(void)
{
    int rc = gshmemx_nvshmem_init_attr(0, NULL);
    if (rc != 0) {
        fprintf(stderr, "nvshmem_init: gshmem_init failed: %s\n", gshmem_strerror(rc));
        exit(1);
    }
}
static inline int nvshmem_init_thread(int requested, int *provided)
{
    (void)requested;   /* gshmem provides GSHMEM_THREAD_MULTIPLE */
    nvshmem_init();
    if (provided != NULL)
        gshmem_query_thread(provided);
    return 0;
}
static inline int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr)
{
    return gshmemx_nvshmem_init_attr(flags, attr);
}
static inline int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr)
{
    return gshmemx_nvshmem_init_attr(flags, attr);
}
static inline void nvshmem_finalize(void)
{
    gshmemx_nvshmem_finalize();
}
static inline void nvshmemx_hostlib_finalize(void)
{
    gshmemx_nvshmem_finalize();
}
static inline int nvshmemx_init_status(void)
{
    return gshmem_initialized() ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}
/* gshmem's unique-ID calls, under NVSHMEM's extension prefix */
#define nvshmemx_get_uniqueid gshmem_get_uniqueid
#define nvshmemx_set_attr_uniqueid_args gshmem_set_attr_uniqueid_args
static inline int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *attr)
{
    attr->mpi_comm = mpi_comm;
    return 0;
}
GSHMEMI_NV_HD static inline void nvshmemx_vendor_get_version_info(int *major, int *minor,
                                                                  int *patch)
{
    *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

/* ---- memory ------------------------------------------------------------------- */
/* No NVLink multicast (NVLS) objects: there is never a multicast address,
 * which NVSHMEM also answers with NULL where NVLS is off. */
GSHMEMI_NV_HD static inline void *nvshmemx_mc_ptr(nvshmem_team_t team, const void *ptr)
{
    (void)team;
    (void)ptr;
    return NULL;
}
#define nvshmemx_buffer_register gshmem_register
#define nvshmemx_buffer_unregister gshmem_unregister
#define nvshmemx_buffer_register_symmetric gshmemx_buffer_register_symmetric
#define nvshmemx_buffer_unregister_symmetric gshmemx_buffer_unregister_symmetric
#define nvshmemx_buffer_unregister_all()                                            \
    GSHMEMI_NV_REFUSED("nvshmemx_buffer_unregister_all: not in gshmem: unregister each buffer")

/* ---- code the program loads itself ---------------------------------------- */
#define nvshmemx_cumodule_init(module) gshmemx_cumodule_init((void *)(module))
#define nvshmemx_cumodule_finalize(module) gshmemx_cumodule_finalize((void *)(module))
#define nvshmemx_culibrary_init(library)                                            \
    GSHMEMI_NV_REFUSED("nvshmemx_culibrary_init: not in gshmem: cuModuleLoad + nvshmemx_cumodule_init")
#define nvshmemx_culibrary_finalize(library)                                        \
    GSHMEMI_NV_REFUSED("nvshmemx_culibrary_finalize: not in gshmem: nvshmemx_cumodule_finalize")

/* ---- launch ------------------------------------------------------------------- */
/* The largest grid of blockDims that nvshmemx_collective_launch accepts for
 * func: every block resident at once. */
static inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims,
                                                            void **args, size_t sharedMem,
                                                            int *gridsize)
{
    int dev = 0, sms = 0, per_sm = 0;
    (void)args;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, func, (int)(blockDims.x * blockDims.y * blockDims.z), sharedMem) !=
            cudaSuccess)
        return NVSHMEMX_ERROR_INTERNAL;
    *gridsize = per_sm * sms;
    return NVSHMEMX_SUCCESS;
}

/* ---- the error macros NVSHMEM's headers give programs ------------------------ */
/* NVSHMEM installs these beside its API and programs (its perftests among
 * them) use them: print where and what, then exit, jump or go on. */
#define GSHMEMI_NV_SAY(...)                                                         \
    do {                                                                            \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                             \
        fprintf(stderr, __VA_ARGS__);                                               \
        fprintf(stderr, "\n");                                                      \
    } while (0)
#define NVSHMEMI_ERROR_PRINT(...) GSHMEMI_NV_SAY(__VA_ARGS__)
#define NVSHMEMI_ERROR_EXIT(...)                                                    \
    do {                                                                            \
        GSHMEMI_NV_SAY(__VA_ARGS__);                                                \
        exit(-1);                                                                   \
    } while (0)
#define NVSHMEMI_WARN_PRINT(...)                                                    \
    do {                                                                            \
        printf("WARN: ");                                                           \
        printf(__VA_ARGS__);                                                        \
        printf("\n");                                                               \
    } while (0)
#define NVSHMEMI_ERROR_JMP(status, err, label, ...)                                 \
    do {                                                                            \
        GSHMEMI_NV_SAY(__VA_ARGS__);                                                \
        (status) = (err);                                                           \
        goto label;                                                                 \
    } while (0)
#define NVSHMEMI_CHECK_ERROR_JMP(cond, status, err, label, ...)                     \
    do {                                                                            \
        if (cond)                                                                   \
            NVSHMEMI_ERROR_JMP(status, err, label, __VA_ARGS__);                    \
    } while (0)
#define NVSHMEMI_NULL_ERROR_JMP(var, status, err, label, ...)                       \
    NVSHMEMI_CHECK_ERROR_JMP((var) == NULL, status, err, label, __VA_ARGS__)
#define NVSHMEMI_NZ_ERROR_JMP(status, err, label, ...)                              \
    NVSHMEMI_CHECK_ERROR_JMP((status) != 0, status, err, label, __VA_ARGS__)
#define NVSHMEMI_NE_ERROR_JMP(status, expected, err, label, ...)                    \
    NVSHMEMI_CHECK_ERROR_JMP((status) != (expected), status, err, label, __VA_ARGS__)
#define NVSHMEMI_EQ_ERROR_JMP(status, expected, err, label, ...)                    \
    NVSHMEMI_CHECK_ERROR_JMP((status) == (expected), status, err, label, __VA_ARGS__)
#define NVSHMEMI_NZ_EXIT(status, ...)                                               \
    do {                                                                            \
        if ((status) != 0)                                                          \
            NVSHMEMI_ERROR_EXIT(__VA_ARGS__);                                       \
    } while (0)

/* ---- NVSHMEM features gshmem does not have ------------------------------------ */
/* one literal each: the pragma takes a single string */
#define nvshmemx_qp_create(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_create: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_destroy(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_destroy: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_signal_op(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_signal_op: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_quiet(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_quiet: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_quiet_warp(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_quiet_warp: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_quiet_block(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_quiet_block: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_fence(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_fence: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_fence_warp(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_fence_warp: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_qp_fence_block(...) \
    GSHMEMI_NV_REFUSED("nvshmemx_qp_fence_block: gshmem has no user-managed queue pairs (use fence/quiet)")
#define nvshmemx_team_get_uniqueid(...)                                             \
    GSHMEMI_NV_REFUSED("nvshmemx_team_get_uniqueid: gshmem's teams come from splits, not IDs")
#define nvshmemx_team_init(...)                                                     \
    GSHMEMI_NV_REFUSED("nvshmemx_team_init: gshmem's teams come from splits, not IDs")

#endif /* GSHMEM_NVSHMEM_H */

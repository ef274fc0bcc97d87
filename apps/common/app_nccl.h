/* app_nccl.h: NCCL for the apps' baselines, loaded at run time.
 *
 * The apps time gshmem against NCCL in the same run (BENCHMARKS.md), but the
 * development machine and CI have no NCCL, and on the GPU machine it lives in
 * the Python environment. So NCCL is dlopen'ed: "libnccl.so.2" from the
 * loader's search path, or the file named by GSHMEM_NCCL_LIB. Everything
 * builds without NCCL headers; the few declarations used are those of NCCL's
 * stable C ABI (nccl.h, 2.x).
 *
 * Streams are passed as void * (a cudaStream_t converts implicitly), so this
 * header needs no CUDA headers and builds in CPU-only trees too, where
 * app_nccl_init simply reports that NCCL is unavailable.
 */
#ifndef GSHMEM_APP_NCCL_H
#define GSHMEM_APP_NCCL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_nccl app_nccl_t;

/* Not collective: 1 when the NCCL library can be loaded here (it is then
 * unloaded again), else 0 with the reason in why. */
int app_nccl_available(char *why, size_t whylen);

/* Collective over all gshmem PEs, after gshmem_init (each PE's GPU already
 * current). Loads NCCL and creates one communicator with rank = my PE.
 * Returns 0 on every PE, or -1 on every PE (when any PE failed) with the
 * reason in why; *out is NULL then. */
int app_nccl_init(app_nccl_t **out, char *why, size_t whylen);
void app_nccl_fini(app_nccl_t *nc);
/* NCCL's version as an integer (e.g. 22809), 0 when unknown. */
int app_nccl_version(const app_nccl_t *nc);

/* Stream-ordered collectives. Each returns 0, or -1 after printing NCCL's
 * error string with the call's name. */
/* bytes_per_pe from send + i*bytes_per_pe to PE i's recv + my_pe*bytes_per_pe. */
int app_nccl_alltoall(app_nccl_t *nc, const void *send, void *recv, size_t bytes_per_pe,
                      void *stream);
/* Per-PE byte counts and byte offsets (host arrays of n_pes entries). */
int app_nccl_alltoallv(app_nccl_t *nc, const void *send, const size_t *send_bytes,
                       const size_t *send_off, void *recv, const size_t *recv_bytes,
                       const size_t *recv_off, void *stream);
/* Sum over PEs of count floats; send == recv is allowed. */
int app_nccl_allreduce_f32(app_nccl_t *nc, const float *send, float *recv, size_t count,
                           void *stream);
/* recv holds n_pes blocks of bytes_per_pe, block i from PE i. */
int app_nccl_allgather(app_nccl_t *nc, const void *send, void *recv, size_t bytes_per_pe,
                       void *stream);

#ifdef __cplusplus
}
#endif

#endif

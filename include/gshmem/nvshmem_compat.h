/* nvshmem_compat.h: the library side of include/nvshmem.h, the calls that
 * NVSHMEM's names need beyond a rename (src/api/compat/nvshmem.c). Plain C.
 * Programs use NVSHMEM's names; these are not for direct use. */
#ifndef GSHMEM_NVSHMEM_COMPAT_H
#define GSHMEM_NVSHMEM_COMPAT_H

#include <stddef.h>
#include "gshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NVSHMEMX_INIT_WITH_SHMEM: join the runtime an OpenSHMEM shmem_init (of
 * gshmem's shmem.h) started. A bit gshmem_init_attr does not use. */
#define GSHMEMI_NV_INIT_WITH_SHMEM (1u << 8)

/* nvshmem_init / nvshmemx_init_attr: NVSHMEM's settings read first
 * (NVSHMEM_SYMMETRIC_SIZE as GSHMEM_SYMMETRIC_SIZE ...; those with no
 * equivalent named in a warning), then gshmem_init (flags 0) or
 * gshmem_init_attr. With GSHMEMI_NV_INIT_WITH_SHMEM alone: succeeds at once
 * on a runtime already initialized, and the next finalize leaves it up. */
int gshmemx_nvshmem_init_attr(unsigned flags, const gshmem_init_attr_t *attr);
void gshmemx_nvshmem_finalize(void);

/* nvshmemx_cumodule_init / _finalize: module is a CUmodule the program
 * loaded itself (cuModuleLoad) from code compiled with nvshmem.h or
 * gshmem_device.h; init copies the device state into it now and at every
 * later publish. 0 or a negative gshmem_status_t, the cause logged. */
int gshmemx_cumodule_init(void *module);
int gshmemx_cumodule_finalize(void *module);

/* Not supported (the heap is one allocation per PE): log why, return NULL
 * and GSHMEM_ERR_NOT_SUPPORTED. */
void *gshmemx_buffer_register_symmetric(void *buf, size_t size, int flags);
int gshmemx_buffer_unregister_symmetric(void *ptr, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_NVSHMEM_COMPAT_H */

/* nvshmemx.h: NVSHMEM's extensions header. In gshmem, nvshmem.h declares
 * NVSHMEM's whole API (the nvshmemx_* names included), as NVSHMEM's own
 * nvshmem.h does through nvshmem_host.h; this includes it. */
#ifndef GSHMEM_NVSHMEMX_H
#define GSHMEM_NVSHMEMX_H
#include "nvshmem.h"
#endif /* GSHMEM_NVSHMEMX_H */

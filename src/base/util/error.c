/* error.c: gshmem_strerror(), one short sentence per status code. */
#include <stdio.h>

#include "gshmem.h"

const char *gshmem_strerror(int status)
{
    static __thread char unknown[48];

    switch ((gshmem_status_t)status) {
    case GSHMEM_SUCCESS: return "success";
    case GSHMEM_ERR_INVALID_ARG: return "invalid argument";
    case GSHMEM_ERR_NOMEM: return "out of memory";
    case GSHMEM_ERR_NOT_INITIALIZED: return "gshmem is not initialized";
    case GSHMEM_ERR_INVALID_PE: return "invalid PE number";
    case GSHMEM_ERR_OUT_OF_HEAP: return "address is not inside the symmetric heap";
    case GSHMEM_ERR_CONFIG: return "invalid GSHMEM_* setting";
    case GSHMEM_ERR_BOOTSTRAP: return "bootstrap failed";
    case GSHMEM_ERR_TRANSPORT: return "transport error";
    case GSHMEM_ERR_TIMEOUT: return "timed out";
    case GSHMEM_ERR_PEER_DEAD: return "a peer PE died";
    case GSHMEM_ERR_MISMATCH: return "collective call differs across PEs";
    case GSHMEM_ERR_NOT_SUPPORTED: return "operation not supported";
    case GSHMEM_ERR_NO_DEVICE: return "no usable GPU (or CUDA support not built in)";
    case GSHMEM_ERR_SYSTEM: return "system call failed";
    case GSHMEM_ERR_INTERNAL: return "internal error";
    case GSHMEM_ERR_ALREADY: return "already initialized or registered";
    case GSHMEM_ERR_CUDA: return "a CUDA runtime call failed";
    }
    snprintf(unknown, sizeof(unknown), "unknown status %d", status);
    return unknown;
}

/* gshmem_types.h: enums, status codes and small types shared by the host
 * API, the device API and the runtime. Plain C, no dependencies. */
#ifndef GSHMEM_TYPES_H
#define GSHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: 0 is success, errors are negative. gshmem_strerror()
 * turns one into a short sentence. */
typedef enum gshmem_status {
    GSHMEM_SUCCESS = 0,
    GSHMEM_ERR_INVALID_ARG = -1,   /* a bad argument (named in the log) */
    GSHMEM_ERR_NOMEM = -2,         /* out of host or heap memory */
    GSHMEM_ERR_NOT_INITIALIZED = -3,
    GSHMEM_ERR_INVALID_PE = -4,
    GSHMEM_ERR_OUT_OF_HEAP = -5,   /* address not inside the symmetric heap */
    GSHMEM_ERR_CONFIG = -6,        /* invalid GSHMEM_* setting */
    GSHMEM_ERR_BOOTSTRAP = -7,
    GSHMEM_ERR_TRANSPORT = -8,
    GSHMEM_ERR_TIMEOUT = -9,
    GSHMEM_ERR_PEER_DEAD = -10,
    GSHMEM_ERR_MISMATCH = -11,     /* collective call differs across PEs */
    GSHMEM_ERR_NOT_SUPPORTED = -12,
    GSHMEM_ERR_NO_DEVICE = -13,    /* no GPU, or no CUDA support built in */
    GSHMEM_ERR_SYSTEM = -14,       /* an OS call failed (errno logged) */
    GSHMEM_ERR_INTERNAL = -15,
    GSHMEM_ERR_ALREADY = -16,      /* already initialized / registered */
    GSHMEM_ERR_CUDA = -17          /* a CUDA runtime call failed (its error logged) */
} gshmem_status_t;

/* Comparison operators of wait_until / test (OpenSHMEM 1.5 values). */
enum {
    GSHMEM_CMP_EQ = 0,
    GSHMEM_CMP_NE = 1,
    GSHMEM_CMP_GT = 2,
    GSHMEM_CMP_GE = 3,
    GSHMEM_CMP_LT = 4,
    GSHMEM_CMP_LE = 5
};

/* Signal operators of put-with-signal. */
enum {
    GSHMEM_SIGNAL_SET = 0,
    GSHMEM_SIGNAL_ADD = 1
};

/* Teams: a handle is the team's number, the same on every member
 * (gshmem.h, "teams"). WORLD: every PE; SHARED: the PEs of this node (the
 * bootstrap's hostname and boot id map), which reach each other by shared
 * memory; NODE: the same PEs (NVSHMEM's name). */
typedef int gshmem_team_t;
#define GSHMEM_TEAM_WORLD ((gshmem_team_t)0)
#define GSHMEM_TEAM_SHARED ((gshmem_team_t)1)
#define GSHMEM_TEAM_NODE ((gshmem_team_t)2)
#define GSHMEM_TEAM_INVALID ((gshmem_team_t)-1)

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_TYPES_H */

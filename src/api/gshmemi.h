/* gshmemi.h: the runtime's global state and the helpers every host file
 * shares. Internal: never installed. */
#ifndef GSHMEMI_H
#define GSHMEMI_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem.h"
#include "base/util/log.h"
#include "base/util/config.h"
#include "base/bootstrap/bootstrap.h"
#include "base/heap/heap.h"
#include "transports/transport.h"

#define GSHMEMI_MAX_TRANSPORTS 4

typedef struct gshmemi_state {
    int initialized;
    int my_pe, n_pes;
    gshmemi_config_t cfg;
    gshmemi_bootstrap_t *boot;
    gshmemi_heap_t heap;
    int *node_of;                     /* [n_pes] */
    int n_nodes;
    int n_machine;                    /* PEs on this machine (one kernel: boot id),
                                       * simulated nodes included: crowding */
    gshmemi_transport_t tps[GSHMEMI_MAX_TRANSPORTS];
    int n_tps;
    gshmemi_transport_t **pe_tp;      /* [n_pes]: transport serving each PE */
    gshmemi_transport_t *amo_tp;      /* transport of every AMO (see init.c) */
    gshmemi_reg_t *regs;              /* gshmem_register list, and the symmetric
                                       * segments (local memory the engine accepts) */
    char symdata_why[256];            /* why globals are not symmetric ("": they are) */
    char heap_why[160];               /* why the heap has its kind (GSHMEM_INFO) */
    uint64_t coll_seq;                /* collective sequence number */
} gshmemi_state_t;

extern gshmemi_state_t gshmemi_g;

/* Misuse of the public API: print "gshmem: <call>: <what>" naming the
 * values, then end the job (bootstrap abort when there is one). */
void gshmemi_fatal(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#endif /* GSHMEMI_H */

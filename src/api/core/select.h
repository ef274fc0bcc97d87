/* select.h: which transports start, and which one serves each PE. */
#ifndef GSHMEMI_SELECT_H
#define GSHMEMI_SELECT_H

#include "api/gshmemi.h"

typedef struct gshmemi_tp_list {
    const gshmemi_transport_ops_t *ops[GSHMEMI_MAX_TRANSPORTS];
    int n;
} gshmemi_tp_list_t;

/* Parse GSHMEM_TRANSPORTS ("auto" = p2p where built, shm, ofi). Unknown
 * name: CONFIG; a transport not built into this library (p2p without
 * CUDA): NOT_SUPPORTED. Logs the cause. */
int gshmemi_select_parse(const char *s, gshmemi_tp_list_t *list_p);

/* Collective: start the listed transports in order until every PE reaches
 * every PE; fill g->tps, g->n_tps, g->pe_tp and g->amo_tp. On failure
 * everything it started is finalized and the same status is returned on
 * every PE. */
int gshmemi_select_init(gshmemi_state_t *g, const gshmemi_tp_list_t *list);

/* Collective: finalize g's transports in reverse order, free pe_tp. */
void gshmemi_select_finalize(gshmemi_state_t *g);

#endif /* GSHMEMI_SELECT_H */

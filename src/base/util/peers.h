/* peers.h: has a PE on this node ended or been stopped (peers.c)? */
#ifndef GSHMEMI_PEERS_H
#define GSHMEMI_PEERS_H

#include <stddef.h>
#include <stdint.h>

/* The job's PEs: pid_of[pe] (gathered at init), node_of[pe]; stopped_s:
 * GSHMEM_STOPPED_TIMEOUT (0: never look for stopped PEs; ended ones are
 * always looked for). Copies what it needs. */
int gshmemi_peers_set(const int *pid_of, const int *node_of, int my_pe, int n_pes,
                      int stopped_s);
void gshmemi_peers_clear(void);

/* For a wait, begun at began_ns (gshmemi_now_ns), that may be waiting on
 * an ended or stopped peer: 0, or GSHMEM_ERR_PEER_DEAD (why: a sentence
 * naming the PE and pid) once a PE on this node has ended, or has been
 * stopped by a signal (state T) GSHMEM_STOPPED_TIMEOUT seconds. Cheap when
 * called often: it looks at /proc only in a wait that has lasted 0.5 s,
 * every 0.5 s at most, one thread at a time. */
int gshmemi_peers_watch(uint64_t began_ns, char *why, size_t cap);

#endif

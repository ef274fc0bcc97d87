/* trace.h: timestamps of the network path's stages, for finding where a
 * small put's latency goes (GSHMEM_TRACE=PREFIX: each PE writes
 * PREFIX.<pe>.csv at finalize; scripts/trace_stages.py turns the files of
 * a job into the median time between consecutive stages). Off by default:
 * then a mark is one predictable branch. Every PE of a job runs on one
 * host in the runs it is made for, so CLOCK_MONOTONIC orders the stamps
 * of different PEs too. Header plus trace.c. */
#ifndef GSHMEMI_TRACE_H
#define GSHMEMI_TRACE_H

#include <stdint.h>

/* The stages of one small put + quiet through the queue path, in order. */
typedef enum gshmemi_trace_pt {
    GSHMEMI_TR_TAKE = 0,     /* engine: an entry taken from a ring */
    GSHMEMI_TR_EXEC,         /* engine: the entry handed to the transport */
    GSHMEMI_TR_SEND,         /* ofi: a message handed to the provider */
    GSHMEMI_TR_RECV,         /* ofi, target: a request message read from the CQ */
    GSHMEMI_TR_APPLY,        /* ofi, target: its copy or AMO issued */
    GSHMEMI_TR_VISIBLE,      /* ofi, target: a batch of applies complete */
    GSHMEMI_TR_ACK,          /* ofi, target: an ACK handed to the provider */
    GSHMEMI_TR_ACKED,        /* ofi, source: an ACK read */
    GSHMEMI_TR_DONE,         /* engine: a quiet mark tested complete */
    GSHMEMI_TR_PUBLISH,      /* engine: a completed count published to producers */
    GSHMEMI_TR_N
} gshmemi_trace_pt_t;

extern int gshmemi_trace_on;

void gshmemi_trace_stamp(gshmemi_trace_pt_t pt);

static inline void gshmemi_trace(gshmemi_trace_pt_t pt)
{
    if (__builtin_expect(gshmemi_trace_on, 0))
        gshmemi_trace_stamp(pt);
}

/* prefix: GSHMEM_TRACE (empty: off). Creates PREFIX.<pe>.csv, which must
 * not exist (trace.c). 0, or GSHMEM_ERR_CONFIG (the file exists, or is a
 * link), GSHMEM_ERR_SYSTEM or GSHMEM_ERR_NOMEM, logged naming the path. */
int gshmemi_trace_init(const char *prefix, int pe);
/* Stops tracing; write: the stamps into the file (finalize), else the
 * file is removed (a failed init). */
void gshmemi_trace_fini(int write);

#endif /* GSHMEMI_TRACE_H */

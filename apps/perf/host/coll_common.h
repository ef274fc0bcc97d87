/* coll_common.h: the collective benchmark itself, shared by gshmem-perf-coll
 * (gshmem) and gshmem-perf-coll-mpi (MPI): the ops' names and flags, the
 * data checks, the warm-up and timed loops, the per-iteration max over PEs,
 * the statistics and the table/CSV. A program only fills a coll_lib_t with
 * its library's calls, so both time, check and print the same way and their
 * CSV files join on (op, size). No gshmem or MPI dependence.
 *
 * Timing: each PE times each iteration of its own call. Data collectives
 * are separated by an untimed barrier of the library (OSU's way); barrier
 * and sync run back to back. PE 0 gathers every PE's times after the loop,
 * takes the max over PEs of each iteration (a collective is as slow as its
 * slowest PE) and reports the median and the mean of those maxima.
 */
#ifndef GSHMEM_COLL_COMMON_H
#define GSHMEM_COLL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "perf_driver.h"

typedef enum coll_op {
    COLL_BARRIER,
    COLL_SYNC,
    COLL_BROADCAST,   /* root 0, size bytes */
    COLL_FCOLLECT,    /* size bytes from each PE, npes * size landing */
    COLL_ALLTOALL,    /* size bytes per pair of PEs */
    COLL_SUM_REDUCE,  /* int64 sum of size / 8 elements */
    COLL_NOPS
} coll_op_t;

typedef struct coll_lib {
    const char *name;        /* program name, for messages */
    int me, npes;
    int bcast_root_dest;     /* 1: broadcast also writes the root's dst */
    /* One operation of the library: dst and src hold npes * max_size bytes
     * each; size as above (unused by barrier and sync). Returns 0, or
     * non-zero when the library reported an error. */
    int (*call)(coll_op_t op, void *dst, void *src, size_t size);
    /* The untimed barrier around checks and between timed iterations. */
    void (*separate)(void);
    /* Collective: PE 0 gets PE p's n doubles at all[p * n + i] (all is
     * npes * n long); n <= coll_gather_need(opts). */
    void (*gather)(double *all, const double *mine, int n);
    /* A check failed or a call returned an error: end the whole job. */
    void (*fail)(void) __attribute__((noreturn));
} coll_lib_t;

/* "barrier", "sync", "broadcast", "fcollect", "alltoall", "sum_reduce". */
const char *coll_op_name(coll_op_t op);

/* The program's flags: the driver's (sizes 8 B to 1 MiB by default) and
 * -O LIST (comma-separated op names, or "all"). Same return as
 * perf_opts_parse; *ops_p is a mask of 1u << coll_op_t. */
int coll_opts_parse(perf_opts_t *o, unsigned *ops_p, const char *name, int argc,
                    char **argv);

/* PE 0 prints "# ..." lines: name, what (the library and its transport),
 * PEs, ops, sweep and timing method. */
void coll_banner(const coll_lib_t *lib, const perf_opts_t *o, unsigned ops,
                 const char *what);

/* The most doubles per PE that coll_run gathers at once under opts o. */
int coll_gather_need(const perf_opts_t *o);

/* The bytes dst and src need each: npes * max_size. */
size_t coll_buf_bytes(const coll_lib_t *lib, const perf_opts_t *o);

/* Collective: check, warm up and time every op of ops at every size (barrier
 * and sync once, size 0) on dst/src (coll_buf_bytes each), printing one row
 * each on PE 0 (and to o->csv_path). Returns 0; a failed check ends the job
 * through lib->fail. */
int coll_run(const coll_lib_t *lib, const perf_opts_t *o, unsigned ops, void *dst, void *src);

#endif

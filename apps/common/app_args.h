/* app_args.h: the apps' command-line values, parsed strictly: the whole
 * string is one number (or a comma list of them) within the flag's range,
 * else "<prog>: <flag> '<value>': <why> (see --help)" on stderr and -1.
 * Plain C, no gshmem call: usable before gshmem_init. */
#ifndef GSHMEM_APP_ARGS_H
#define GSHMEM_APP_ARGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints "<prog>: <flag> '<v>': <why> (see --help)"; returns -1. */
int app_arg_bad(const char *prog, const char *flag, const char *v, const char *why);
/* A whole number in [lo, hi] (bounds within +-2^53): digits, or a decimal
 * or exponent form that is whole (1e6, 2.5e3), with an optional k/K
 * (x 1e3) or M (x 1e6). */
int app_arg_int(const char *prog, const char *flag, const char *v, int64_t lo, int64_t hi,
                int64_t *out);
/* A finite number above lo and at most hi (nan and inf refused). */
int app_arg_real(const char *prog, const char *flag, const char *v, double lo, double hi,
                 double *out);
/* A non-empty comma list of at most max such values; *n: how many. */
int app_arg_int_list(const char *prog, const char *flag, const char *v, int64_t lo,
                     int64_t hi, int64_t *out, int max, int *n);
int app_arg_real_list(const char *prog, const char *flag, const char *v, double lo, double hi,
                      double *out, int max, int *n);

#ifdef __cplusplus
}
#endif

#endif

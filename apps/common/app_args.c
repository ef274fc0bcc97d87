/* app_args.c: see app_args.h. One number parser (strtod of the whole
 * string, finite) and one range check under both kinds of value (whole
 * numbers travel as doubles: exact up to 2^53); lists split on commas, no
 * empty item. */
#include "app_args.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_arg_bad(const char *prog, const char *flag, const char *v, const char *why)
{
    fprintf(stderr, "%s: %s '%s': %s (see --help)\n", prog, flag, v, why);
    return -1;
}

/* v, all of it, as a finite number; whole: k/K and M suffixes allowed. */
static int arg_number(const char *prog, const char *flag, const char *v, int whole,
                      double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    const char *digits = v + (v[0] == '+' || v[0] == '-');
    if (end == v || isspace((unsigned char)v[0]))
        return app_arg_bad(prog, flag, v, "not a number");
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))   /* strtod reads hex */
        return app_arg_bad(prog, flag, v, "not a decimal number");
    if (whole && (*end == 'k' || *end == 'K'))
        d *= 1e3, end++;
    else if (whole && *end == 'M')
        d *= 1e6, end++;
    if (*end != '\0')
        return app_arg_bad(prog, flag, v, "not a number (trailing characters)");
    if (!isfinite(d))
        return app_arg_bad(prog, flag, v, "not a finite number");
    if (errno == ERANGE)
        return app_arg_bad(prog, flag, v, "too large or too small for a double");
    *out = d;
    return 0;
}

/* v as a number in range: whole, in [lo, hi]; else in (lo, hi]. */
static int arg_in_range(const char *prog, const char *flag, const char *v, int whole,
                        double lo, double hi, double *out)
{
    double d = 0;
    char why[96];
    if (arg_number(prog, flag, v, whole, &d) != 0)
        return -1;
    if (whole && d != floor(d))
        return app_arg_bad(prog, flag, v, "not a whole number");
    if (whole ? d < lo || d > hi : !(d > lo && d <= hi)) {
        snprintf(why, sizeof why, "out of range %c%.15g, %.15g]", whole ? '[' : '(', lo, hi);
        return app_arg_bad(prog, flag, v, why);
    }
    *out = d;
    return 0;
}

int app_arg_int(const char *prog, const char *flag, const char *v, int64_t lo, int64_t hi,
                int64_t *out)
{
    double d;
    if (arg_in_range(prog, flag, v, 1, (double)lo, (double)hi, &d) != 0)
        return -1;
    *out = (int64_t)d;
    return 0;
}

int app_arg_real(const char *prog, const char *flag, const char *v, double lo, double hi,
                 double *out)
{
    return arg_in_range(prog, flag, v, 0, lo, hi, out);
}

/* Item n of list (at *at, which moves past it; NULL past the last) into
 * tok[cap]: 1, 0 at the end, -1 printed: an empty item (or list), one too
 * long, more than max. */
static int arg_next(const char *prog, const char *flag, const char *list, const char **at,
                    char *tok, size_t cap, int max, int n)
{
    if (*at == NULL)
        return 0;
    const char *comma = strchr(*at, ',');
    size_t len = comma ? (size_t)(comma - *at) : strlen(*at);
    if (len == 0)
        return app_arg_bad(prog, flag, list, n == 0 && comma == NULL ? "no value"
                                                                     : "an empty item in the list");
    if (len >= cap)
        return app_arg_bad(prog, flag, list, "an item is too long");
    if (n == max) {
        snprintf(tok, cap, "too many values (at most %d)", max);
        return app_arg_bad(prog, flag, list, tok);
    }
    memcpy(tok, *at, len);
    tok[len] = '\0';
    *at = comma ? comma + 1 : NULL;
    return 1;
}

/* A list of numbers in range (arg_in_range) into out: int64_t (whole) or
 * double. */
static int arg_list(const char *prog, const char *flag, const char *v, int whole, double lo,
                    double hi, void *out, int max, int *n)
{
    const char *at = v;
    char tok[64];
    double d;
    int rc;
    for (*n = 0; (rc = arg_next(prog, flag, v, &at, tok, sizeof tok, max, *n)) > 0; ++*n) {
        if (arg_in_range(prog, flag, tok, whole, lo, hi, &d) != 0)
            return -1;
        if (whole)
            ((int64_t *)out)[*n] = (int64_t)d;
        else
            ((double *)out)[*n] = d;
    }
    return rc;
}

int app_arg_int_list(const char *prog, const char *flag, const char *v, int64_t lo,
                     int64_t hi, int64_t *out, int max, int *n)
{
    return arg_list(prog, flag, v, 1, (double)lo, (double)hi, out, max, n);
}

int app_arg_real_list(const char *prog, const char *flag, const char *v, double lo, double hi,
                      double *out, int max, int *n)
{
    return arg_list(prog, flag, v, 0, lo, hi, out, max, n);
}

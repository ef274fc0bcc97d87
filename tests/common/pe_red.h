/* pe_red.h: the reduction operators of OpenSHMEM as expressions, for PE
 * programs that compute a reduction's expected values on the host
 * (a: the value so far, x: the next PE's). */
#ifndef GSHMEM_TESTS_PE_RED_H
#define GSHMEM_TESTS_PE_RED_H

#define C_SUM(a, x) ((a) + (x))
#define C_PROD(a, x) ((a) * (x))
#define C_MIN(a, x) ((x) < (a) ? (x) : (a))
#define C_MAX(a, x) ((x) > (a) ? (x) : (a))
#define C_AND(a, x) ((a) & (x))
#define C_OR(a, x) ((a) | (x))
#define C_XOR(a, x) ((a) ^ (x))

#endif

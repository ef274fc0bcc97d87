/* pe_check.h: checks for PE programs. A failed check prints the PE, the
 * file, the line and the values, then exits 1 (the launcher ends the
 * others and reports it). */
#ifndef GSHMEM_PE_CHECK_H
#define GSHMEM_PE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include "gshmem.h"

/* PE_CHECK_AT names the PE given: for programs below the host API, which
 * know their PE from the bootstrap. */
#define PE_CHECK_AT(pe, cond, ...)                                              \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", (pe), __FILE__,  \
                    __LINE__, #cond);                                           \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define PE_CHECK(cond, ...)                                                     \
    PE_CHECK_AT(gshmem_initialized() ? gshmem_my_pe() : -1, cond, __VA_ARGS__)

#define PE_CHECK_INIT()                                                         \
    do {                                                                        \
        int rc_ = gshmem_init();                                                \
        PE_CHECK(rc_ == 0, "gshmem_init: %s", gshmem_strerror(rc_));            \
    } while (0)

#endif

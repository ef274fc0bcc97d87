/* pe_check.h: checks for PE programs. A failed check prints the PE, the
 * file, the line and the values, then exits 1 (the launcher ends the
 * others and reports it) by _exit after flushing: no exit handler runs,
 * so nothing is printed after the real error and nothing waits. (exit()
 * used to crash here too, a SIGSEGV in cudaGetDevice under ofi's rail
 * threads while the CUDA runtime tore itself down; gshmem now stops its
 * threads first: src/api/core/exit.c.) */
#ifndef GSHMEM_PE_CHECK_H
#define GSHMEM_PE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gshmem.h"

/* PE_CHECK_AT names the PE given: for programs below the host API, which
 * know their PE from the bootstrap. */
#define PE_CHECK_AT(pe, cond, ...)                                              \
    do {                                                                        \
        if (!(cond)) {                                                          \
            char m_[1024];                                                      \
            int n_ = snprintf(m_, sizeof m_, "PE %d: %s:%d: check failed: %s: ", \
                              (pe), __FILE__, __LINE__, #cond);                 \
            if (n_ < 0 || n_ >= (int)sizeof m_ - 1)                             \
                n_ = 0;                                                         \
            snprintf(m_ + n_, sizeof m_ - (size_t)n_, __VA_ARGS__);             \
            fflush(NULL);                                                       \
            fprintf(stderr, "%s\n", m_);   /* one line: PEs share stderr */     \
            fflush(NULL);                                                       \
            _exit(1);                                                           \
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

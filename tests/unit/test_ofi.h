/* test_ofi.h: shared declarations of the ofi transport tests (test_ofi.c:
 * fake bootstrap and fork driver; test_ofi_pe.c: what each forked PE runs). */
#ifndef TEST_OFI_H
#define TEST_OFI_H

#include "base/heap/heap.h"
#include "transports/transport.h"

#define TOFI_HEAP_SIZE (40u << 20)

typedef struct tofi_pe {
    int pe, n;
    gshmemi_bootstrap_t *boot;
    gshmemi_heap_t heap;
    gshmemi_transport_t tp;
} tofi_pe_t;

/* Scenarios run in a forked PE after ofi init; 0 = pass, else the failure
 * was printed to stderr. */
int tofi_scenario_put_get(tofi_pe_t *p);
int tofi_scenario_amo_contention(tofi_pe_t *p, int iters);
int tofi_scenario_amo_ops(tofi_pe_t *p);
int tofi_scenario_fence_order(tofi_pe_t *p, int iters);
int tofi_scenario_flags(tofi_pe_t *p);
int tofi_scenario_large(tofi_pe_t *p);
int tofi_scenario_bounce(tofi_pe_t *p);
int tofi_scenario_channels(tofi_pe_t *p);

#define TOFI_CHECK(p, cond, ...)                                                 \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", (p)->pe, __FILE__, \
                    __LINE__, #cond);                                            \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            return 1;                                                            \
        }                                                                        \
    } while (0)

#define TOFI_OK(p, call) TOFI_CHECK(p, (call) == 0, "%s", #call)

#endif

/* reg.c: local registrations of user memory (gshmem_register). A singly
 * linked list kept sorted by address; registrations never overlap. Not
 * collective and not thread-safe: the API layer serialises calls. */
#include <stdint.h>
#include <stdlib.h>

#include "gshmem_types.h"
#include "heap.h"
#include "base/util/log.h"

struct gshmemi_reg {
    void *addr;
    size_t len;
    struct gshmemi_reg *next;
};

int gshmemi_reg_add(gshmemi_reg_t **list, void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    gshmemi_reg_t **pp, *r;

    if (addr == NULL || len == 0 || len > UINTPTR_MAX - a) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cannot register [%p, +%zu): empty or invalid range",
                      addr, len);
        return GSHMEM_ERR_INVALID_ARG;
    }
    for (pp = list; *pp != NULL && (uintptr_t)(*pp)->addr < a; pp = &(*pp)->next) {
        if ((uintptr_t)(*pp)->addr + (*pp)->len > a)
            break;   /* an earlier registration runs into the new one */
    }
    r = *pp;
    if (r != NULL && (uintptr_t)r->addr < a + len) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                      "registration of [%p, %p) overlaps the registered range [%p, %p)", addr,
                      (void *)(a + len), r->addr, (void *)((uintptr_t)r->addr + r->len));
        return GSHMEM_ERR_ALREADY;
    }
    r = malloc(sizeof(*r));
    if (r == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "out of host memory registering %p", addr);
        return GSHMEM_ERR_NOMEM;
    }
    r->addr = addr;
    r->len = len;
    r->next = *pp;
    *pp = r;
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "registered [%p, +%zu)", addr, len);
    return GSHMEM_SUCCESS;
}

int gshmemi_reg_remove(gshmemi_reg_t **list, void *addr)
{
    for (gshmemi_reg_t **pp = list; *pp != NULL; pp = &(*pp)->next) {
        gshmemi_reg_t *r = *pp;
        if (r->addr == addr) {
            *pp = r->next;
            free(r);
            GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "unregistered %p", addr);
            return GSHMEM_SUCCESS;
        }
    }
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "unregister of %p: no registration starts there", addr);
    return GSHMEM_ERR_INVALID_ARG;
}

const gshmemi_reg_t *gshmemi_reg_find(const gshmemi_reg_t *list, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;

    for (const gshmemi_reg_t *r = list; r != NULL; r = r->next) {
        uintptr_t b = (uintptr_t)r->addr;
        if (b > a)
            break;   /* sorted: no later one can contain p */
        if (a - b < r->len && n <= r->len - (a - b))
            return r;
    }
    return NULL;
}

void gshmemi_reg_clear(gshmemi_reg_t **list)
{
    gshmemi_reg_t *r = *list;

    while (r != NULL) {
        gshmemi_reg_t *next = r->next;
        free(r);
        r = next;
    }
    *list = NULL;
}

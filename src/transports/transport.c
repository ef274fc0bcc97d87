/* transport.c: the registry of transports built into the library. */
#include <string.h>

#include "transport.h"
#ifdef GSHMEM_HAVE_CUDA
#include "p2p/p2p.h"
#endif

static const struct {
    const char *name;
    const gshmemi_transport_ops_t *ops;
} gshmemi_transport_table[] = {
#ifdef GSHMEM_HAVE_CUDA
    {"p2p", &gshmemi_p2p_ops},
#endif
    {"shm", &gshmemi_shm_ops},
    {"ofi", &gshmemi_ofi_ops},
};

const gshmemi_transport_ops_t *gshmemi_transport_lookup(const char *name)
{
    size_t n = sizeof(gshmemi_transport_table) / sizeof(gshmemi_transport_table[0]);

    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, gshmemi_transport_table[i].name) == 0)
            return gshmemi_transport_table[i].ops;
    return NULL;
}

/* transport.c: the registry of transports built into the library. */
#include <string.h>

#include "transport.h"
#include "base/util/log.h"
#include "gshmem_types.h"
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

const char *gshmemi_transport_name(size_t i)
{
    size_t n = sizeof(gshmemi_transport_table) / sizeof(gshmemi_transport_table[0]);
    return i < n ? gshmemi_transport_table[i].name : NULL;
}

int gshmemi_transport_select_device(const int *node_of, int my_pe, int n_pes, int *device_p)
{
    size_t n = sizeof(gshmemi_transport_table) / sizeof(gshmemi_transport_table[0]);

    for (size_t i = 0; i < n; i++) {
        int rc = gshmemi_transport_table[i].ops->select_device(node_of, my_pe, n_pes, device_p);
        if (rc != GSHMEM_ERR_NOT_SUPPORTED)
            return rc;
    }
    /* none is built in: the heap decides (and names why it cannot be made) */
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_TRANSPORT, "no transport built in places a PE on a device");
    *device_p = -1;
    return GSHMEM_SUCCESS;
}

int gshmemi_tp_put_value_by_put(gshmemi_transport_t *tp, int pe, uint64_t dst_off,
                                const void *src, size_t n)
{
    return tp->ops->put(tp, pe, dst_off, src, n, 1);
}

int gshmemi_tp_flag_set_by_amo(gshmemi_transport_t *tp, int pe, uint64_t off, uint64_t value)
{
    return tp->ops->amo_nbi(tp, pe, GSHMEMI_AMO_SET, GSHMEMI_DT_UINT64, off, &value, 0);
}

int gshmemi_tp_put_count_by_amo(gshmemi_transport_t *tp, int pe, uint64_t dst_off,
                                const void *src, size_t n, uint64_t sig_off)
{
    uint64_t one = 1;

    if (n > 0) {
        int rc = tp->ops->put(tp, pe, dst_off, src, n, 1);
        if (rc != 0)
            return rc;
    }
    return tp->ops->amo_nbi(tp, pe, GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, sig_off, &one, n > 0);
}

int gshmemi_tp_no_select_device(const int *node_of, int my_pe, int n_pes, int *device_p)
{
    (void)node_of, (void)my_pe, (void)n_pes, (void)device_p;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

int gshmemi_tp_no_threads(gshmemi_transport_t *tp, uint64_t deadline_ns)
{
    (void)tp, (void)deadline_ns;
    return 0;
}

void *const *gshmemi_tp_no_peer_bases_device(gshmemi_transport_t *tp)
{
    (void)tp;
    return NULL;
}

int gshmemi_tp_chan_shared(gshmemi_transport_t *tp, void **chan_p)
{
    (void)tp;
    *chan_p = NULL;
    return GSHMEM_SUCCESS;
}

int gshmemi_tp_chan_close_shared(gshmemi_transport_t *tp, void *chan)
{
    (void)tp, (void)chan;
    return GSHMEM_SUCCESS;
}


void gshmemi_tp_no_describe(char *version, size_t vlen, char *found, size_t flen)
{
    if (vlen > 0)
        version[0] = '\0';
    if (flen > 0)
        found[0] = '\0';
}

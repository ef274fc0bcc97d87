/* ofi_test_hooks.h: what tests reach of the ofi transport beside its ops
 * table (they link libgshmem-internal.so; nothing in the library calls
 * these). On the channel of instance tp (tp->chan, or the transport's own);
 * GSHMEM_ERR_NOT_SUPPORTED over active messages, which count per PE.
 * pending: *pending_p = operations issued on it whose completion is not
 * counted yet. hold: hold (1) or release (0) its completions: while held
 * they are kept aside uncounted, and a wait for them (its quiet) fails at
 * once instead of never returning. */
#ifndef GSHMEMI_OFI_TEST_HOOKS_H
#define GSHMEMI_OFI_TEST_HOOKS_H

#include <stdint.h>

#include "transports/transport.h"

int ofi_chan_pending(gshmemi_transport_t *tp, uint64_t *pending_p);
int ofi_chan_hold(gshmemi_transport_t *tp, int hold);

#endif /* GSHMEMI_OFI_TEST_HOOKS_H */

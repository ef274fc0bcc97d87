/* device_state.h: the device API's state, built at init and published to
 * every translation unit that includes gshmem_device.h (see
 * include/gshmem/impl/gshmem_dev_state.h for the mechanism). */
#ifndef GSHMEMI_CORE_DEVICE_STATE_H
#define GSHMEMI_CORE_DEVICE_STATE_H

#include "api/gshmemi.h"
#include "gshmem/impl/gshmem_dev_state.h"

/* Collective; call once the heap and the transports exist and BEFORE the
 * barrier that ends init (peers may add to the barrier counters it zeroes
 * as soon as they leave that barrier). With a CUDA heap: reserves
 * GSHMEMI_DEV_SYNC_BYTES of the heap (same offset everywhere), zeroes it,
 * fills the state (PE, heap, p2p peer bases, error-check flag) and
 * publishes it. With a host heap: does nothing (the device API is for CUDA
 * heaps) and returns 0. */
int gshmemi_device_state_setup(gshmemi_state_t *g);

/* At finalize, after the last barrier and before the heap goes: publishes
 * a zeroed state (device calls then report "not initialized") and gives
 * the reservation back. */
void gshmemi_device_state_teardown(gshmemi_state_t *g);

#endif /* GSHMEMI_CORE_DEVICE_STATE_H */

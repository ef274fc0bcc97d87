/* test_device_state: the registry that hands the device API's state to
 * every CUDA translation unit (src/api/core/device_state.c). Host only: the
 * callbacks here stand in for the per-TU cudaMemcpyToSymbol functions.
 *
 * In a CUDA build, libgshmem's own CUDA module (the on-stream kernels)
 * registers a real copy function when the library loads; publishing then
 * really copies into __constant__ memory, which needs a GPU. Where the
 * build has CUDA but the machine no GPU, these tests skip with that reason
 * (the CPU-only build, run in CI too, and the GPU machine cover them). */
#include <criterion/criterion.h>
#include <string.h>

#include "gshmem_types.h"
#include "gshmem/impl/gshmem_dev_state.h"
#include "api/core/device_state.h"
#include "tests_common.h"

static void ds_require_usable(void)
{
#ifdef GSHMEM_HAVE_CUDA
    test_run_t r = test_run(NULL, "nvidia-smi -L", 30);
    int gpu = r.status == 0 && test_count_of(r.output, "GPU ") > 0;
    test_run_free(&r);
    if (!gpu)
        cr_skip_test("CUDA build without a GPU: publishing would copy into libgshmem's own "
                     "CUDA module (the CPU-only build runs these tests)");
#endif
}

static int calls_a, calls_b;
static gshmemi_dev_state_t seen_a;

static int cb_a(const gshmemi_dev_state_t *s)
{
    calls_a++;
    seen_a = *s;
    return 0;
}

static int cb_b(const gshmemi_dev_state_t *s)
{
    (void)s;
    calls_b++;
    return 0;
}

static int cb_fail(const gshmemi_dev_state_t *s)
{
    (void)s;
    return 700;   /* a cudaError_t value */
}

static gshmemi_dev_state_t state_of(int my_pe, int n_pes)
{
    gshmemi_dev_state_t s;
    memset(&s, 0, sizeof s);
    s.abi = GSHMEMI_DEV_STATE_ABI;
    s.size = sizeof s;
    s.my_pe = my_pe;
    s.n_pes = n_pes;
    s.cuda_device = -1;
    return s;
}

Test(device_state, register_then_publish_then_late_register)
{
    ds_require_usable();
    gshmemi_dev_state_t s = state_of(3, 8);

    cr_assert_eq(gshmemx_device_state_register(cb_a), 0);
    cr_assert_eq(calls_a, 0, "nothing published yet, but the callback ran %d times", calls_a);
    cr_assert_eq(gshmemi_device_state_publish(&s), 0);
    cr_assert_eq(calls_a, 1);
    cr_assert_eq(seen_a.my_pe, 3);
    cr_assert_eq(seen_a.n_pes, 8);
    /* a module loaded after init gets the state at once */
    cr_assert_eq(gshmemx_device_state_register(cb_b), 0);
    cr_assert_eq(calls_b, 1, "late registration: callback ran %d times, want 1", calls_b);
    /* an unloaded module is not called again */
    gshmemx_device_state_unregister(cb_a);
    s = state_of(4, 8);
    cr_assert_eq(gshmemi_device_state_publish(&s), 0);
    cr_assert_eq(calls_a, 1, "unregistered callback ran again (%d)", calls_a);
    cr_assert_eq(calls_b, 2);
}

Test(device_state, many_modules)
{
    ds_require_usable();
    gshmemi_dev_state_t s = state_of(0, 2);
    for (int i = 0; i < 40; i++)
        cr_assert_eq(gshmemx_device_state_register(cb_b), 0);
    cr_assert_eq(gshmemi_device_state_publish(&s), 0);
    cr_assert_eq(calls_b, 40);
}

Test(device_state, bad_arguments)
{
    ds_require_usable();
    gshmemi_dev_state_t s = state_of(0, 2);

    cr_assert_eq(gshmemx_device_state_register(NULL), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemx_device_state_register(cb_a), 0);
    s.abi = GSHMEMI_DEV_STATE_ABI + 1;
    cr_assert_eq(gshmemi_device_state_publish(&s), GSHMEM_ERR_INVALID_ARG);
    s.abi = GSHMEMI_DEV_STATE_ABI;
    s.size = 8;
    cr_assert_eq(gshmemi_device_state_publish(&s), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_device_state_publish(NULL), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(calls_a, 0, "a rejected state reached a module");
}

Test(device_state, failing_copy_is_reported_and_others_still_run)
{
    ds_require_usable();
    gshmemi_dev_state_t s = state_of(1, 2);

    cr_assert_eq(gshmemx_device_state_register(cb_fail), 0);
    cr_assert_eq(gshmemx_device_state_register(cb_a), 0);
    cr_assert_eq(gshmemi_device_state_publish(&s), GSHMEM_ERR_NO_DEVICE);
    cr_assert_eq(calls_a, 1);
    /* a late registration that fails reports it too */
    cr_assert_eq(gshmemx_device_state_register(cb_fail), GSHMEM_ERR_NO_DEVICE);
}

/* The device descriptor's stride of a team (world PEs ascending): 0 when
 * they are not evenly spaced (the device API refuses such a team). No
 * state is published: nothing is copied, so no GPU is needed. */
Test(device_state, team_stride)
{
    static const int one[] = {5}, even[] = {0, 2, 4, 6}, two[] = {1, 4}, odd[] = {0, 1, 3};
    cr_assert_eq(gshmemi_device_team_stride(one, 1), 1);
    cr_assert_eq(gshmemi_device_team_stride(even, 4), 2);
    cr_assert_eq(gshmemi_device_team_stride(two, 2), 3);
    cr_assert_eq(gshmemi_device_team_stride(odd, 3), 0, "0, 1, 3 are not evenly spaced");
}

/* Without a published state (a host heap) a team's descriptor is not
 * written and that is not an error; a slot out of range is refused. */
Test(device_state, team_descriptor_without_state)
{
    static const int pes[] = {0, 1};
    cr_assert_eq(gshmemi_device_state_team(3, pes, 2, 0), 0);
    cr_assert_eq(gshmemi_device_state_team(3, NULL, 0, 0), 0);
    cr_assert_eq(gshmemi_device_state_team(GSHMEMI_DEV_TEAM_SLOTS, pes, 2, 0),
                 GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_device_state_team(-1, pes, 2, 0), GSHMEM_ERR_INVALID_ARG);
}

/* ---- the inline peer table (gshmemi_device_state_peers) ----------------------- */

/* A transport whose only op is ptr: PE pe's heap at fake_base[pe]. */
static char *fake_base[20];

static void *fake_ptr(gshmemi_transport_t *tp, int pe, uint64_t off)
{
    (void)tp;
    return fake_base[pe] == NULL ? NULL : fake_base[pe] + off;
}

static const gshmemi_transport_ops_t fake_ops = {.size = sizeof(gshmemi_transport_ops_t),
                                                 .name = "fake", .ptr = fake_ptr};

static gshmemi_dev_state_t peers_state(int my_pe, int n_pes, char *heap)
{
    gshmemi_dev_state_t s = state_of(my_pe, n_pes);
    s.heap_base = heap;
    memset(fake_base, 0, sizeof fake_base);
    fake_base[my_pe] = heap;
    return s;
}

Test(device_state, peer_table_self_mapped_unmapped)
{
    static char heaps[4][64] __attribute__((aligned(256)));
    gshmemi_transport_t tp = {.ops = &fake_ops};
    gshmemi_dev_state_t s = peers_state(1, 18, heaps[1]);
    fake_base[0] = heaps[0];
    fake_base[3] = heaps[3];
    fake_base[17] = heaps[2];   /* past the inline table: not in it, still checked */
    cr_assert_eq(gshmemi_device_state_peers(&s, &tp), GSHMEM_SUCCESS);
    cr_expect_eq(s.peer_delta[1], 0, "this PE: %lld", (long long)s.peer_delta[1]);
    cr_expect_eq(s.peer_delta[0], (int64_t)(heaps[0] - heaps[1]));
    cr_expect_eq(s.peer_delta[3], (int64_t)(heaps[3] - heaps[1]));
    for (int pe = 0; pe < GSHMEMI_DEV_PEER_INLINE; pe++)
        if (pe != 0 && pe != 1 && pe != 3)
            cr_expect_eq(s.peer_delta[pe], GSHMEMI_DEV_PEER_NONE, "PE %d: %lld", pe,
                         (long long)s.peer_delta[pe]);
    /* no transport maps anything (GSHMEM_DEVICE_QUEUE_ONLY, one node
     * without p2p): this PE still translates to itself */
    s = peers_state(2, 4, heaps[2]);
    cr_assert_eq(gshmemi_device_state_peers(&s, NULL), GSHMEM_SUCCESS);
    cr_expect_eq(s.peer_delta[2], 0);
    cr_expect_eq(s.peer_delta[0], GSHMEMI_DEV_PEER_NONE);
    cr_expect_eq(s.peer_delta[3], GSHMEMI_DEV_PEER_NONE);
}

Test(device_state, peer_table_refuses_a_misaligned_heap)
{
    static char heaps[3][512] __attribute__((aligned(256)));
    gshmemi_transport_t tp = {.ops = &fake_ops};
    gshmemi_dev_state_t s = peers_state(0, 18, heaps[0]);
    fake_base[1] = heaps[1] + 8;   /* 8 bytes off a 16-byte boundary */
    cr_expect_eq(gshmemi_device_state_peers(&s, &tp), GSHMEM_ERR_TRANSPORT);
    s = peers_state(0, 18, heaps[0]);
    fake_base[16] = heaps[2] + 16 + 4;   /* past the inline table: checked too */
    cr_expect_eq(gshmemi_device_state_peers(&s, &tp), GSHMEM_ERR_TRANSPORT);
    s = peers_state(0, 18, heaps[0]);
    fake_base[16] = heaps[2] + 48;   /* a multiple of 16: fine */
    cr_expect_eq(gshmemi_device_state_peers(&s, &tp), GSHMEM_SUCCESS);
}

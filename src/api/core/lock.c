/* lock.c: OpenSHMEM's distributed locks (shmem_set_lock, shmem_clear_lock,
 * shmem_test_lock) on a symmetric 64-bit word that is 0 before first use:
 * a heap word or a global/static variable.
 *
 * A ticket lock kept in PE 0's copy of the word, through the AMOs (so it
 * works over every transport): the high 32 bits hand out tickets, the low
 * 32 bits name the ticket being served.
 * - set: take a ticket (fetch-add of 1 << 32), then poll (atomic fetch)
 *   until it is served; FIFO, no starvation. The polls are a wait
 *   (gshmemi_wait_step): a dead holder ends it with a message.
 * - clear: quiet (the holder's puts and AMOs are complete and visible
 *   before the next holder enters), then advance the low half by a
 *   compare-and-swap (the high half may move meanwhile; an add could carry
 *   into it when the low half wraps).
 * - test: take a ticket only when nobody holds or waits (compare-and-swap
 *   from a value whose halves are equal); never waits. 0: acquired. */

#include "core.h"

#define GSHMEMI_LOCK_PE 0
#define GSHMEMI_LOCK_TICKET (1ull << 32)

static uint64_t gshmemi_lock_fetch(const char *call, int64_t *lock)
{
    uint64_t v, zero = 0;
    gshmemi_amo(call, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64, lock, &zero, NULL, &v,
                GSHMEMI_LOCK_PE);
    return v;
}

static uint64_t gshmemi_lock_cswap(const char *call, int64_t *lock, uint64_t cond,
                                   uint64_t value)
{
    uint64_t old;
    gshmemi_amo(call, GSHMEMI_AMO_CSWAP, GSHMEMI_DT_UINT64, lock, &value, &cond, &old,
                GSHMEMI_LOCK_PE);
    return old;
}

void gshmem_set_lock(int64_t *lock)
{
    const char *call = "gshmem_set_lock";
    uint64_t ticket = GSHMEMI_LOCK_TICKET, old;

    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_amo(call, GSHMEMI_AMO_FETCH_ADD, GSHMEMI_DT_UINT64, lock, &ticket, NULL, &old,
                GSHMEMI_LOCK_PE);
    uint32_t mine = (uint32_t)(old >> 32);
    /* a wait like the others (wait.c): it yields (each look is an AMO: let
     * the holder run), naps when long, and ends if the job fails (a holder
     * that died never clears) */
    for (unsigned long spins = 0; (uint32_t)gshmemi_lock_fetch(call, lock) != mine; spins++)
        gshmemi_wait_step(spins);
}

void gshmem_clear_lock(int64_t *lock)
{
    const char *call = "gshmem_clear_lock";

    GSHMEMI_REQUIRE_INIT(call);
    gshmemi_quiet_all(call);
    uint64_t v = gshmemi_lock_fetch(call, lock);
    for (;;) {
        uint64_t next = (v & ~0xffffffffull) | (uint32_t)(v + 1);
        uint64_t seen = gshmemi_lock_cswap(call, lock, v, next);
        if (seen == v)
            return;
        v = seen;
    }
}

int gshmem_test_lock(int64_t *lock)
{
    const char *call = "gshmem_test_lock";

    GSHMEMI_REQUIRE_INIT(call);
    uint64_t v = gshmemi_lock_fetch(call, lock);
    if ((uint32_t)(v >> 32) != (uint32_t)v)
        return 1;   /* held, or others wait */
    return gshmemi_lock_cswap(call, lock, v, v + GSHMEMI_LOCK_TICKET) == v ? 0 : 1;
}

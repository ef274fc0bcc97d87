/* idle.h: how a polling thread (the proxy engine, ofi's progress thread)
 * waits when a poll found no work. For GSHMEM_IDLE_SPIN_US after its last
 * work it keeps polling with no system call (a CPU pause per poll, a
 * sched_yield every GSHMEMI_IDLE_YIELD_EVERY polls so threads sharing a
 * core still run); after that it naps, 1 us first, doubling up to
 * GSHMEM_IDLE_NAP_US. Work (gshmemi_idle_busy) starts over. Header-only. */
#ifndef GSHMEMI_IDLE_H
#define GSHMEMI_IDLE_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#define GSHMEMI_IDLE_YIELD_EVERY 64u

typedef struct gshmemi_idle {
    uint64_t spin_ns;     /* poll this long after the last work */
    uint64_t nap_max_ns;  /* then nap, up to this long per poll */
    uint64_t since;       /* when the current idle stretch began; 0: busy */
    uint64_t nap_ns;      /* the next nap */
    uint32_t polls;       /* empty polls in this stretch */
    uint64_t naps;        /* naps taken, ever (statistics) */
} gshmemi_idle_t;

static inline uint64_t gshmemi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* spin_us, nap_us: the settings (validated >= 0 and > 0 at config load). */
static inline void gshmemi_idle_init(gshmemi_idle_t *s, long spin_us, long nap_us)
{
    s->spin_ns = spin_us > 0 ? (uint64_t)spin_us * 1000u : 0;
    s->nap_max_ns = nap_us > 0 ? (uint64_t)nap_us * 1000u : 1000u;
    s->since = 0;
    s->nap_ns = 0;
    s->polls = 0;
    s->naps = 0;
}

static inline void gshmemi_idle_busy(gshmemi_idle_t *s)
{
    s->since = 0;
    s->polls = 0;
}

static inline void gshmemi_idle_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* One empty poll: pause or yield now and then (returns 0), or, past the
 * spin window, returns how long to nap (ns) and counts the nap; the caller
 * naps its own way (ofi's progress thread waits on its CQ's fd). */
static inline uint64_t gshmemi_idle_next(gshmemi_idle_t *s)
{
    uint32_t n = s->polls++;
    if (s->since == 0) {
        s->since = gshmemi_now_ns();
        s->nap_ns = 1000u;
    }
    if (n % GSHMEMI_IDLE_YIELD_EVERY != GSHMEMI_IDLE_YIELD_EVERY - 1) {
        gshmemi_idle_pause();
        return 0;
    }
    if (gshmemi_now_ns() - s->since < s->spin_ns) {
        sched_yield();
        return 0;
    }
    uint64_t ns = s->nap_ns;
    s->naps++;
    s->nap_ns = s->nap_ns * 2 < s->nap_max_ns ? s->nap_ns * 2 : s->nap_max_ns;
    s->polls = GSHMEMI_IDLE_YIELD_EVERY - 1;   /* past the window: nap every poll */
    return ns;
}

static inline void gshmemi_idle_wait(gshmemi_idle_t *s)
{
    uint64_t ns = gshmemi_idle_next(s);
    if (ns != 0) {
        struct timespec nap = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
        nanosleep(&nap, NULL);
    }
}

#endif /* GSHMEMI_IDLE_H */

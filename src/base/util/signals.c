/* signals.c: fatal signals kill a PE as themselves. libfabric links
 * libpsm_infinipath (and libpsm2), whose constructors install a backtrace
 * handler on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT and SIGTERM
 * that prints a trace and calls exit(1): a launcher then reports "exited
 * with status 1" for a PE that was killed, and the PE runs its exit
 * handlers (which may wait for a busy library thread) instead of dying.
 * mpirun and gshmemrun set IPATH_NO_BACKTRACE=1 and HFI_NO_BACKTRACE=1
 * before the PE starts; other launchers (torchrun, srun, a shell) do not.
 * So at init, unless the user set IPATH_NO_BACKTRACE or HFI_NO_BACKTRACE
 * (any value: the user chose), a handler of one of those signals that
 * lives in a PSM library goes back to the default action. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util/log.h"
#include "base/util/signals.h"

static int in_psm(void *fn)
{
    Dl_info info;
    if (fn == NULL || dladdr(fn, &info) == 0 || info.dli_fname == NULL)
        return 0;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libpsm", 6) == 0 || strncmp(base, "libinfinipath", 13) == 0;
}

int gshmemi_signals_default_fatal(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM};
    char names[128] = "";
    int reset = 0;
    if (getenv("IPATH_NO_BACKTRACE") || getenv("HFI_NO_BACKTRACE"))
        return 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0)
            continue;
        void *fn = (old.sa_flags & SA_SIGINFO) ? (void *)old.sa_sigaction
                                               : (void *)old.sa_handler;
        if (fn == (void *)SIG_DFL || fn == (void *)SIG_IGN || !in_psm(fn))
            continue;
        signal(sigs[i], SIG_DFL);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%d", reset ? " " : "", sigs[i]);
        reset++;
    }
    if (reset)
        GSHMEMI_DEBUG(GSHMEMI_SUBSYS_INIT, "signals %s: PSM's backtrace handler (exit 1) replaced "
                      "by the default action (IPATH_NO_BACKTRACE unset)", names);
    return reset;
}

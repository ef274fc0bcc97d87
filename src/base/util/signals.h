/* signals.h: fatal signals kill a PE as themselves (signals.c). */
#ifndef GSHMEMI_SIGNALS_H
#define GSHMEMI_SIGNALS_H

/* Puts the default action back on the fatal signals whose handler is PSM's
 * backtrace handler (exit 1), unless IPATH_NO_BACKTRACE or HFI_NO_BACKTRACE
 * is set. Returns how many it reset. */
int gshmemi_signals_default_fatal(void);

#endif

/* app_progress.h: the apps' progress on stderr while they run their cases
 * (the table on stdout stays as it is). On a terminal: a status line per
 * case, "[k/N] name", redrawn in place (spinner, bar of cases done, elapsed
 * time, estimate of what is left) every half second by a timer thread, and
 * when the case ends a line "[k/N] name ... done in X s  elapsed E s  ETA R s".
 * Not a terminal: the same end-of-case line, and "[k/N] name ... running,
 * X s" every 2 s while a case runs longer. The thread only sleeps and
 * writes a line. Plain C, no gshmem call: the caller decides who reports
 * (PE 0, no --quiet). */
#ifndef GSHMEM_APP_PROGRESS_H
#define GSHMEM_APP_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_progress app_progress_t;

/* n cases to come (n <= 0: not known; "[k]" then, and no estimate). NULL
 * (every call below then does nothing) when on is 0 or out of memory. */
app_progress_t *app_progress_start(int n, int on);
/* The next case (the k-th: 1, 2, ...) begins, named name (copied). */
void app_progress_case(app_progress_t *p, const char *name);
/* The current case ended: its line (before the caller prints its row). */
void app_progress_done(app_progress_t *p);
/* The count of cases is n after all (n <= 0: not known). */
void app_progress_set_total(app_progress_t *p, int n);
/* Stops the thread, prints how many cases ended and the time, frees p (a
 * case begun and not ended is not counted). */
void app_progress_end(app_progress_t *p);

#ifdef __cplusplus
}
#endif

#endif

/* app_progress.c: see app_progress.h. One mutex guards the state; the
 * timer thread wakes every half second (a timed wait, so that the end
 * joins at once), draws the status line on a terminal or the "running"
 * line elsewhere, and otherwise only sleeps. */
#define _GNU_SOURCE
#include "app_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS 500000000L   /* redraw period on a terminal */
#define BEAT_S 2.0           /* "running" lines elsewhere */
#define NAME_MAX_LEN 80
#define BAR_LEN 10

struct app_progress {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int have_thread, n, k, running, stop, tty, spin;
    double t0, case_t0, last_beat, done_s;   /* done_s: seconds of the finished cases */
    char name[NAME_MAX_LEN];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fmt_s(char *buf, size_t len, double s)
{
    if (s < 0)
        snprintf(buf, len, "?");
    else if (s < 10)
        snprintf(buf, len, "%.2f s", s);
    else if (s < 60)
        snprintf(buf, len, "%.1f s", s);
    else
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

/* "[k/n]", or "[k]" when the count is not known (n <= 0). */
static const char *pos(const app_progress_t *p, char *buf, size_t len)
{
    if (p->n > 0)
        snprintf(buf, len, "[%d/%d]", p->k, p->n);
    else
        snprintf(buf, len, "[%d]", p->k);
    return buf;
}

/* Estimate of the seconds left: the finished cases' mean for every case
 * not finished, less what the current one has run; -1 before any ended. */
static double eta_s(const app_progress_t *p, double t)
{
    int done = p->running ? p->k - 1 : p->k;
    if (done <= 0 || p->n <= 0)
        return -1;
    double left = p->done_s / done * (p->n - done) - (p->running ? t - p->case_t0 : 0);
    return left > 0 ? left : 0;
}

/* Width of the terminal on stderr (80 when unknown). */
static int term_cols(void)
{
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8)
        return ws.ws_col;
    return 80;
}

/* The status line, redrawn in place and cut to the terminal's width (a
 * wrapped line could not be redrawn). */
static void draw_status(app_progress_t *p, double t)
{
    static const char spin[] = "|/-\\";
    char bar[BAR_LEN + 1], el[16], tot[16], eta[16], line[256], at[32];
    int filled = p->n > 0 ? (p->k - 1) * BAR_LEN / p->n : 0;
    for (int i = 0; i < BAR_LEN; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_LEN] = '\0';
    fmt_s(el, sizeof el, t - p->case_t0);
    fmt_s(tot, sizeof tot, t - p->t0);
    fmt_s(eta, sizeof eta, eta_s(p, t));
    int len = snprintf(line, sizeof line, "%s %s  [%s] %c %s  elapsed %s  ETA %s",
                       pos(p, at, sizeof at), p->name, bar, spin[p->spin++ & 3], el, tot, eta);
    int cols = term_cols() - 1;
    if (len > cols)
        len = cols;
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    fprintf(stderr, "\r%.*s\033[K", len, line);
}

static void *tick_main(void *arg)
{
    app_progress_t *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += TICK_NS;
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        if (p->stop || !p->running)
            continue;
        double t = now_s();
        if (p->tty) {
            draw_status(p, t);
        } else if (t - p->last_beat >= BEAT_S) {
            char at[32];
            fprintf(stderr, "%s %s ... running, %.0f s\n", pos(p, at, sizeof at), p->name,
                    t - p->case_t0);
            p->last_beat = t;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

app_progress_t *app_progress_start(int n, int on)
{
    app_progress_t *p = on ? calloc(1, sizeof *p) : NULL;
    if (p == NULL)
        return NULL;
    p->n = n;
    p->tty = isatty(2);
    p->t0 = now_s();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&p->mu, NULL);
    /* without the thread: the end-of-case lines only */
    p->have_thread = pthread_create(&p->th, NULL, tick_main, p) == 0;
    return p;
}

void app_progress_case(app_progress_t *p, const char *name)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->k++;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->case_t0 = p->last_beat = now_s();
    p->running = 1;
    if (p->tty)
        draw_status(p, p->case_t0);
    pthread_mutex_unlock(&p->mu);
}

void app_progress_done(app_progress_t *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    double t = now_s();
    if (p->running) {
        p->running = 0;
        p->done_s += t - p->case_t0;
        char el[16], tot[16], eta[16], at[32];
        fmt_s(el, sizeof el, t - p->case_t0);
        fmt_s(tot, sizeof tot, t - p->t0);
        fmt_s(eta, sizeof eta, eta_s(p, t));
        fprintf(stderr, "%s%s %s ... done in %s  elapsed %s  ETA %s\n",
                p->tty ? "\r\033[K" : "", pos(p, at, sizeof at), p->name, el, tot, eta);
    }
    pthread_mutex_unlock(&p->mu);
}

void app_progress_set_total(app_progress_t *p, int n)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->n = n;
    pthread_mutex_unlock(&p->mu);
}

void app_progress_end(app_progress_t *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->running) {   /* a case begun and never ended: not counted */
        p->running = 0;
        p->k--;
        if (p->tty)
            fputs("\r\033[K", stderr);
    }
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->have_thread)
        pthread_join(p->th, NULL);
    char tot[16], at[32];
    fmt_s(tot, sizeof tot, now_s() - p->t0);
    fprintf(stderr, "%s finished in %s\n", pos(p, at, sizeof at), tot);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

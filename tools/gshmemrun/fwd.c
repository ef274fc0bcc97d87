/* fwd.c: --prefix output forwarding. Each PE's stdout and stderr come
 * through pipes; complete lines go out to gshmemrun's stdout/stderr with
 * "[PE i] " in front; a last line without a newline gets one at EOF. */
#define _GNU_SOURCE
#include "launcher.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void emit_line(int out_fd, int pe, const char *line, size_t n)
{
    char pfx[32];
    int pl = snprintf(pfx, sizeof pfx, "[PE %d] ", pe);
    char buf[8192];
    if (n + (size_t)pl + 1 <= sizeof buf) {   /* one write keeps lines whole */
        memcpy(buf, pfx, (size_t)pl);
        memcpy(buf + pl, line, n);
        buf[(size_t)pl + n] = '\n';
        write_all(out_fd, buf, (size_t)pl + n + 1);
        return;
    }
    write_all(out_fd, pfx, (size_t)pl);
    write_all(out_fd, line, n);
    write_all(out_fd, "\n", 1);
}

/* Emits complete lines of b; at eof also the rest. */
static void flush_lines(int out_fd, int pe, lr_buf_t *b, int eof)
{
    size_t start = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->data[i] == '\n') {
            emit_line(out_fd, pe, b->data + start, i - start);
            start = i + 1;
        }
    }
    if (eof && start < b->len) {
        emit_line(out_fd, pe, b->data + start, b->len - start);
        start = b->len;
    }
    lr_buf_consume(b, start);
}

int lr_fwd_pollfds(lr_job_t *job, struct pollfd *pfds, int max)
{
    int n = 0;
    for (int p = 0; p < job->n; p++) {
        if (job->pes[p].out_fd >= 0 && n < max)
            pfds[n++] = (struct pollfd){.fd = job->pes[p].out_fd, .events = POLLIN};
        if (job->pes[p].err_fd >= 0 && n < max)
            pfds[n++] = (struct pollfd){.fd = job->pes[p].err_fd, .events = POLLIN};
    }
    return n;
}

static void read_pipe(int pe, int *fd, lr_buf_t *line, int out_fd)
{
    char tmp[4096];
    ssize_t r = read(*fd, tmp, sizeof tmp);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        flush_lines(out_fd, pe, line, 1);
        close(*fd);
        *fd = -1;
        return;
    }
    lr_buf_append(line, tmp, (size_t)r);
    flush_lines(out_fd, pe, line, 0);
}

void lr_fwd_handle(lr_job_t *job, struct pollfd *pfds, int n)
{
    for (int k = 0; k < n; k++) {
        if (!pfds[k].revents)
            continue;
        for (int p = 0; p < job->n; p++) {
            lr_pe_t *pe = &job->pes[p];
            if (pe->out_fd == pfds[k].fd)
                read_pipe(p, &pe->out_fd, &pe->out_line, 1);
            else if (pe->err_fd == pfds[k].fd)
                read_pipe(p, &pe->err_fd, &pe->err_line, 2);
        }
    }
}

int lr_fwd_open_count(const lr_job_t *job)
{
    int n = 0;
    for (int p = 0; p < job->n; p++)
        n += (job->pes[p].out_fd >= 0) + (job->pes[p].err_fd >= 0);
    return n;
}

void lr_fwd_close_all(lr_job_t *job)
{
    for (int p = 0; p < job->n; p++) {
        lr_pe_t *pe = &job->pes[p];
        if (pe->out_fd >= 0) {
            flush_lines(1, p, &pe->out_line, 1);
            close(pe->out_fd);
            pe->out_fd = -1;
        }
        if (pe->err_fd >= 0) {
            flush_lines(2, p, &pe->err_line, 1);
            close(pe->err_fd);
            pe->err_fd = -1;
        }
    }
}

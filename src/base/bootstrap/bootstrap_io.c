/* bootstrap_io.c: blocking reads and writes with a deadline, for the
 * bootstraps that talk over stream sockets (local, uid). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "bootstrap_int.h"
#include "gshmem_types.h"

double gshmemi_boot_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Wait for events on fd until deadline (ms, <0: none). 1: ready, 0: time up. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        int ms = -1;
        if (deadline >= 0) {
            double left = deadline - gshmemi_boot_now_ms();
            if (left <= 0)
                return 0;
            ms = (int)left + 1;
        }
        struct pollfd pfd = {.fd = fd, .events = events};
        int r = poll(&pfd, 1, ms);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1;   /* let the read/write report it */
    }
}

int gshmemi_boot_io(int fd, void *buf, size_t len, int is_write, double deadline)
{
    char *p = buf;
    while (len > 0) {
        if (!wait_fd(fd, is_write ? POLLOUT : POLLIN, deadline))
            return GSHMEM_ERR_TIMEOUT;
        ssize_t r = is_write ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return GSHMEM_ERR_PEER_DEAD;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

int gshmemi_boot_read_text(int fd, uint64_t len, char *buf, size_t cap, double deadline)
{
    size_t keep = len < cap - 1 ? (size_t)len : cap - 1;
    int rc = gshmemi_boot_io(fd, buf, keep, 0, deadline);
    buf[rc == 0 ? keep : 0] = '\0';
    for (uint64_t left = len - keep; rc == 0 && left > 0;) {
        char tmp[256];
        size_t n = left < sizeof tmp ? (size_t)left : sizeof tmp;
        rc = gshmemi_boot_io(fd, tmp, n, 0, deadline);
        left -= n;
    }
    return rc;
}

/* shm_fdpass.c: Unix-socket descriptor passing for the shm transport (see
 * shm_fdpass.h). Plain descriptors over SCM_RIGHTS: no ptrace rights, no
 * /proc tricks, no global shm names. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/util/log.h"
#include "shm_fdpass.h"

#define SHM_SUBSYS GSHMEMI_SUBSYS_TRANSPORT
#define SHM_MAX_FDS_PER_MSG 4 /* room to detect (and close) extra descriptors */

static int shm_sock_addr(const char *path, struct sockaddr_un *addr)
{
    size_t len = strlen(path);

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    if (len == 0 || len >= sizeof(addr->sun_path)) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: socket path '%s' is %zu bytes; a Unix socket "
                      "path must be 1..%zu bytes", path, len, sizeof(addr->sun_path) - 1);
        return GSHMEM_ERR_INVALID_ARG;
    }
    memcpy(addr->sun_path, path, len + 1);
    return GSHMEM_SUCCESS;
}

static long shm_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Bound blocking receives (and, for connect, the wait for a full backlog). */
static int shm_sock_set_timeouts(int sock, int timeout_ms)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};

    if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
        setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: setsockopt(SO_RCVTIMEO/SO_SNDTIMEO, %d ms) on "
                      "socket %d: %s", timeout_ms, sock, strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    return GSHMEM_SUCCESS;
}

int gshmemi_shm_sock_listen(const char *path, int backlog, int *sock_p)
{
    struct sockaddr_un addr;
    int sock;

    GSHMEMI_CHECK(shm_sock_addr(path, &addr));
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: socket(AF_UNIX) for '%s': %s", path, strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    if (unlink(path) != 0 && errno != ENOENT)
        GSHMEMI_WARN(SHM_SUBSYS, "shm: cannot remove stale '%s': %s", path, strerror(errno));
    if (bind(sock, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: bind('%s'): %s", path, strerror(errno));
        goto err_close;
    }
    if (chmod(path, 0600) != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: chmod('%s', 0600): %s", path, strerror(errno));
        goto err_unlink;
    }
    if (listen(sock, backlog) != 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: listen('%s', %d): %s", path, backlog, strerror(errno));
        goto err_unlink;
    }
    *sock_p = sock;
    return GSHMEM_SUCCESS;

err_unlink:
    unlink(path);
err_close:
    close(sock);
    return GSHMEM_ERR_SYSTEM;
}

int gshmemi_shm_sock_connect(const char *path, int timeout_ms, int *sock_p)
{
    struct sockaddr_un addr;
    long deadline = shm_now_ms() + timeout_ms;
    int rc;

    GSHMEMI_CHECK(shm_sock_addr(path, &addr));
    for (;;) {
        int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: socket(AF_UNIX) for '%s': %s", path, strerror(errno));
            return GSHMEM_ERR_SYSTEM;
        }
        rc = shm_sock_set_timeouts(sock, timeout_ms);
        if (rc == GSHMEM_SUCCESS && connect(sock, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
            *sock_p = sock;
            return GSHMEM_SUCCESS;
        }
        int err = errno;
        close(sock);
        if (rc != GSHMEM_SUCCESS)
            return rc;
        if (err != ENOENT && err != ECONNREFUSED && err != EINTR && err != EAGAIN) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: connect('%s'): %s", path, strerror(err));
            return GSHMEM_ERR_SYSTEM;
        }
        if (shm_now_ms() >= deadline) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: connect('%s'): no listener within %d ms "
                          "(last error: %s)", path, timeout_ms, strerror(err));
            return GSHMEM_ERR_TIMEOUT;
        }
        usleep(2000);
    }
}

int gshmemi_shm_sock_accept(int lsock, int timeout_ms, int *sock_p)
{
    long deadline = shm_now_ms() + timeout_ms;
    struct pollfd pfd = {.fd = lsock, .events = POLLIN};
    struct ucred cred;
    socklen_t cred_len = sizeof(cred);
    int sock, rc;

    for (;;) {
        long left = deadline - shm_now_ms();
        int n = poll(&pfd, 1, left > 0 ? (int)left : 0);
        if (n > 0)
            break;
        if (n < 0 && errno != EINTR) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: poll on listening socket %d: %s", lsock,
                          strerror(errno));
            return GSHMEM_ERR_SYSTEM;
        }
        if (n == 0 && left <= 0) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: no peer connected to listening socket %d "
                          "within %d ms", lsock, timeout_ms);
            return GSHMEM_ERR_TIMEOUT;
        }
    }
    sock = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: accept on socket %d: %s", lsock, strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 ||
        cred.uid != getuid()) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: peer on socket %d is not user %u (uid %d): refused",
                      lsock, (unsigned)getuid(), cred_len ? (int)cred.uid : -1);
        close(sock);
        return GSHMEM_ERR_SYSTEM;
    }
    rc = shm_sock_set_timeouts(sock, timeout_ms);
    if (rc != GSHMEM_SUCCESS) {
        close(sock);
        return rc;
    }
    *sock_p = sock;
    return GSHMEM_SUCCESS;
}

int gshmemi_shm_fd_send(int sock, const void *msg, size_t len, int fd)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    const char *p = msg;
    size_t done = 0;

    if (len == 0) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: fd_send on socket %d needs at least 1 byte of data",
                      sock);
        return GSHMEM_ERR_INVALID_ARG;
    }
    while (done < len) {
        struct iovec iov = {.iov_base = (void *)(p + done), .iov_len = len - done};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        if (done == 0 && fd >= 0) {
            memset(&ctl, 0, sizeof(ctl));
            mh.msg_control = ctl.buf;
            mh.msg_controllen = sizeof(ctl.buf);
            struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: sendmsg of %zu bytes (fd %d) on socket %d: %s",
                          len - done, fd, sock, strerror(err));
            return (err == EAGAIN || err == EWOULDBLOCK) ? GSHMEM_ERR_TIMEOUT
                                                         : GSHMEM_ERR_SYSTEM;
        }
        done += (size_t)n;
    }
    return GSHMEM_SUCCESS;
}

/* Take the descriptors of one received control message into *fd_p. */
static int shm_fd_take(struct msghdr *mh, int sock, int *fd_p)
{
    int rc = GSHMEM_SUCCESS;

    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < nfd; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (*fd_p < 0) {
                *fd_p = fd;
                continue;
            }
            close(fd);
            if (rc == GSHMEM_SUCCESS)
                GSHMEMI_ERROR(SHM_SUBSYS, "shm: more than one descriptor received on "
                              "socket %d", sock);
            rc = GSHMEM_ERR_TRANSPORT;
        }
    }
    if (rc == GSHMEM_SUCCESS && (mh->msg_flags & MSG_CTRUNC)) {
        GSHMEMI_ERROR(SHM_SUBSYS, "shm: control message truncated on socket %d "
                      "(descriptor limit reached?)", sock);
        rc = GSHMEM_ERR_TRANSPORT;
    }
    return rc;
}

int gshmemi_shm_fd_recv(int sock, void *msg, size_t len, int *fd_p)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(SHM_MAX_FDS_PER_MSG * sizeof(int))];
    } ctl;
    char *p = msg;
    size_t done = 0;
    int fd = -1, rc = GSHMEM_SUCCESS;

    while (done < len && rc == GSHMEM_SUCCESS) {
        struct iovec iov = {.iov_base = p + done, .iov_len = len - done};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf)};
        ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: recvmsg on socket %d after %zu of %zu bytes: %s",
                          sock, done, len, strerror(err));
            rc = (err == EAGAIN || err == EWOULDBLOCK) ? GSHMEM_ERR_TIMEOUT : GSHMEM_ERR_SYSTEM;
            break;
        }
        rc = shm_fd_take(&mh, sock, &fd);
        if (rc == GSHMEM_SUCCESS && n == 0) {
            GSHMEMI_ERROR(SHM_SUBSYS, "shm: peer closed socket %d after %zu of %zu bytes",
                          sock, done, len);
            rc = GSHMEM_ERR_TRANSPORT;
        }
        done += (size_t)(n > 0 ? n : 0);
    }
    if (rc != GSHMEM_SUCCESS) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    *fd_p = fd;
    return GSHMEM_SUCCESS;
}

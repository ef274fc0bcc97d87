/* test_shm_fdpass.c: the shm transport's Unix-socket descriptor passing in
 * isolation: a forked process receives a memfd over a socket in a private
 * directory, maps it and sees (and changes) the same bytes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "transports/shm/shm_fdpass.h"

#define FDP_SIZE (64 * 1024)

static unsigned char fdp_byte(size_t i, int salt)
{
    return (unsigned char)((i * 131u + (unsigned)salt * 7u) >> 3);
}

/* Child: connect, receive the memfd, check it, write the reply pattern. */
static int fdp_child(const char *path)
{
    char msg[16] = "";
    int sock, fd = -1;
    struct stat st;

    if (gshmemi_shm_sock_connect(path, 10000, &sock) != 0)
        return 10;
    if (gshmemi_shm_fd_recv(sock, msg, sizeof(msg), &fd) != 0 || fd < 0)
        return 11;
    if (strcmp(msg, "heap-of-pe-0") != 0)
        return 12;
    if (fstat(fd, &st) != 0 || st.st_size != FDP_SIZE)
        return 13;
    unsigned char *p = mmap(NULL, FDP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return 14;
    for (size_t i = 0; i < FDP_SIZE; i++)
        if (p[i] != fdp_byte(i, 1))
            return 15;
    for (size_t i = 0; i < FDP_SIZE; i++)
        p[i] = fdp_byte(i, 2);
    /* Tell the parent we are done (it reads our bytes afterwards). */
    if (gshmemi_shm_fd_send(sock, "ok", 3, -1) != 0)
        return 16;
    munmap(p, FDP_SIZE);
    close(fd);
    close(sock);
    return 0;
}

Test(shm_fdpass, memfd_round_trip, .timeout = 30)
{
    char dir[] = "/tmp/gshmem-fdp-XXXXXX", path[128], ack[3];
    int lsock, sock, fd, status, ack_fd = -1;
    struct stat st;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/shm.0", dir);
    cr_assert_eq(gshmemi_shm_sock_listen(path, 4, &lsock), 0);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISSOCK(st.st_mode));
    cr_assert_eq(st.st_mode & 0777, 0600, "socket mode is %o", st.st_mode & 0777);

    fd = memfd_create("fdp-test", MFD_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, FDP_SIZE), 0);
    unsigned char *p = mmap(NULL, FDP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    cr_assert_neq(p, MAP_FAILED);
    for (size_t i = 0; i < FDP_SIZE; i++)
        p[i] = fdp_byte(i, 1);

    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(fdp_child(path));
    cr_assert_eq(gshmemi_shm_sock_accept(lsock, 10000, &sock), 0);
    char msg[16] = "heap-of-pe-0";
    cr_assert_eq(gshmemi_shm_fd_send(sock, msg, sizeof(msg), fd), 0);
    cr_assert_eq(gshmemi_shm_fd_recv(sock, ack, sizeof(ack), &ack_fd), 0);
    cr_assert_eq(ack_fd, -1, "no descriptor was sent with the ack");
    cr_assert_str_eq(ack, "ok");
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
    for (size_t i = 0; i < FDP_SIZE; i++)
        cr_assert_eq(p[i], fdp_byte(i, 2), "byte %zu: %u, child wrote %u", i, p[i],
                     fdp_byte(i, 2));

    close(sock);
    close(lsock);
    unlink(path);
    cr_assert_eq(rmdir(dir), 0);
    munmap(p, FDP_SIZE);
    close(fd);
}

Test(shm_fdpass, peer_closed_is_an_error)
{
    int sv[2], fd = 12345;
    char buf[8];

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cr_assert_eq(gshmemi_shm_fd_send(sv[0], "abc", 3, -1), 0);
    close(sv[0]);
    cr_assert_neq(gshmemi_shm_fd_recv(sv[1], buf, sizeof(buf), &fd), 0);
    cr_assert_eq(fd, 12345, "output argument must be left alone on failure");
    close(sv[1]);
}

Test(shm_fdpass, two_descriptors_rejected)
{
    int sv[2], fd = -7, memfd = memfd_create("x", MFD_CLOEXEC);
    char buf[4];

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cr_assert_eq(gshmemi_shm_fd_send(sv[0], "ab", 2, memfd), 0);
    cr_assert_eq(gshmemi_shm_fd_send(sv[0], "cd", 2, memfd), 0);
    /* 4 bytes span both messages, so two descriptors arrive: refused. */
    int rc = gshmemi_shm_fd_recv(sv[1], buf, sizeof(buf), &fd);
    cr_assert_neq(rc, 0, "4 bytes carrying 2 descriptors must be refused");
    cr_assert_eq(fd, -7);
    close(sv[0]);
    close(sv[1]);
    close(memfd);
}

Test(shm_fdpass, path_too_long)
{
    char path[300];
    int sock = -5;

    memset(path, 'a', sizeof(path) - 1);
    path[0] = '/';
    path[sizeof(path) - 1] = '\0';
    cr_assert_eq(gshmemi_shm_sock_listen(path, 1, &sock), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(sock, -5);
}

Test(shm_fdpass, connect_times_out)
{
    int sock = -5;

    cr_assert_eq(gshmemi_shm_sock_connect("/tmp/gshmem-no-such-dir-xyz/shm.0", 50, &sock),
                 GSHMEM_ERR_TIMEOUT);
    cr_assert_eq(sock, -5);
}

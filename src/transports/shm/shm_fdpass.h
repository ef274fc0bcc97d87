/* shm_fdpass.h: Unix-socket helpers of the shm transport: listen, connect
 * and accept on a socket file, and pass one descriptor with a small message
 * (SCM_RIGHTS). Every function logs its own errors (naming the path, the
 * socket and errno) and returns a gshmem status. Exposed for tests. */
#ifndef GSHMEMI_SHM_FDPASS_H
#define GSHMEMI_SHM_FDPASS_H

#include <stddef.h>

/* Bind a SOCK_STREAM socket at path (a stale file there is removed first),
 * set its mode to 0600 and listen with the given backlog. */
int gshmemi_shm_sock_listen(const char *path, int backlog, int *sock_p);

/* Connect to path, retrying while the file is missing or refuses, for up
 * to timeout_ms. Receives on the socket then time out after timeout_ms. */
int gshmemi_shm_sock_connect(const char *path, int timeout_ms, int *sock_p);

/* Accept one connection within timeout_ms; the peer must run as the same
 * user (SO_PEERCRED). Receives on the socket time out after timeout_ms. */
int gshmemi_shm_sock_accept(int lsock, int timeout_ms, int *sock_p);

/* Send len bytes (len >= 1) and, when fd >= 0, the descriptor fd. */
int gshmemi_shm_fd_send(int sock, const void *msg, size_t len, int fd);

/* Receive exactly len bytes; *fd_p gets the descriptor that came with
 * them (close-on-exec), or -1 when none came. A message cut short, a
 * truncated control message or more than one descriptor is an error. */
int gshmemi_shm_fd_recv(int sock, void *msg, size_t len, int *fd_p);

#endif /* GSHMEMI_SHM_FDPASS_H */

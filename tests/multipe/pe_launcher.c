/* pe_launcher: a plain program (no bootstrap) for gshmemrun's own tests.
 * Modes (argv[1]):
 *   env               print "PE i of n" from GSHMEMRUN_PE / GSHMEMRUN_N_PES
 *   exit K P          PE P exits with status K, the others sleep 30 s
 *   kill P            PE P raises SIGKILL, the others sleep 30 s
 *   sleep S           every PE sleeps S seconds
 *   lines             two lines on stdout, one on stderr, a last one
 *                     without a newline
 *   dirinfo           print the private directory, its mode and whether
 *                     the socket is in it */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (!v) {
        fprintf(stderr, "pe_launcher: %s is not set\n", name);
        exit(2);
    }
    return atoi(v);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "env";
    int pe = env_int("GSHMEMRUN_PE"), n = env_int("GSHMEMRUN_N_PES");
    if (strcmp(mode, "env") == 0) {
        printf("PE %d of %d\n", pe, n);
    } else if (strcmp(mode, "exit") == 0 && argc > 3) {
        if (pe == atoi(argv[3]))
            return atoi(argv[2]);
        sleep(30);
    } else if (strcmp(mode, "kill") == 0 && argc > 2) {
        if (pe == atoi(argv[2])) {
            usleep(100 * 1000);
            raise(SIGKILL);
        }
        sleep(30);
    } else if (strcmp(mode, "sleep") == 0 && argc > 2) {
        sleep((unsigned)atoi(argv[2]));
    } else if (strcmp(mode, "lines") == 0) {
        printf("out line 1 of PE %d\n", pe);
        printf("out line 2 of PE %d\n", pe);
        fflush(stdout);
        fprintf(stderr, "err line of PE %d\n", pe);
        printf("no newline from PE %d", pe);
    } else if (strcmp(mode, "dirinfo") == 0) {
        const char *dir = getenv("GSHMEMRUN_DIR"), *sock = getenv("GSHMEMRUN_SOCKET");
        struct stat st, ss;
        if (!dir || !sock || stat(dir, &st) != 0) {
            fprintf(stderr, "pe_launcher: no GSHMEMRUN_DIR\n");
            return 2;
        }
        int sock_ok = stat(sock, &ss) == 0 && S_ISSOCK(ss.st_mode) &&
                      strncmp(sock, dir, strlen(dir)) == 0;
        printf("dir=%s mode=%o sock=%d\n", dir, (unsigned)(st.st_mode & 0777), sock_ok);
    } else {
        fprintf(stderr, "pe_launcher: unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}

/* ofi_secure.c: who can reach a PE's endpoint and what stops them.
 *
 * - Where the endpoint listens: an IP provider (tcp, sockets, udp, verbs
 *   over IP) binds to the first interface libfabric lists, which is
 *   reachable from the network. A job whose PEs all run on this node binds
 *   to loopback instead, unless FI_<PROVIDER>_IFACE names an interface. A
 *   job over several nodes keeps the provider's choice: set FI_TCP_IFACE
 *   (or the provider's variable) to the cluster network's interface.
 * - What protects the heap: its memory key, random (ofi_info.c), or the
 *   provider's own key; on the active-message path, the sender's random
 *   key in every message, checked against the one it published at init
 *   (ofi_am_target.c). Keys travel only through the bootstrap.
 * - What the provider cannot protect is said at init under GSHMEM_INFO
 *   (and at INFO in the log): tcp and sockets authenticate nobody, so any
 *   process that reaches the port can connect and send; it still needs a
 *   key it can only guess. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofi.h"

/* "tcp;ofi_rxm" -> "FI_TCP_IFACE": the core provider's interface variable. */
static void ofi_iface_var(const char *prov, char *out, size_t cap)
{
    char core[32];
    size_t n = strcspn(prov, ";");
    if (n >= sizeof core)
        n = sizeof core - 1;
    for (size_t i = 0; i < n; i++)
        core[i] = (char)toupper((unsigned char)prov[i]);
    core[n] = '\0';
    snprintf(out, cap, "FI_%s_IFACE", core);
}

int ofi_single_node(const gshmemi_tp_env_t *env)
{
    for (int pe = 1; pe < env->n_pes; pe++)
        if (env->node_of[pe] != env->node_of[0])
            return 0;
    return 1;
}

int ofi_bind_address(ofi_state_t *s, const gshmemi_tp_env_t *env)
{
    struct fi_info *info = s->info;
    char var[48];
    ofi_iface_var(s->prov_name, var, sizeof var);
    const char *iface = getenv(var);
    s->ip = info->addr_format == FI_SOCKADDR_IN || info->addr_format == FI_SOCKADDR_IN6;
    if (!s->ip)
        return 0;
    if (iface && iface[0]) {
        snprintf(s->bound, sizeof s->bound, "interface %s (%s)", iface, var);
        return 0;
    }
    if (!ofi_single_node(env)) {
        snprintf(s->bound, sizeof s->bound, "interface %s, the provider's first (set %s to "
                 "choose)", info->domain_attr->name ? info->domain_attr->name : "?", var);
        return 0;
    }
    size_t len = info->addr_format == FI_SOCKADDR_IN ? sizeof(struct sockaddr_in)
                                                      : sizeof(struct sockaddr_in6);
    void *a = calloc(1, len);
    if (a == NULL)
        return GSHMEM_ERR_NOMEM;
    if (info->addr_format == FI_SOCKADDR_IN) {
        struct sockaddr_in *in = a;
        in->sin_family = AF_INET;
        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else {
        struct sockaddr_in6 *in6 = a;
        in6->sin6_family = AF_INET6;
        in6->sin6_addr = in6addr_loopback;
    }
    free(info->src_addr);
    info->src_addr = a;
    info->src_addrlen = len;
    snprintf(s->bound, sizeof s->bound, "loopback (all %d PEs on this node; %s would choose)",
             env->n_pes, var);
    return 0;
}

/* A job over several nodes whose endpoint is on loopback (FI_TCP_IFACE=lo
 * carried from a one-node setup) would start, and then its PEs would wait
 * forever for peers that can never connect: refuse at init instead. */
int ofi_check_reach(ofi_state_t *s, const gshmemi_tp_env_t *env, const void *addr,
                    size_t len)
{
    if (!s->ip || ofi_single_node(env))
        return 0;
    const struct sockaddr *sa = addr;
    int loop = 0;
    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
        loop = (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
        loop = IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)addr)->sin6_addr);
    if (!loop)
        return 0;
    char var[48], set[128] = "";
    ofi_iface_var(s->prov_name, var, sizeof var);
    const char *iface = getenv(var);
    if (iface != NULL)
        snprintf(set, sizeof set, " (%s=%s)", var, iface);
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d's endpoint (provider '%s') is on loopback%s, but the "
                  "job spans nodes: PEs on the others could never reach it; set %s to an "
                  "interface of the network between the nodes", s->my_pe, s->prov_name, set,
                  var);
    return GSHMEM_ERR_TRANSPORT;
}

/* After the endpoint is named: where it listens, and (GSHMEM_INFO, PE 0)
 * what protects it. */
void ofi_security_note(ofi_state_t *s, const gshmemi_tp_env_t *env)
{
    char name[128] = "?";
    unsigned char raw[OFI_ADDR_MAX];
    size_t raw_len = sizeof raw, len = sizeof name;
    if (fi_getname(&s->ep->fid, raw, &raw_len) == 0)
        fi_av_straddr(s->av, raw, name, &len);
    int open_net = s->ip && strncmp(s->prov_name, "verbs", 5) != 0;
    char note[512];
    snprintf(note, sizeof note, "ofi: provider '%s' endpoint %s on %s; %s%s",
             s->prov_name, name,
             s->ip ? s->bound : strcmp(s->prov_name, "shm") == 0
                 ? "shared memory that only this user can open (mode 0600)" : "its own medium",
             open_net ? "the provider authenticates nobody: any process that reaches the "
                        "endpoint can connect, and only "
                      : "",
             s->am_mode ? "the senders' random 64-bit keys, checked on every active "
                          "message, keep others' messages out of the heap"
             : s->mr_prov_key ? "the provider's memory keys guard the heap"
                              : "the heap's random memory key guards it");
    GSHMEMI_INFO(OFI_SUBSYS, "%s", note);
    if (env->cfg->info && s->my_pe == 0) {
        printf("gshmem: security: %s\n", note);
        fflush(stdout);
    }
}

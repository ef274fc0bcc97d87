/* ofi_info.c: provider selection (fi_getinfo), the mr_mode the provider
 * needs, memory registration honouring it, and the atomic support check. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ofi.h"
#include "ofi_nic.h"
#ifdef GSHMEM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define OFI_MR_MODES (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_LOCAL | \
                      FI_MR_ENDPOINT)

static struct fi_info *ofi_hints_make(const gshmemi_tp_env_t *env, uint64_t caps,
                                      uint64_t op_flags, const char *prov, const char *domain)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = OFI_MR_MODES;
    if (caps & FI_HMEM)
        h->domain_attr->mr_mode |= FI_MR_HMEM;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->tx_attr->op_flags = op_flags;
    if (prov == NULL && env->cfg->ofi_provider[0])
        prov = env->cfg->ofi_provider;
    if (prov != NULL)
        h->fabric_attr->prov_name = strdup(prov);
    if (domain != NULL)
        h->domain_attr->name = strdup(domain);
    return h;
}

/* 0 and *info_p when some provider (prov, NULL: GSHMEM_OFI_PROVIDER or any)
 * fits caps/op_flags and the message order asked (tx and rx); else the fi
 * error. */
static int ofi_try_order(const gshmemi_tp_env_t *env, uint64_t caps, uint64_t op_flags,
                         uint64_t order, const char *prov, const char *domain,
                         struct fi_info **info_p)
{
    struct fi_info *h = ofi_hints_make(env, caps, op_flags, prov, domain), *info = NULL;
    if (!h)
        return -FI_ENOMEM;
    h->tx_attr->msg_order = h->rx_attr->msg_order = order;
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &info);
    fi_freeinfo(h);
    if (rc == 0)
        *info_p = info;
    return rc;
}

static int ofi_try(const gshmemi_tp_env_t *env, uint64_t caps, uint64_t op_flags,
                   struct fi_info **info_p)
{
    return ofi_try_order(env, caps, op_flags, 0, NULL, NULL, info_p);
}

/* The default choice (GSHMEM_OFI_PROVIDER unset) goes by provider first,
 * then by what the provider offers (the tries below): a provider of a
 * lower tier with fewer features beats a higher tier's best.
 * 0: a fabric's own (verbs, efa, cxi, psm2, psm3, opx);
 * 1: tcp (ofi_rxm over it) and shm, in libfabric's order;
 * 2: udp (ofi_rxd over it: retransmits in software) and any other (net,
 *    new in libfabric 1.17, failed gshmem_init here);
 * 3: sockets, deprecated upstream; it was the first to fit every feature
 *    asked here and failed across two nodes under a put + fetch_add load
 *    (Input/output error) where tcp;ofi_rxm ran.
 * -1: never: shm when the job spans nodes (it reaches this node only). */
#define OFI_TIERS 4
static int ofi_prov_tier(const char *prov, int one_node)
{
    if (strcmp(prov, "shm") == 0)
        return one_node ? 1 : -1;
    if (strncmp(prov, "sockets", 7) == 0)
        return 3;
    if (strncmp(prov, "tcp", 3) == 0)
        return 1;
    static const char *const fabrics[] = {"verbs", "efa", "cxi", "psm2", "psm3", "opx"};
    for (size_t i = 0; i < sizeof fabrics / sizeof fabrics[0]; i++)
        if (strncmp(prov, fabrics[i], strlen(fabrics[i])) == 0)
            return 0;
    return 2;
}

/* The answers of one search per try, each asked of libfabric once (a
 * search per try and tier would ask the same question up to OFI_TIERS
 * times at every init). */
#define OFI_TRIES_MAX 8   /* ofi_info_select's tries, each with and without FI_RMA_EVENT */
typedef struct ofi_answers {
    const gshmemi_tp_env_t *env;
    int one_node;
    struct fi_info *list[OFI_TRIES_MAX];   /* NULL: nothing fits, or not asked yet */
    int asked[OFI_TRIES_MAX];
} ofi_answers_t;

static void ofi_answers_init(ofi_answers_t *a, const gshmemi_tp_env_t *env)
{
    memset(a, 0, sizeof *a);
    a->env = env;
    a->one_node = ofi_single_node(env);
}

static void ofi_answers_free(ofi_answers_t *a)
{
    for (int i = 0; i < OFI_TRIES_MAX; i++)
        fi_freeinfo(a->list[i]);
}

/* This PE's index among the PEs of its node (ties between equally close
 * NICs spread by it). */
static int ofi_local_rank(const gshmemi_tp_env_t *env)
{
    int k = 0;
    for (int pe = 0; pe < env->my_pe; pe++)
        k += env->node_of[pe] == env->node_of[env->my_pe];
    return k;
}

/* Of the entries of first's provider in list (libfabric offers one per NIC:
 * verbs' mlx5_*, efa's rdmap*, cxi*, tcp's interfaces), the one nearest
 * this PE (ofi_nic.c: its GPU, else its CPU binding; GSHMEM_OFI_NIC names
 * one), or NULL with the error logged. */
static struct fi_info *ofi_pick_nic(const gshmemi_tp_env_t *env, struct fi_info *first)
{
    ofi_nic_cand_t cand[OFI_NIC_MAX];
    struct fi_info *entry[OFI_NIC_MAX];
    char pci[OFI_NIC_MAX][16];
    const char *gpu_p = NULL;
    int n = 0;
    for (struct fi_info *e = first; e != NULL && n < OFI_NIC_MAX; e = e->next) {
        if (strcmp(e->fabric_attr->prov_name, first->fabric_attr->prov_name) != 0)
            continue;
        int seen = 0;   /* one entry per domain: libfabric lists one per address format */
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(cand[k].domain, e->domain_attr->name) == 0;
        if (seen)
            continue;
        entry[n] = e;
        cand[n].domain = e->domain_attr->name;
        cand[n].pci = NULL;
        if (e->nic && e->nic->bus_attr && e->nic->bus_attr->bus_type == FI_BUS_PCI) {
            const struct fi_pci_attr *a = &e->nic->bus_attr->attr.pci;
            snprintf(pci[n], sizeof pci[n], "%04x:%02x:%02x.%x", a->domain_id, a->bus_id,
                     a->device_id, a->function_id);
            cand[n].pci = pci[n];
        }
        n++;
    }
    const char *want = env->cfg->ofi_nic;
    if (n == 1 && !want[0])
        return first;   /* one NIC: no topology needed */
#ifdef GSHMEM_HAVE_CUDA
    char gpu[32] = "";
    if (env->heap->kind == GSHMEMI_HEAP_CUDA) {   /* CPU PEs make no CUDA call */
        if (cudaDeviceGetPCIBusId(gpu, sizeof gpu, env->heap->cuda_device) == cudaSuccess)
            gpu_p = gpu;
        else
            (void)cudaGetLastError();
    }
#endif
    hwloc_topology_t topo = NULL;
    hwloc_cpuset_t cpus = NULL;
    if (ofi_nic_topology_load(NULL, &topo) == 0 && (cpus = hwloc_bitmap_alloc()) != NULL &&
        hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) != 0) {
        hwloc_bitmap_free(cpus);
        cpus = NULL;
    }
    ofi_nic_choice_t c;
    int rc = ofi_nic_choose(topo, cand, n, want, gpu_p, cpus, ofi_local_rank(env), &c);
    if (cpus)
        hwloc_bitmap_free(cpus);
    if (topo)
        hwloc_topology_destroy(topo);
    if (rc != 0) {   /* said once: every try asks again */
        static int said;
        if (!said++)
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: PE %d: %s", env->my_pe, c.why);
        return NULL;
    }
    GSHMEMI_INFO(OFI_SUBSYS, "ofi: PE %d: NIC %s", env->my_pe, c.why);
    return entry[c.index];
}

/* A copy of the provider of tier in try i's answer (caps, op_flags, order:
 * that try's question), on the NIC nearest this PE, or NULL. With
 * GSHMEM_OFI_PROVIDER set: its first, at tier 0. */
static struct fi_info *ofi_pick(ofi_answers_t *a, int i, int tier, uint64_t caps,
                                uint64_t op_flags, uint64_t order)
{
    if (!a->asked[i]) {
        a->asked[i] = 1;
        if (ofi_try_order(a->env, caps, op_flags, order, NULL, NULL, &a->list[i]) != 0)
            a->list[i] = NULL;
    }
    for (struct fi_info *e = a->list[i]; e != NULL; e = e->next)
        if (a->env->cfg->ofi_provider[0] ? tier == 0
                                         : ofi_prov_tier(e->fabric_attr->prov_name,
                                                         a->one_node) == tier) {
            struct fi_info *nic = ofi_pick_nic(a->env, e);
            return nic ? fi_dupinfo(nic) : NULL;
        }
    return NULL;
}

/* Names of every provider libfabric offers (error messages, gshmem-info). */
static void ofi_list_providers(char *out, size_t len)
{
    struct fi_info *all = NULL;
    out[0] = '\0';
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &all) != 0)
        return;
    for (struct fi_info *i = all; i; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        if (strstr(out, p))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? ", " : "", p);
    }
    fi_freeinfo(all);
}

void ofi_describe(char *version, size_t vlen, char *found, size_t flen)
{
    unsigned v = fi_version();
    snprintf(version, vlen, "libfabric %u.%u", FI_MAJOR(v), FI_MINOR(v));
    ofi_list_providers(found, flen);
}

/* Explain why no provider fit: unknown name, or which capability is missing. */
static void ofi_diagnose(const gshmemi_tp_env_t *env, uint64_t caps)
{
    const char *want = env->cfg->ofi_provider[0] ? env->cfg->ofi_provider : "(any)";
    struct fi_info *h = fi_allocinfo(), *info = NULL;
    if (env->cfg->ofi_provider[0])
        h->fabric_attr->prov_name = strdup(env->cfg->ofi_provider);
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &info);
    fi_freeinfo(h);
    fi_freeinfo(info);
    if (rc != 0) {
        char names[512];
        ofi_list_providers(names, sizeof names);
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: libfabric provider '%s' not found (GSHMEM_OFI_PROVIDER); "
                      "available: %s", want, names[0] ? names : "none");
        return;
    }
    static const struct { uint64_t cap; const char *name; } list[] = {
        {FI_RMA, "FI_RMA"}, {FI_ATOMIC, "FI_ATOMIC"}, {FI_HMEM, "FI_HMEM"}, {FI_MSG, "FI_MSG"}};
    char missing[128] = "";
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        if (!(caps & list[i].cap))
            continue;
        info = NULL;
        if (ofi_try(env, list[i].cap, 0, &info) == 0) {
            fi_freeinfo(info);
            continue;
        }
        size_t used = strlen(missing);
        snprintf(missing + used, sizeof missing - used, "%s%s", used ? "|" : "", list[i].name);
    }
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: provider '%s' offers no FI_EP_RDM endpoint with the needed "
                  "caps; missing: %s (mr_mode asked: VIRT_ADDR|ALLOCATED|PROV_KEY|LOCAL|"
                  "ENDPOINT, threading FI_THREAD_SAFE)%s", want,
                  missing[0] ? missing : "none alone, only their combination",
                  (caps & FI_HMEM) ? "; the heap is in GPU memory and needs FI_HMEM, or FI_MSG "
                  "for the active-message path through host bounce buffers" : "");
}

static void ofi_info_record(ofi_state_t *s, struct fi_info *info, uint64_t op_flags)
{
    uint64_t mr = info->domain_attr->mr_mode;
    s->info = info;
    snprintf(s->prov_name, sizeof s->prov_name, "%s", info->fabric_attr->prov_name);
    s->mr_local = !!(mr & FI_MR_LOCAL);
    s->mr_virt = !!(mr & FI_MR_VIRT_ADDR);
    s->mr_prov_key = !!(mr & FI_MR_PROV_KEY);
    s->mr_endpoint = !!(mr & FI_MR_ENDPOINT);
    s->mr_hmem = !!(mr & FI_MR_HMEM);
    s->has_dc = !!(op_flags & FI_DELIVERY_COMPLETE) &&
                !!(info->tx_attr->op_flags & FI_DELIVERY_COMPLETE);
    s->has_fence = !!(info->caps & FI_FENCE);
    s->has_rma_event = !!(info->caps & FI_RMA_EVENT);
    s->has_raw = !!(info->tx_attr->msg_order & (FI_ORDER_RAW | FI_ORDER_RMA_RAW));
    s->max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : SIZE_MAX;
    s->inject_size = info->tx_attr->inject_size;
    size_t key_size = info->domain_attr->mr_key_size;
    s->key_mask = key_size == 0 || key_size >= 8 ? ~0ull : (1ull << (8 * key_size)) - 1;
    /* libfabric 1.17 shm: a non-fetching atomic with FI_DELIVERY_COMPLETE
     * corrupts the results of fetching atomics that other initiators (this
     * PE included) run at the same target concurrently (seen as stale
     * fetch_add results under contention). Set/add then go as fetching
     * atomics with the result dropped: their completion still means
     * "performed at the target", and no delivery-complete atomic is sent. */
    s->amo_as_fetch = strcmp(s->prov_name, "shm") == 0;
}

#ifdef GSHMEM_HAVE_CUDA
/* The active-message path: FI_MSG only (no RMA, atomics or FI_HMEM), messages of
 * one pair in order where the provider offers it (the targets reorder by
 * sequence number anyway). */
static int ofi_info_select_am(ofi_state_t *s, const gshmemi_tp_env_t *env)
{
    ofi_answers_t a;
    ofi_answers_init(&a, env);
    for (int k = 0; k < 2 * OFI_TIERS; k++) {
        int sas = k % 2 == 0, tier = k / 2;   /* ofi_prov_tier */
        struct fi_info *info = ofi_pick(&a, k % 2, tier, FI_MSG, 0, sas ? FI_ORDER_SAS : 0);
        if (info == NULL)
            continue;
        ofi_answers_free(&a);
        ofi_info_record(s, info, 0);
        s->am_mode = 1;
        GSHMEMI_INFO(OFI_SUBSYS, "ofi: provider '%s' (fabric %s, domain %s), mr_mode 0x%x: "
                     "active-message path for the %s heap (FI_MSG active messages through host "
                     "bounce buffers%s), max_msg %zu, inject %zu", s->prov_name,
                     info->fabric_attr->name, info->domain_attr->name,
                     (unsigned)info->domain_attr->mr_mode,
                     env->heap->kind == GSHMEMI_HEAP_CUDA ? "GPU" : "host",
                     sas ? ", FI_ORDER_SAS" : ", reordered by sequence number", s->max_msg,
                     s->inject_size);
        return 0;
    }
    ofi_answers_free(&a);
    return GSHMEM_ERR_TRANSPORT;
}
#endif

int ofi_info_select(ofi_state_t *s, const gshmemi_tp_env_t *env)
{
    uint64_t base = FI_RMA | FI_ATOMIC;
    if (env->heap->kind == GSHMEMI_HEAP_CUDA)
        base |= FI_HMEM;
    int am_only = 0;
#ifdef GSHMEM_HAVE_CUDA
    am_only = gshmemi_ofi_force_am || env->cfg->ofi_am;
    if (am_only || (base & FI_HMEM))
        ofi_am_env(env->cfg);
#endif
    /* Best first: FI_FENCE and delivery-complete, then without each; each
     * with FI_RMA_EVENT first (a counter of the RMA and atomics served
     * here, which tells the progress thread that it has work: the target
     * of an RMA gets no CQ entry, ofi_progress.c). */
    static const struct { uint64_t caps, flags; } tries[] = {
        {FI_FENCE, FI_DELIVERY_COMPLETE}, {0, FI_DELIVERY_COMPLETE}, {FI_FENCE, 0}, {0, 0}};
    size_t n_tries = 2 * (sizeof tries / sizeof tries[0]);
    _Static_assert(2 * (sizeof tries / sizeof tries[0]) <= OFI_TRIES_MAX, "ofi_answers_t");
    ofi_answers_t a;
    ofi_answers_init(&a, env);
    for (size_t k = 0; k < OFI_TIERS * n_tries && !am_only; k++) {
        size_t i = k % n_tries;
        int tier = (int)(k / n_tries);   /* ofi_prov_tier: the provider first */
        uint64_t event = i % 2 == 0 ? FI_RMA_EVENT : 0;
        struct fi_info *info = ofi_pick(&a, (int)i, tier, base | event | tries[i / 2].caps,
                                        tries[i / 2].flags, 0);
        if (info == NULL)
            continue;
        ofi_answers_free(&a);
        if (tier == OFI_TIERS - 1 && !env->cfg->ofi_provider[0])
            GSHMEMI_WARN(OFI_SUBSYS, "ofi: only the deprecated provider '%s' fits; "
                         "GSHMEM_OFI_PROVIDER names another", info->fabric_attr->prov_name);
        /* The same with writes in order (tcp: one stream per pair): then a
         * signal needs no wait for the data before it. */
        struct fi_info *ordered = NULL;
        int waw = ofi_try_order(env, base | event | tries[i / 2].caps, tries[i / 2].flags,
                                FI_ORDER_WAW, info->fabric_attr->prov_name,
                                info->domain_attr->name, &ordered) == 0;
        if (waw) {
            fi_freeinfo(info);
            info = ordered;
        }
        ofi_info_record(s, info, tries[i / 2].flags);
        s->has_waw = waw && (info->tx_attr->msg_order & FI_ORDER_WAW) &&
                     info->ep_attr->max_order_waw_size == SIZE_MAX;
        /* the target's CPU adds the count: host heaps only. The tcp
         * provider only (with or without ofi_rxm), the one tried: sockets
         * advertises 8-byte CQ data too, but a collective whose counts
         * rode in writes over it never ended (GSHMEM_OFI_CQ_DATA). */
        s->has_cq_data = env->cfg->ofi_cq_data && !s->has_waw &&
                         strncmp(info->fabric_attr->prov_name, "tcp", 3) == 0 &&
                         env->heap->kind != GSHMEMI_HEAP_CUDA &&
                         info->domain_attr->cq_data_size >= sizeof(uint64_t) &&
                         !(info->mode & FI_RX_CQ_DATA);
        GSHMEMI_INFO(OFI_SUBSYS, "ofi: provider '%s' (fabric %s, domain %s), mr_mode 0x%x, "
                     "fence %s, delivery-complete %s, max_msg %zu, inject %zu, target "
                     "activity %s, counts %s%s",
                     s->prov_name, info->fabric_attr->name, info->domain_attr->name,
                     (unsigned)info->domain_attr->mr_mode,
                     s->has_waw ? "not needed (writes placed in order, FI_ORDER_WAW)"
                     : s->has_fence ? "FI_FENCE" : "by waiting for completions",
                     s->has_dc ? "yes" : (s->has_raw ? "no (quiet flushes with a read)"
                                                     : "no (transmit-complete only)"),
                     s->max_msg, s->inject_size,
                     s->has_rma_event ? "counted (FI_RMA_EVENT)" : "not counted (no FI_RMA_EVENT)",
                     s->has_cq_data ? "in the write (remote CQ data)" : "by atomics",
                     s->amo_as_fetch ? ", set/add sent as fetching atomics" : "");
        if (!s->has_dc && !s->has_raw)
            GSHMEMI_WARN(OFI_SUBSYS, "ofi: provider '%s' offers neither delivery-complete nor "
                         "read-after-write order: quiet guarantees only transmit completion",
                         s->prov_name);
        return 0;
    }
    ofi_answers_free(&a);
#ifdef GSHMEM_HAVE_CUDA
    if ((am_only || (base & FI_HMEM)) && ofi_info_select_am(s, env) == 0)
        return 0;
#endif
    ofi_diagnose(env, am_only ? FI_MSG : base);
    return GSHMEM_ERR_TRANSPORT;
}

int ofi_random_u64(uint64_t *out, const char *what)
{
    if (getrandom(out, sizeof *out, 0) == (ssize_t)sizeof *out)
        return 0;
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: getrandom for %s failed: %s", what, strerror(errno));
    return GSHMEM_ERR_SYSTEM;
}

/* Requested keys are random (the provider's own keys where it sets
 * FI_MR_PROV_KEY): the key is what stops a process outside the job that
 * can reach the endpoint (tcp has no authentication) from writing into the
 * heap, so it must not be guessable. A key already taken is drawn again. */
int ofi_mr_register_in(ofi_state_t *s, struct fid_domain *domain, struct fid_ep *ep, void *addr,
                       size_t len, uint64_t access, struct fid_mr **mr_p, void **desc_p)
{
    struct iovec iov = {.iov_base = addr, .iov_len = len};
    struct fi_mr_attr attr = {.mr_iov = &iov, .iov_count = 1, .access = access,
                              .iface = FI_HMEM_SYSTEM};
    if (s->heap->kind == GSHMEMI_HEAP_CUDA && gshmemi_heap_contains(s->heap, addr, len)) {
        attr.iface = FI_HMEM_CUDA;
        attr.device.cuda = s->heap->cuda_device;
    }
    struct fid_mr *mr = NULL;
    int rc = -FI_ENOKEY;
    for (int draw = 0; draw < 4 && rc == -FI_ENOKEY; draw++) {
        if (!s->mr_prov_key) {
            GSHMEMI_CHECK(ofi_random_u64(&attr.requested_key, "a memory key"));
            attr.requested_key &= s->key_mask;
        }
        rc = fi_mr_regattr(domain, &attr, 0, &mr);
    }
    if (rc == 0 && s->mr_endpoint) {
        rc = fi_mr_bind(mr, &ep->fid, 0);
        if (rc == 0)
            rc = fi_mr_enable(mr);
    }
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: registering [%p, +%zu) with provider '%s' failed: %s",
                      addr, len, s->prov_name, fi_strerror(-rc));
        if (mr)
            fi_close(&mr->fid);
        return GSHMEM_ERR_TRANSPORT;
    }
    *desc_p = fi_mr_desc(mr);
    *mr_p = mr;
    return 0;
}

int ofi_mr_register(ofi_state_t *s, void *addr, size_t len, uint64_t access,
                    struct fid_mr **mr_p, void **desc_p)
{
    return ofi_mr_register_in(s, s->domain, s->ep, addr, len, access, mr_p, desc_p);
}

static const char *ofi_op_name(enum fi_op op)
{
    switch (op) {
    case FI_SUM: return "FI_SUM";
    case FI_ATOMIC_WRITE: return "FI_ATOMIC_WRITE";
    case FI_ATOMIC_READ: return "FI_ATOMIC_READ";
    case FI_CSWAP: return "FI_CSWAP";
    default: return "?";
    }
}

static const char *ofi_type_name(enum fi_datatype dt)
{
    return dt == FI_INT32 ? "FI_INT32" : dt == FI_INT64 ? "FI_INT64" : "FI_UINT64";
}

int ofi_info_check_atomics(ofi_state_t *s)
{
    static const enum fi_datatype types[] = {FI_INT32, FI_INT64, FI_UINT64};
    static const enum fi_op plain[] = {FI_SUM, FI_ATOMIC_WRITE};
    static const enum fi_op fetch[] = {FI_SUM, FI_ATOMIC_WRITE, FI_ATOMIC_READ};
    for (size_t t = 0; t < 3; t++) {
        size_t count = 0;
        for (size_t o = 0; o < 2; o++)
            if (fi_atomicvalid(s->ep, types[t], plain[o], &count) != 0 || count < 1) {
                GSHMEMI_ERROR(OFI_SUBSYS, "ofi: provider '%s' lacks atomic %s on %s",
                              s->prov_name, ofi_op_name(plain[o]), ofi_type_name(types[t]));
                return GSHMEM_ERR_TRANSPORT;
            }
        for (size_t o = 0; o < 3; o++)
            if (fi_fetch_atomicvalid(s->ep, types[t], fetch[o], &count) != 0 || count < 1) {
                GSHMEMI_ERROR(OFI_SUBSYS, "ofi: provider '%s' lacks fetching atomic %s on %s",
                              s->prov_name, ofi_op_name(fetch[o]), ofi_type_name(types[t]));
                return GSHMEM_ERR_TRANSPORT;
            }
        if (fi_compare_atomicvalid(s->ep, types[t], FI_CSWAP, &count) != 0 || count < 1) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: provider '%s' lacks compare atomic FI_CSWAP on %s",
                          s->prov_name, ofi_type_name(types[t]));
            return GSHMEM_ERR_TRANSPORT;
        }
    }
    return 0;
}

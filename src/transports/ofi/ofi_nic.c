/* ofi_nic.c: picks a PE's NIC among libfabric's domains by where each one
 * sits in the hwloc topology against the PE's GPU or CPU binding (the rules
 * are in ofi_nic.h). A choice keeps everything on the caller's stack, one
 * closeness per candidate: nothing to free, nothing kept between calls. */
#include <stdio.h>
#include <string.h>

#include "ofi_nic.h"

#define OFI_NIC_UNPLACED (-1)   /* the closeness of a candidate not in the topology */

/* What closeness is measured against: the GPU when it is in the topology,
 * else the binding, else nothing (every placed NIC as close). */
typedef struct ofi_nic_ref {
    hwloc_topology_t topo;
    hwloc_obj_t gpu;             /* the GPU's PCI device, or NULL */
    hwloc_const_cpuset_t cpus;   /* NULL when gpu is set or the binding is unknown */
} ofi_nic_ref_t;

static const char *ofi_nic_name(const ofi_nic_cand_t *c)
{
    return c->domain ? c->domain : "";
}

/* Whether the OS device name is the domain's device: the same name, or the
 * same once the endpoint type a provider appends is dropped (EFA's domains
 * are "<device>-rdm" and "<device>-dgrm"). */
static int ofi_nic_name_matches(const char *name, const char *domain)
{
    static const char *const suffixes[] = {"-rdm", "-dgrm"};
    size_t len = strlen(domain);

    if (strcmp(name, domain) == 0)
        return 1;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t s = strlen(suffixes[i]);
        if (len > s && strcmp(domain + len - s, suffixes[i]) == 0)
            return strlen(name) == len - s && strncmp(name, domain, len - s) == 0;
    }
    return 0;
}

/* The object a candidate hangs from: its PCI device, else the parent of
 * the OS device named like its domain (tcp's domains are interface names,
 * verbs' and EFA's are OpenFabrics device names); NULL: unplaced. */
static hwloc_obj_t ofi_nic_locate(hwloc_topology_t topo, const ofi_nic_cand_t *c)
{
    if (c->pci != NULL) {
        hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(topo, c->pci);
        if (pci != NULL)
            return pci;
    }
    if (ofi_nic_name(c)[0] == '\0')
        return NULL;
    for (hwloc_obj_t os = hwloc_get_next_osdev(topo, NULL); os != NULL;
         os = hwloc_get_next_osdev(topo, os)) {
        hwloc_obj_osdev_type_t type = os->attr->osdev.type;
        if ((type == HWLOC_OBJ_OSDEV_NETWORK || type == HWLOC_OBJ_OSDEV_OPENFABRICS) &&
            os->name != NULL && ofi_nic_name_matches(os->name, c->domain))
            return os->parent;
    }
    return NULL;
}

/* Steps from the root. hwloc's own depth does not serve: I/O objects all
 * share a negative virtual depth, whatever the bridges above them. */
static int ofi_nic_hops(hwloc_obj_t obj)
{
    int hops = 0;
    for (; obj->parent != NULL; obj = obj->parent)
        hops++;
    return hops;
}

static hwloc_obj_t ofi_nic_common(hwloc_obj_t a, hwloc_obj_t b)
{
    int ha = ofi_nic_hops(a), hb = ofi_nic_hops(b);
    for (; ha > hb; ha--)
        a = a->parent;
    for (; hb > ha; hb--)
        b = b->parent;
    while (a != b) {
        a = a->parent;
        b = b->parent;
    }
    return a;
}

/* Larger is closer. To a GPU: the common ancestor's steps from the root
 * (all such ancestors lie on the GPU's own path, so they compare). To a
 * binding: 2 + the steps to the NIC's first non-I/O ancestor when that
 * object's CPUs hold the whole binding (nested, so deeper means fewer
 * CPUs), 1 when they share some, 0 when none. To nothing: 0. */
static int ofi_nic_closeness(const ofi_nic_ref_t *r, hwloc_obj_t nic)
{
    if (r->gpu != NULL)
        return ofi_nic_hops(ofi_nic_common(r->gpu, nic));
    if (r->cpus == NULL)
        return 0;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(r->topo, nic);
    if (anc == NULL || anc->cpuset == NULL)
        return 0;
    if (hwloc_bitmap_isincluded(r->cpus, anc->cpuset))
        return 2 + ofi_nic_hops(anc);
    return hwloc_bitmap_intersects(r->cpus, anc->cpuset) ? 1 : 0;
}

/* Among the candidates of closeness best, each domain counted once (at its
 * first: libfabric lists a domain once per address format or provider
 * layer, which would weigh it more), the (local_rank % m)-th of the m. */
static int ofi_nic_spread(const ofi_nic_cand_t *cand, const int *close, int n, int best,
                          int local_rank, int *k_p, int *m_p)
{
    int tied[OFI_NIC_MAX], m = 0;

    for (int i = 0; i < n; i++) {
        int seen = 0;
        if (close[i] != best)
            continue;
        for (int j = 0; j < m && !seen; j++)
            seen = strcmp(ofi_nic_name(&cand[tied[j]]), ofi_nic_name(&cand[i])) == 0;
        if (!seen)
            tied[m++] = i;
    }
    *k_p = (local_rank > 0 ? local_rank : 0) % m;
    *m_p = m;
    return tied[*k_p];
}

static void ofi_nic_near_gpu(hwloc_obj_t gpu, hwloc_obj_t nic, const char *gpu_busid,
                             char *rel, size_t size)
{
    hwloc_obj_t c = ofi_nic_common(gpu, nic);

    if (c->type == HWLOC_OBJ_BRIDGE && c->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI) {
        const struct hwloc_pcidev_attr_s *p = &c->attr->bridge.upstream.pci;
        snprintf(rel, size, "behind the same PCI bridge %04x:%02x:%02x.%x as GPU %s",
                 p->domain, p->bus, p->dev, p->func, gpu_busid);
    } else if (c->type == HWLOC_OBJ_BRIDGE) {
        snprintf(rel, size, "under the same host bridge as GPU %s", gpu_busid);
    } else if (c->type == HWLOC_OBJ_PCI_DEVICE) {
        snprintf(rel, size, "on the same PCI device as GPU %s", gpu_busid);
    } else if (c->parent == NULL) {
        snprintf(rel, size, "sharing only the machine with GPU %s", gpu_busid);
    } else {
        snprintf(rel, size, "in the same %s as GPU %s", hwloc_obj_type_string(c->type),
                 gpu_busid);
    }
}

static void ofi_nic_near_cpus(const ofi_nic_ref_t *r, hwloc_obj_t nic, char *rel, size_t size)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(r->topo, nic);
    char near[48] = "?", bound[48];

    if (anc != NULL && anc->cpuset != NULL)
        hwloc_bitmap_list_snprintf(near, sizeof near, anc->cpuset);
    hwloc_bitmap_list_snprintf(bound, sizeof bound, r->cpus);
    if (anc != NULL && anc->cpuset != NULL && hwloc_bitmap_isincluded(r->cpus, anc->cpuset))
        snprintf(rel, size, "near CPUs %s, which hold this PE's binding %s", near, bound);
    else if (anc != NULL && anc->cpuset != NULL && hwloc_bitmap_intersects(r->cpus, anc->cpuset))
        snprintf(rel, size, "near CPUs %s, which hold part of this PE's binding %s", near,
                 bound);
    else
        snprintf(rel, size, "near CPUs %s, apart from this PE's binding %s", near, bound);
}

/* out->why for a choice by closeness: the chosen NIC against the GPU or
 * the binding, and how many others were as close. */
static void ofi_nic_explain(const ofi_nic_ref_t *r, const char *domain, hwloc_obj_t nic,
                            const char *gpu_busid, int k, int m, ofi_nic_choice_t *out)
{
    char rel[112], lost[56] = "";

    if (r->gpu != NULL)
        ofi_nic_near_gpu(r->gpu, nic, gpu_busid, rel, sizeof rel);
    else if (r->cpus != NULL)
        ofi_nic_near_cpus(r, nic, rel, sizeof rel);
    else
        snprintf(rel, sizeof rel, "in the topology, with no GPU or CPU binding to compare");
    if (r->gpu == NULL && gpu_busid != NULL && gpu_busid[0] != '\0')
        snprintf(lost, sizeof lost, "; GPU %.24s is not in the topology", gpu_busid);
    snprintf(out->why, sizeof out->why, "%.40s: %s (%d of %d that close)%s", domain, rel, k + 1,
             m, lost);
}

/* Appends the candidates' domains to out->why, ending it with "..." where
 * they do not fit. */
static void ofi_nic_list(const ofi_nic_cand_t *cand, int n, ofi_nic_choice_t *out)
{
    size_t size = sizeof out->why, used = strlen(out->why);

    for (int i = 0; i < n; i++) {
        int w = snprintf(out->why + used, size - used, "%s%s", i ? ", " : "",
                         ofi_nic_name(&cand[i]));
        if (w < 0 || (size_t)w >= size - used) {
            memcpy(out->why + size - 4, "...", 4);
            return;
        }
        used += (size_t)w;
    }
}

static int ofi_nic_wanted(const ofi_nic_cand_t *cand, int n, const char *want,
                          ofi_nic_choice_t *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ofi_nic_name(&cand[i]), want) == 0) {
            out->index = i;
            snprintf(out->why, sizeof out->why, "%.40s: named by GSHMEM_OFI_NIC", want);
            return 0;
        }
    snprintf(out->why, sizeof out->why, "GSHMEM_OFI_NIC=%.40s: no such domain; the candidates: ",
             want);
    ofi_nic_list(cand, n, out);
    return -1;
}

int ofi_nic_choose(hwloc_topology_t topo, const ofi_nic_cand_t *cand, int n, const char *want,
                   const char *gpu_busid, hwloc_const_cpuset_t cpus, int local_rank,
                   ofi_nic_choice_t *out)
{
    ofi_nic_ref_t r = {.topo = topo};
    hwloc_obj_t obj[OFI_NIC_MAX];
    int close[OFI_NIC_MAX], best = OFI_NIC_UNPLACED, k, m;

    if (out == NULL)
        return -1;
    out->index = -1;
    if (cand == NULL || n < 1 || n > OFI_NIC_MAX) {
        snprintf(out->why, sizeof out->why, "NIC choice among %d candidates: takes 1 to %d",
                 cand == NULL ? 0 : n, OFI_NIC_MAX);
        return -1;
    }
    if (want != NULL && want[0] != '\0')
        return ofi_nic_wanted(cand, n, want, out);
    if (topo != NULL && gpu_busid != NULL && gpu_busid[0] != '\0')
        r.gpu = hwloc_get_pcidev_by_busidstring(topo, gpu_busid);
    if (r.gpu == NULL && cpus != NULL && !hwloc_bitmap_iszero(cpus))
        r.cpus = cpus;
    for (int i = 0; i < n; i++) {
        obj[i] = topo != NULL ? ofi_nic_locate(topo, &cand[i]) : NULL;
        close[i] = obj[i] != NULL ? ofi_nic_closeness(&r, obj[i]) : OFI_NIC_UNPLACED;
        if (close[i] > best)
            best = close[i];
    }
    if (best == OFI_NIC_UNPLACED) {
        out->index = 0;
        snprintf(out->why, sizeof out->why, "%.40s: libfabric's first; %s", ofi_nic_name(&cand[0]),
                 topo == NULL ? "no hwloc topology"
                              : "no candidate is in the hwloc topology");
        return 0;
    }
    out->index = ofi_nic_spread(cand, close, n, best, local_rank, &k, &m);
    ofi_nic_explain(&r, ofi_nic_name(&cand[out->index]), obj[out->index], gpu_busid, k, m, out);
    return 0;
}

int ofi_nic_topology_load(const char *xml, hwloc_topology_t *topo_p)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) != 0)
        return -1;
    /* "Important" I/O: GPUs, NICs and the bridges above them, not every
     * PCI device of the machine. Without hwloc's "pci" component (through
     * libpciaccess): Linux's sysfs gives the same devices and their
     * OS devices, in a fifth of the time, and libpciaccess's device names
     * were 600 KB that one load left behind (LeakSanitizer failed the PEs
     * of intrude::rma_write_with_guessed_keys, whose tcp offers 2 NICs). */
    if (hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
        (xml == NULL &&
         hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                       "pci") != 0) ||
        (xml != NULL && hwloc_topology_set_xml(topo, xml) != 0) ||
        hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    *topo_p = topo;
    return 0;
}

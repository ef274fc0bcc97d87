/* test_ofi_nic.c: the choice of a PE's NIC (src/transports/ofi/ofi_nic.c)
 * on fake hwloc topologies (tests/unit/data):
 *  nic_two_sockets.xml: package 0 (cores 0-3) holds GPU 17:00.0 and NIC
 *    18:00.0 (mlx5_0, ib0) behind one switch, and NIC 3a:00.0 (mlx5_2) on
 *    a host bridge of its own; package 1 (cores 4-7) holds GPU b1:00.0 and
 *    NIC b2:00.0 (mlx5_1, ib1) behind one switch, and NIC af:01.0 (mlx5_3)
 *    beside that switch under the same host bridge; Ethernet 01:00.0
 *    (eth0) hangs from the machine.
 *  nic_efa_switch.xml: one package; GPUs 17:00.0 and 18:00.0 and EFA NICs
 *    19:00.0 (rdmap25s0) and 1a:00.0 (rdmap26s0) behind one switch. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "transports/ofi/ofi_nic.h"

#define NIC_DATA GSHMEM_SOURCE_DIR "/tests/unit/data/"
#define NIC_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static hwloc_topology_t nic_topo;
static hwloc_bitmap_t nic_sets[16];
static int nic_nsets;

static void nic_fini(void)
{
    for (int i = 0; i < nic_nsets; i++)
        hwloc_bitmap_free(nic_sets[i]);
    if (nic_topo != NULL)
        hwloc_topology_destroy(nic_topo);
}

TestSuite(ofi_nic, .fini = nic_fini);

static hwloc_topology_t nic_load(const char *file)
{
    cr_assert_eq(ofi_nic_topology_load(file, &nic_topo), 0, "loading %s", file);
    return nic_topo;
}

/* A CPU set from a list ("4-7"), freed after the test. */
static hwloc_const_cpuset_t nic_cpus(const char *list)
{
    cr_assert_lt(nic_nsets, NIC_N(nic_sets));
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    cr_assert_not_null(set);
    nic_sets[nic_nsets++] = set;
    cr_assert_eq(hwloc_bitmap_list_sscanf(set, list), 0, "cpu list %s", list);
    return set;
}

/* The chosen domain, which must be a success; the reason in *why_p. */
static const char *nic_pick(const ofi_nic_cand_t *c, int n, const char *gpu,
                            hwloc_const_cpuset_t cpus, int rank, const char **why_p)
{
    static ofi_nic_choice_t ch;
    int rc = ofi_nic_choose(nic_topo, c, n, NULL, gpu, cpus, rank, &ch);
    cr_assert_eq(rc, 0, "rc %d: %s", rc, ch.why);
    cr_assert(ch.index >= 0 && ch.index < n, "index %d of %d: %s", ch.index, n, ch.why);
    if (why_p != NULL)
        *why_p = ch.why;
    return c[ch.index].domain;
}

/* The machine's NICs, each with its PCI address or with its name alone. */
static const ofi_nic_cand_t two_sockets_pci[] = {
    {"mlx5_0", "0000:18:00.0"}, {"mlx5_1", "0000:b2:00.0"}, {"mlx5_2", "0000:3a:00.0"},
    {"eth0", "0000:01:00.0"}};
static const ofi_nic_cand_t two_sockets_name[] = {
    {"mlx5_0", NULL}, {"mlx5_1", NULL}, {"mlx5_2", NULL}, {"eth0", NULL}};

Test(ofi_nic, fixtures_place_every_nic)
{
    static const ofi_nic_cand_t all[] = {
        {"mlx5_0", NULL}, {"ib0", NULL}, {"mlx5_1", NULL}, {"ib1", NULL}, {"mlx5_2", NULL},
        {"mlx5_3", NULL}, {"eth0", NULL}, {"nowhere", NULL}};
    const char *why;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    /* Each NIC with one unplaced candidate: the NIC wins only when placed. */
    for (int i = 0; i + 1 < NIC_N(all); i++) {
        ofi_nic_cand_t two[] = {all[NIC_N(all) - 1], all[i]};
        cr_expect_str_eq(nic_pick(two, 2, NULL, NULL, 0, &why), all[i].domain, "%s", why);
    }
}

Test(ofi_nic, gpu_takes_the_nic_behind_its_switch)
{
    static const int orders[][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1},
                                    {2, 1, 0}};
    const char *why;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    for (int o = 0; o < NIC_N(orders); o++) {
        ofi_nic_cand_t c[3];
        for (int i = 0; i < 3; i++)
            c[i] = two_sockets_pci[orders[o][i]];
        cr_expect_str_eq(nic_pick(c, 3, "0000:17:00.0", NULL, 0, &why), "mlx5_0", "%s", why);
        cr_expect(strstr(why, "PCI bridge 0000:15:00.0") && strstr(why, "(1 of 1 that close)"),
                  "%s", why);
        cr_expect_str_eq(nic_pick(c, 3, "0000:b1:00.0", NULL, 0, &why), "mlx5_1", "%s", why);
    }
    /* CUDA may print the bus id in capitals. */
    cr_expect_str_eq(nic_pick(two_sockets_pci, 4, "0000:B1:00.0", NULL, 0, NULL), "mlx5_1");
}

Test(ofi_nic, switch_beats_host_bridge_beats_package_beats_machine)
{
    static const ofi_nic_cand_t c[] = {
        {"eth0", NULL}, {"mlx5_0", NULL}, {"mlx5_3", NULL}, {"mlx5_1", NULL}};
    const char *why;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_expect_str_eq(nic_pick(c, 4, "0000:b1:00.0", NULL, 0, &why), "mlx5_1", "%s", why);
    cr_expect_str_eq(nic_pick(c, 3, "0000:b1:00.0", NULL, 0, &why), "mlx5_3", "%s", why);
    cr_expect(strstr(why, "host bridge"), "%s", why);
    /* eth0 and mlx5_0 share only the machine with GPU b1: a tie, spread. */
    cr_expect_str_eq(nic_pick(c, 2, "0000:b1:00.0", NULL, 0, &why), "eth0", "%s", why);
    cr_expect(strstr(why, "only the machine") && strstr(why, "(1 of 2 that close)"), "%s", why);
    cr_expect_str_eq(nic_pick(c, 2, "0000:b1:00.0", NULL, 1, &why), "mlx5_0", "%s", why);
    /* GPU 17: mlx5_2 shares its package, mlx5_1 and eth0 only the machine. */
    static const ofi_nic_cand_t d[] = {{"eth0", NULL}, {"mlx5_1", NULL}, {"mlx5_2", NULL}};
    cr_expect_str_eq(nic_pick(d, 3, "0000:17:00.0", NULL, 0, &why), "mlx5_2", "%s", why);
    cr_expect(strstr(why, "same Package"), "%s", why);
}

Test(ofi_nic, pci_address_and_name_agree)
{
    const char *gpus[] = {"0000:17:00.0", "0000:b1:00.0", NULL, NULL, NULL};
    nic_load(NIC_DATA "nic_two_sockets.xml");
    hwloc_const_cpuset_t cpus[] = {NULL, NULL, nic_cpus("4-7"), nic_cpus("0-1"), NULL};
    for (int i = 0; i < NIC_N(gpus); i++)
        for (int rank = 0; rank < 3; rank++) {
            const char *why_pci, *why_name;
            char kept[256];
            const char *by_pci = nic_pick(two_sockets_pci, 4, gpus[i], cpus[i], rank, &why_pci);
            snprintf(kept, sizeof kept, "%s", why_pci);
            const char *by_name = nic_pick(two_sockets_name, 4, gpus[i], cpus[i], rank,
                                           &why_name);
            cr_expect_str_eq(by_pci, by_name, "case %d rank %d", i, rank);
            cr_expect_str_eq(kept, why_name, "case %d rank %d", i, rank);
        }
    /* A PCI address hwloc lacks: found by name still. */
    static const ofi_nic_cand_t stale[] = {{"mlx5_2", "0000:3a:00.0"}, {"mlx5_0", "0000:99:00.0"}};
    cr_expect_str_eq(nic_pick(stale, 2, "0000:17:00.0", NULL, 0, NULL), "mlx5_0");
    /* A domain hwloc has no OS device for (Slingshot's cxi in hwloc 2.9):
     * its PCI address alone places it. */
    static const ofi_nic_cand_t cxi[] = {{"mlx5_2", NULL}, {"cxi0", "0000:b2:00.0"}};
    cr_expect_str_eq(nic_pick(cxi, 2, "0000:b1:00.0", NULL, 0, NULL), "cxi0");
    /* tcp's domains are interface names: ib0 is mlx5_0's port. */
    static const ofi_nic_cand_t tcp[] = {{"eth0", NULL}, {"ib1", NULL}, {"ib0", NULL}};
    cr_expect_str_eq(nic_pick(tcp, 3, "0000:17:00.0", NULL, 0, NULL), "ib0");
}

Test(ofi_nic, efa_domain_suffixes)
{
    static const ofi_nic_cand_t rdm[] = {{"rdmap25s0-rdm", NULL}, {"other-rdm", NULL}};
    static const ofi_nic_cand_t dgrm[] = {{"other-dgrm", NULL}, {"rdmap26s0-dgrm", NULL}};
    static const ofi_nic_cand_t near[] = {{"rdmap25s0-rdmx", NULL}, {"rdmap25s0-", NULL}};
    const char *why;
    nic_load(NIC_DATA "nic_efa_switch.xml");
    cr_expect_str_eq(nic_pick(rdm + 1, 1, "0000:17:00.0", NULL, 0, &why), "other-rdm");
    cr_expect(strstr(why, "no candidate is in the hwloc topology"), "%s", why);
    cr_expect_str_eq(nic_pick(rdm, 2, "0000:17:00.0", NULL, 0, &why), "rdmap25s0-rdm");
    cr_expect(strstr(why, "PCI bridge 0000:15:00.0"), "%s", why);
    cr_expect_str_eq(nic_pick(dgrm, 2, "0000:17:00.0", NULL, 0, &why), "rdmap26s0-dgrm");
    cr_expect(strstr(why, "PCI bridge 0000:15:00.0"), "%s", why);
    /* Only those two suffixes, whole. */
    cr_expect_str_eq(nic_pick(near, 2, "0000:17:00.0", NULL, 0, &why), "rdmap25s0-rdmx");
    cr_expect(strstr(why, "no candidate is in the hwloc topology"), "%s", why);
}

Test(ofi_nic, cpu_pe_takes_its_packages_nic)
{
    const char *why, *got;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_expect_str_eq(nic_pick(two_sockets_pci, 4, NULL, nic_cpus("4-7"), 0, &why), "mlx5_1",
                     "%s", why);
    cr_expect(strstr(why, "near CPUs 4-7, which hold this PE's binding 4-7") &&
              strstr(why, "(1 of 1 that close)"), "%s", why);
    cr_expect_str_eq(nic_pick(two_sockets_pci, 4, NULL, nic_cpus("5"), 3, &why), "mlx5_1");
    hwloc_const_cpuset_t low = nic_cpus("0-1");
    for (int rank = 0; rank < 4; rank++) {
        got = nic_pick(two_sockets_pci, 4, NULL, low, rank, &why);
        cr_expect(strcmp(got, "mlx5_0") == 0 || strcmp(got, "mlx5_2") == 0, "%s", why);
    }
    /* eth0's CPUs (the machine's) hold any binding, but more loosely. */
    static const ofi_nic_cand_t c[] = {{"eth0", NULL}, {"mlx5_1", NULL}};
    cr_expect_str_eq(nic_pick(c, 2, NULL, nic_cpus("6"), 0, &why), "mlx5_1", "%s", why);
    /* A binding over both packages: eth0 holds it, mlx5_1 holds part. */
    cr_expect_str_eq(nic_pick(c, 2, NULL, nic_cpus("3-4"), 0, &why), "eth0", "%s", why);
    cr_expect_str_eq(nic_pick(c + 1, 1, NULL, nic_cpus("3-4"), 0, &why), "mlx5_1");
    cr_expect(strstr(why, "hold part of this PE's binding 3-4"), "%s", why);
    /* Some of the binding beats none: a binding partly beyond this
     * topology's CPUs, so that neither package nor the machine holds it. */
    static const ofi_nic_cand_t d[] = {{"mlx5_1", NULL}, {"eth0", NULL}, {"mlx5_0", NULL}};
    cr_expect_str_eq(nic_pick(d, 3, NULL, nic_cpus("3,9"), 1, &why), "mlx5_0", "%s", why);
    cr_expect_str_eq(nic_pick(d, 1, NULL, nic_cpus("3,9"), 1, &why), "mlx5_1", "%s", why);
    cr_expect(strstr(why, "apart from this PE's binding 3,9"), "%s", why);
}

Test(ofi_nic, ties_spread_by_local_rank)
{
    static const ofi_nic_cand_t efa[] = {{"rdmap25s0-rdm", NULL}, {"rdmap26s0-rdm", NULL}};
    static const char *const expect[] = {"rdmap25s0-rdm", "rdmap26s0-rdm", "rdmap25s0-rdm"};
    const char *why;
    nic_load(NIC_DATA "nic_efa_switch.xml");
    for (int g = 0; g < 2; g++)
        for (int rank = 0; rank < 3; rank++) {
            const char *gpu = g ? "0000:18:00.0" : "0000:17:00.0";
            cr_expect_str_eq(nic_pick(efa, 2, gpu, NULL, rank, &why), expect[rank], "%s", why);
            char of[32];
            snprintf(of, sizeof of, "(%d of 2 that close)", rank % 2 + 1);
            cr_expect(strstr(why, of), "%s", why);
        }
}

Test(ofi_nic, ties_count_each_domain_once)
{
    /* libfabric lists a domain once per address format, for instance. */
    static const ofi_nic_cand_t c[] = {
        {"mlx5_0", NULL}, {"mlx5_0", NULL}, {"mlx5_1", NULL}, {"mlx5_2", NULL}};
    ofi_nic_choice_t ch;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    hwloc_const_cpuset_t cpus = nic_cpus("0-1");
    static const int expect[] = {0, 3, 0};
    for (int rank = 0; rank < 3; rank++) {
        cr_assert_eq(ofi_nic_choose(nic_topo, c, 4, NULL, NULL, cpus, rank, &ch), 0);
        cr_expect_eq(ch.index, expect[rank], "rank %d: %d (%s)", rank, ch.index, ch.why);
        cr_expect(strstr(ch.why, "of 2 that close"), "%s", ch.why);
    }
}

Test(ofi_nic, want_is_honoured_even_farthest)
{
    static const ofi_nic_cand_t c[] = {
        {"mlx5_0", NULL}, {"eth0", NULL}, {"mlx5_1", NULL}, {"eth0", "0000:01:00.0"}};
    ofi_nic_choice_t ch;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_assert_eq(ofi_nic_choose(nic_topo, c, 4, "eth0", "0000:17:00.0", NULL, 1, &ch), 0);
    cr_expect_eq(ch.index, 1, "%d: %s", ch.index, ch.why);
    cr_expect(strstr(ch.why, "GSHMEM_OFI_NIC"), "%s", ch.why);
    /* Not even a topology is needed. */
    cr_assert_eq(ofi_nic_choose(NULL, c, 4, "mlx5_1", NULL, NULL, 0, &ch), 0);
    cr_expect_eq(ch.index, 2);
    /* "" is automatic. */
    cr_assert_eq(ofi_nic_choose(nic_topo, c, 4, "", "0000:17:00.0", NULL, 0, &ch), 0);
    cr_expect_eq(ch.index, 0, "%s", ch.why);
}

Test(ofi_nic, unknown_want_names_it_and_the_candidates)
{
    ofi_nic_choice_t ch;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_assert_eq(ofi_nic_choose(nic_topo, two_sockets_pci, 4, "mlx5_9", "0000:17:00.0", NULL, 0,
                                &ch), -1);
    cr_expect_eq(ch.index, -1);
    cr_expect(strstr(ch.why, "mlx5_9"), "%s", ch.why);
    for (int i = 0; i < 4; i++)
        cr_expect(strstr(ch.why, two_sockets_pci[i].domain), "%s lacks %s", ch.why,
                  two_sockets_pci[i].domain);
    /* Too many to list: the message is cut, visibly. */
    ofi_nic_cand_t many[OFI_NIC_MAX];
    for (int i = 0; i < OFI_NIC_MAX; i++)
        many[i] = (ofi_nic_cand_t){"a_rather_long_domain_name", NULL};
    cr_assert_eq(ofi_nic_choose(nic_topo, many, OFI_NIC_MAX, "x", NULL, NULL, 0, &ch), -1);
    cr_expect_lt(strlen(ch.why), sizeof ch.why);
    cr_expect(strstr(ch.why, "...") != NULL, "%s", ch.why);
}

Test(ofi_nic, unplaced_candidates_lose)
{
    static const ofi_nic_cand_t c[] = {{"veth3", NULL}, {"lo", NULL}, {"mlx5_2", NULL}};
    const char *why;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_expect_str_eq(nic_pick(c, 3, "0000:17:00.0", NULL, 0, NULL), "mlx5_2");
    cr_expect_str_eq(nic_pick(c, 3, NULL, nic_cpus("4-7"), 0, NULL), "mlx5_2");
    for (int rank = 0; rank < 3; rank++)
        cr_expect_str_eq(nic_pick(c, 3, NULL, NULL, rank, NULL), "mlx5_2");
    /* None placed: libfabric's first, for every rank. */
    for (int rank = 0; rank < 3; rank++) {
        cr_expect_str_eq(nic_pick(c, 2, "0000:17:00.0", NULL, rank, &why), "veth3");
        cr_expect(strstr(why, "no candidate is in the hwloc topology"), "%s", why);
    }
    /* No topology at all (hwloc failed): the same. */
    ofi_nic_choice_t ch;
    cr_assert_eq(ofi_nic_choose(NULL, c, 3, NULL, "0000:17:00.0", NULL, 1, &ch), 0);
    cr_expect_eq(ch.index, 0);
    cr_expect(strstr(ch.why, "no hwloc topology"), "%s", ch.why);
}

Test(ofi_nic, unknown_gpu_falls_back_to_cpus_then_to_equal)
{
    static const ofi_nic_cand_t c[] = {{"veth3", NULL}, {"mlx5_1", NULL}, {"mlx5_0", NULL}};
    const char *why;
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_expect_str_eq(nic_pick(c, 3, "0000:99:00.0", nic_cpus("0-3"), 0, &why), "mlx5_0");
    cr_expect(strstr(why, "binding 0-3") && strstr(why, "GPU 0000:99:00.0 is not in"), "%s",
              why);
    cr_expect_str_eq(nic_pick(c, 3, "0000:99:00.0", nic_cpus("4-7"), 0, NULL), "mlx5_1");
    /* Neither: every placed NIC as close, the machine's eth0 included. An
     * empty binding is as good as none. */
    static const ofi_nic_cand_t d[] = {{"veth3", NULL}, {"eth0", NULL}, {"mlx5_0", NULL}};
    static const char *const equal[] = {"eth0", "mlx5_0", "eth0"};
    hwloc_const_cpuset_t none = nic_cpus("");
    for (int rank = 0; rank < 3; rank++) {
        cr_expect_str_eq(nic_pick(d, 3, "0000:99:00.0", NULL, rank, &why), equal[rank]);
        cr_expect(strstr(why, "no GPU or CPU binding") && strstr(why, "of 2 that close"), "%s",
                  why);
        cr_expect_str_eq(nic_pick(d, 3, "bogus", none, rank, &why), equal[rank], "%s", why);
    }
}

Test(ofi_nic, limits)
{
    ofi_nic_cand_t many[OFI_NIC_MAX + 1];
    ofi_nic_choice_t ch;
    for (int i = 0; i < OFI_NIC_MAX + 1; i++)
        many[i] = (ofi_nic_cand_t){"mlx5_0", NULL};
    nic_load(NIC_DATA "nic_two_sockets.xml");
    cr_expect_eq(ofi_nic_choose(nic_topo, many, OFI_NIC_MAX + 1, NULL, NULL, NULL, 0, &ch), -1);
    cr_expect_eq(ch.index, -1);
    cr_expect(strstr(ch.why, "65 candidates") && strstr(ch.why, "1 to 64"), "%s", ch.why);
    cr_expect_eq(ofi_nic_choose(nic_topo, many, 0, NULL, NULL, NULL, 0, &ch), -1);
    cr_expect_eq(ofi_nic_choose(nic_topo, NULL, 2, NULL, NULL, NULL, 0, &ch), -1);
    cr_expect_eq(ofi_nic_choose(nic_topo, many, 1, NULL, NULL, NULL, 0, NULL), -1);
    cr_expect_eq(ofi_nic_choose(nic_topo, many, OFI_NIC_MAX, NULL, NULL, NULL, -5, &ch), 0);
    cr_expect_eq(ch.index, 0, "%s", ch.why);
    hwloc_topology_t t = NULL;
    cr_expect_eq(ofi_nic_topology_load(NIC_DATA "no_such_file.xml", &t), -1);
    cr_expect_null(t);
}

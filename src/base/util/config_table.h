/* config_table.h: the one table of GSHMEM_* settings.
 * GSHMEMI_CFG(type, NAME after GSHMEM_, struct field, default as a string,
 * help). Types: size, bool, int, string. Included with GSHMEMI_CFG defined;
 * no include guard on purpose. */
GSHMEMI_CFG(size, SYMMETRIC_SIZE, symmetric_size, "256M",
            "bytes of symmetric heap per PE: digits and an optional K, M, G or T (powers of "
            "1024); a host heap at most the machine's physical memory")
GSHMEMI_CFG(bool, SYMMETRIC_DATA, symmetric_data, "1",
            "host heaps: the program's global and static variables (data+bss) are "
            "symmetric (0: only the heap)")
GSHMEMI_CFG(string, SYMMETRIC_LIBS, symmetric_libs, "",
            "comma list of loaded shared libraries (file names, e.g. libfoo.so.1) whose "
            "globals are symmetric too")
GSHMEMI_CFG(string, DEBUG, debug, "WARN",
            "log level: NONE, ERROR, WARN, INFO, DEBUG or TRACE")
GSHMEMI_CFG(string, TRACE, trace, "",
            "path prefix: each PE writes PREFIX.<pe>.csv at finalize, timestamps of the "
            "network path's stages (scripts/trace_stages.py reads them; empty: off); init "
            "creates the file and fails if it exists (never overwritten, no link followed)")
GSHMEMI_CFG(string, DEBUG_SUBSYS, debug_subsys, "ALL",
            "comma list of INIT,HEAP,TRANSPORT,PROXY,AGG,BOOTSTRAP,COLL or ALL")
GSHMEMI_CFG(string, BOOTSTRAP, bootstrap, "auto",
            "auto, local (gshmemrun), mpi, pmix, uid (a unique ID) or self (one PE)")
GSHMEMI_CFG(string, BOOTSTRAP_UID, bootstrap_uid, "",
            "uid bootstrap without gshmem_init_attr: the ID's text (gshmem-uid1 ADDR PORT "
            "TOKEN; PE 0 listens on ADDR:PORT); with BOOTSTRAP_UID_PE and _N_PES")
GSHMEMI_CFG(int, BOOTSTRAP_UID_PE, bootstrap_uid_pe, "-1",
            "uid bootstrap without gshmem_init_attr: this PE's number")
GSHMEMI_CFG(int, BOOTSTRAP_UID_N_PES, bootstrap_uid_n_pes, "0",
            "uid bootstrap without gshmem_init_attr: the job's PE count")
GSHMEMI_CFG(string, BOOTSTRAP_UID_IFACE, bootstrap_uid_iface, "",
            "uid bootstrap: the interface (or IP address) gshmem_get_uniqueid listens on; "
            "empty: the first up interface with an IPv4 address that is not loopback, else "
            "loopback")
GSHMEMI_CFG(int, BOOTSTRAP_UID_TIMEOUT, bootstrap_uid_timeout, "60",
            "uid bootstrap: seconds PE 0 waits for every PE to join (the others wait 5 s "
            "more for its answer); 0: no limit")
GSHMEMI_CFG(string, TRANSPORTS, transports, "auto",
            "comma list in order of preference: p2p, shm, ofi; auto = p2p,shm,ofi")
GSHMEMI_CFG(bool, DISABLE_P2P, disable_p2p, "0",
            "do not use load/store peer mappings (GPU P2P) even where possible")
GSHMEMI_CFG(bool, P2P_BATCH, p2p_batch, "1",
            "p2p: small puts and signals from the engine go through batches (0: a CUDA "
            "call each)")
GSHMEMI_CFG(string, OFI_PROVIDER, ofi_provider, "",
            "libfabric provider, e.g. shm, tcp;ofi_rxm, verbs;ofi_rxm (empty: a fabric's own, then "
            "tcp or shm, then udp, sockets last)")
GSHMEMI_CFG(string, OFI_NIC, ofi_nic, "",
            "ofi: the NIC (libfabric domain, e.g. mlx5_1, cxi0, eth1) every PE of this process "
            "uses (empty: the one nearest the PE's GPU, else its CPU binding, by hwloc)")
GSHMEMI_CFG(bool, OFI_AM, ofi_am, "0",
            "ofi: use the active-message path (what a CUDA heap takes without FI_HMEM) for a "
            "host heap too: tests and benchmarks of that path without a GPU")
GSHMEMI_CFG(bool, OFI_CQ_DATA, ofi_cq_data, "1",
            "ofi: a collective's signal rides in its data's write as remote CQ data where the "
            "provider does not order writes (tcp;ofi_rxm; 0: a fenced atomic after the write)")
GSHMEMI_CFG(bool, OFI_AM_COALESCE, ofi_am_coalesce, "1",
            "ofi active messages: puts to one PE share messages, copies issued without "
            "waiting (0: one message and one waited copy per put)")
GSHMEMI_CFG(bool, OFI_AM_BATCH, ofi_am_batch, "1",
            "ofi active messages: the target applies records of up to 8 bytes to a CUDA heap "
            "with one kernel per 1024 (the small-op batch; 0: a copy each)")
GSHMEMI_CFG(size, OFI_AM_CHUNK, ofi_am_chunk, "1M",
            "ofi active messages: payload bytes of one message (4K to 4M)")
GSHMEMI_CFG(int, OFI_AM_RAILS, ofi_am_rails, "4",
            "ofi active messages: endpoints per PE (1 to 8), each in its own domain with its "
            "own progress thread; messages to a PE take them in turn")
GSHMEMI_CFG(int, TIMEOUT, timeout, "0",
            "a debugging limit: seconds one wait (barrier, collective, wait_until, lock, "
            "bootstrap exchange) may last before the PE ends the job; 0: no limit (a dead "
            "PE is reported by the launcher). Device waits (stages, aggregator): this, or "
            "60 when 0")
GSHMEMI_CFG(int, STOPPED_TIMEOUT, stopped_timeout, "10",
            "seconds a PE may stay stopped (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) before "
            "gshmemrun ends the job, or (any launcher) a PE of its node waiting for it gives "
            "up, naming it; 0: never")
GSHMEMI_CFG(bool, INFO, info, "0", "print this table at init (PE 0)")
GSHMEMI_CFG(bool, ENABLE_ERROR_CHECKS, enable_error_checks, "1",
            "check arguments and collective consistency (malloc sizes across PEs)")
GSHMEMI_CFG(string, HEAP, heap, "auto",
            "heap memory: host, cuda (the PE's GPU) or auto: cuda when built with CUDA and "
            "a GPU is visible, else host (each PE's choice and why: INFO [HEAP] line)")
GSHMEMI_CFG(size, STREAM_CE_MIN, stream_ce_min, "256K",
            "on-stream puts and all-to-alls to PEs mapped here (P2P peers, this PE): from this "
            "many bytes the copy engines move the data (cudaMemcpyAsync), below it SM stores "
            "(a kernel); 0: never the copy engines")
GSHMEMI_CFG(bool, DEVICE_QUEUE_ONLY, device_queue_only, "0",
            "device calls use the queue path even to load/store peers (testing, benchmarks)")
GSHMEMI_CFG(int, IDLE_SPIN_US, idle_spin_us, "1000",
            "the proxy engine and ofi's progress thread poll this many us after their last "
            "work before they nap (0: nap at once)")
GSHMEMI_CFG(int, IDLE_NAP_US, idle_nap_us, "50",
            "their longest nap once idle (naps double from 1 us up to this)")
GSHMEMI_CFG(size, AGG_BYTES, agg_bytes, "16K",
            "aggregator: bytes of one buffer per destination PE (gshmem_agg_attr_init)")
GSHMEMI_CFG(int, AGG_BUFS, agg_bufs, "4",
            "aggregator: buffers per destination PE, 1 to 64 (in flight at once; receive ring "
            "slots)")
GSHMEMI_CFG(int, AGG_WAIT_US, agg_wait_us, "100",
            "aggregator: a buffer holding records is sent at most this many us after its first "
            "(0 to 10000000)")
GSHMEMI_CFG(bool, AGG_P2P_BYPASS, agg_p2p_bypass, "1",
            "aggregator: records to PEs reached by load/store are stored directly")

/* local_proto.h: the wire protocol between gshmemrun's rendezvous server
 * (tools/gshmemrun/rdv_server.c) and the local bootstrap client
 * (src/base/bootstrap/bootstrap_local.c), over a Unix stream socket.
 *
 * Every message is a fixed header followed by len payload bytes.
 *   client -> server: HELLO (pe, arg = n_pes), ALLGATHER (payload: this PE's
 *                     contribution), ABORT (arg = status, payload: text),
 *                     BYE (finalize), QUERY (who is missing in this round),
 *                     EXIT (gshmem_global_exit: arg = the job's status, 0
 *                     included; payload: text)
 *   server -> client: WELCOME (arg = n_pes), RESULT (n_pes * len bytes, PE
 *                     order), BYE_ACK, ERROR (text; the server then closes),
 *                     QUERY_REPLY (text)
 * A barrier is an allgather of 0 bytes. A PE may connect again (HELLO) after
 * its BYE_ACK: init/finalize may be repeated within one run. */
#ifndef GSHMEMI_LOCAL_PROTO_H
#define GSHMEMI_LOCAL_PROTO_H

#include <stdint.h>

#define GSHMEMI_LP_MAGIC 0x67736872u              /* "gshr" */
#define GSHMEMI_LP_MAX_PAYLOAD ((uint64_t)1 << 30)  /* one message */

/* Environment left by gshmemrun for each PE. */
#define GSHMEMI_LP_ENV_SOCKET "GSHMEMRUN_SOCKET"
#define GSHMEMI_LP_ENV_PE "GSHMEMRUN_PE"
#define GSHMEMI_LP_ENV_N_PES "GSHMEMRUN_N_PES"
#define GSHMEMI_LP_ENV_DIR "GSHMEMRUN_DIR"

enum gshmemi_lp_type {
    GSHMEMI_LP_HELLO = 1,
    GSHMEMI_LP_WELCOME = 2,
    GSHMEMI_LP_ALLGATHER = 3,
    GSHMEMI_LP_RESULT = 4,
    GSHMEMI_LP_ABORT = 5,
    GSHMEMI_LP_BYE = 6,
    GSHMEMI_LP_BYE_ACK = 7,
    GSHMEMI_LP_ERROR = 8,
    GSHMEMI_LP_QUERY = 9,
    GSHMEMI_LP_QUERY_REPLY = 10,
    GSHMEMI_LP_EXIT = 11
};

typedef struct gshmemi_lp_hdr {
    uint32_t magic;
    uint32_t type;
    int32_t pe;
    int32_t arg;
    uint64_t len;
} gshmemi_lp_hdr_t;

#endif /* GSHMEMI_LOCAL_PROTO_H */

/* cn_trace.c: cloudnoise's MPI trace recorder (PMPI interposition).
 *
 * Built with the user's mpicc as a shared library (loaded with LD_PRELOAD by
 * `cloudnoise trace record`) or as an object to link into the application
 * (`cloudnoise trace lib --static`). Each wrapped MPI call is timed on entry
 * and exit with CLOCK_MONOTONIC_RAW and appended, with its arguments, to a
 * per-rank buffer in the binary format of cn_trace_format.h; the buffer is
 * written to $CN_TRACE_DIR/rank-NNNNNN.cntr when it fills and at
 * MPI_Finalize. The per-call cost is two clock reads, a datatype size and a
 * memcpy of a few dozen bytes (bench/bench_trace.py measures it).
 *
 * Calls the recorder does not wrap bypass it, so at MPI_Init it reads the
 * executable's dynamic symbol table and lists every MPI function the
 * application imports that it neither wraps nor knows to be local (a NAMES
 * record): the converter reports them instead of silently losing their time.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cn_timer.h"
#include "cn_trace_format.h"

/* ------------------------------------------------------------------ state */

static int cn_on;              /* between MPI_Init's exit and MPI_Finalize */
static int cn_rank, cn_size;
static int64_t cn_t0;          /* init exit, CLOCK_MONOTONIC_RAW ns */
static int cn_fd = -1;
static unsigned char *cn_buf;
static size_t cn_used, cn_cap;
static uint64_t cn_records;
static char cn_path[4096];

/* communicators: handle -> per-rank id (0 world, 1 self, then 2, 3, ...) */
struct cn_comm_slot {
    MPI_Comm comm;
    uint32_t id;
};
static struct cn_comm_slot *cn_comms;
static size_t cn_ncomms, cn_comms_cap;
static uint32_t cn_next_comm = 2;

/* scratch for the Wait/Test families */
static uint64_t *cn_handles;
static MPI_Status *cn_statuses;
static size_t cn_scratch_cap;

/* Polling runs being folded (POLL records, cn_trace_format.h): a fixed
 * table, so memory does not grow with the run. */
struct cn_poll {
    uint32_t call, nreq;
    int32_t peer, tag;
    uint32_t comm;
    uint64_t calls;
    int64_t first_entry, last_exit, inside_ns;
    uint64_t reqs[CN_POLL_REQS];
};
static struct cn_poll cn_polls[CN_POLL_SETS];
static int cn_npolls;
static int cn_fold = 1; /* 0: every poll is its own record (CN_TRACE_POLLING=every) */

/* ------------------------------------------------------------ the buffer */

static void cn_fail(const char *what)
{
    fprintf(stderr, "cloudnoise trace: rank %d: %s %s: %s; this rank's trace is incomplete\n",
            cn_rank, what, cn_path, strerror(errno));
    if (cn_fd >= 0)
        close(cn_fd);
    cn_fd = -1;
    cn_on = 0;
}

static void cn_flush(void)
{
    size_t done = 0;
    while (cn_fd >= 0 && done < cn_used) {
        ssize_t n = write(cn_fd, cn_buf + done, cn_used - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            cn_fail("cannot write");
            break;
        }
        done += (size_t)n;
    }
    cn_used = 0;
}

/* Room for n more bytes; returns where they go. */
static unsigned char *cn_reserve(size_t n)
{
    if (cn_used + n > cn_cap)
        cn_flush();
    if (n > cn_cap) {
        unsigned char *bigger = realloc(cn_buf, n);
        if (!bigger) {
            errno = ENOMEM;
            cn_fail("out of memory for");
            return NULL;
        }
        cn_buf = bigger;
        cn_cap = n;
    }
    unsigned char *p = cn_buf + cn_used;
    cn_used += n;
    return p;
}

#define PUT(p, v)                         \
    do {                                  \
        __typeof__(v) cn_tmp_ = (v);      \
        memcpy((p), &cn_tmp_, sizeof cn_tmp_); \
        (p) += sizeof cn_tmp_;            \
    } while (0)

static void cn_poll_flush(void);

/* Starts a record with `payload` bytes after its prefix; NULL if off. The
 * polling runs folded so far are written first, so records stay in the
 * order of the calls. */
static unsigned char *cn_record(int call, size_t payload, int64_t t_entry, int64_t t_exit)
{
    if (!cn_on)
        return NULL;
    if (cn_npolls)
        cn_poll_flush();
    unsigned char *p = cn_reserve(CN_TRACE_PREFIX_BYTES + payload);
    if (!p)
        return NULL;
    PUT(p, (uint16_t)call);
    PUT(p, (uint16_t)0);
    PUT(p, (uint32_t)(16 + payload));
    PUT(p, (int64_t)(t_entry - cn_t0));
    PUT(p, (int64_t)(t_exit - cn_t0));
    cn_records++;
    return p;
}

/* ------------------------------------------------------------- helpers */

static uint64_t cn_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}

static uint64_t cn_req(MPI_Request r)
{
    uint64_t h = 0;
    memcpy(&h, &r, sizeof r < sizeof h ? sizeof r : sizeof h);
    return h;
}

static int32_t cn_peer(int p)
{
    if (p == MPI_ANY_SOURCE)
        return CN_PEER_ANY;
    if (p == MPI_PROC_NULL)
        return CN_PEER_NULL;
    return p;
}

static int32_t cn_tag(int t) { return t == MPI_ANY_TAG ? CN_TAG_ANY : t; }

static uint32_t cn_comm_add(MPI_Comm c)
{
    if (cn_ncomms == cn_comms_cap) {
        size_t cap = cn_comms_cap ? 2 * cn_comms_cap : 16;
        struct cn_comm_slot *bigger = realloc(cn_comms, cap * sizeof *bigger);
        if (!bigger)
            return CN_COMM_NULL;
        cn_comms = bigger;
        cn_comms_cap = cap;
    }
    cn_comms[cn_ncomms].comm = c;
    cn_comms[cn_ncomms].id = cn_next_comm++;
    return cn_comms[cn_ncomms++].id;
}

/* The id of a communicator; one the recorder did not see created gets a
 * fresh id with no COMM record, which the converter reports. */
static uint32_t cn_comm(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return 0;
    if (c == MPI_COMM_SELF)
        return 1;
    if (c == MPI_COMM_NULL)
        return CN_COMM_NULL;
    for (size_t i = cn_ncomms; i-- > 0;)
        if (cn_comms[i].comm == c)
            return cn_comms[i].id;
    return cn_comm_add(c);
}

static void cn_comm_forget(MPI_Comm c)
{
    for (size_t i = 0; i < cn_ncomms; i++)
        if (cn_comms[i].comm == c) {
            cn_comms[i] = cn_comms[--cn_ncomms];
            return;
        }
}

static int cn_scratch(size_t n)
{
    if (n <= cn_scratch_cap)
        return 1;
    size_t cap = n < 64 ? 64 : n;
    uint64_t *h = realloc(cn_handles, cap * sizeof *h);
    if (!h)
        return 0;
    cn_handles = h;
    MPI_Status *s = realloc(cn_statuses, cap * sizeof *s);
    if (!s)
        return 0;
    cn_statuses = s;
    cn_scratch_cap = cap;
    return 1;
}

static void cn_put_status(unsigned char **p, const MPI_Status *st)
{
    int n = 0;
    MPI_Status copy = *st;
    PMPI_Get_count(&copy, MPI_BYTE, &n);
    PUT(*p, (int32_t)cn_peer(st->MPI_SOURCE));
    PUT(*p, (int32_t)st->MPI_TAG);
    PUT(*p, (uint64_t)(n == MPI_UNDEFINED || n < 0 ? 0 : n));
}

/* A completed request's status: as cn_put_status, or source
 * CN_PEER_CANCELLED when the request was cancelled (no message). */
static void cn_put_completion(unsigned char **p, const MPI_Status *st)
{
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (!cancelled) {
        cn_put_status(p, st);
        return;
    }
    PUT(*p, (int32_t)CN_PEER_CANCELLED);
    PUT(*p, (int32_t)CN_TAG_ANY);
    PUT(*p, (uint64_t)0);
}

/* --------------------------------------------------- record by layout */

static void rec_p2p(int call, int64_t t0, int64_t t1, int peer, int tag, MPI_Comm comm,
                    uint64_t bytes, uint64_t req)
{
    unsigned char *p = cn_record(call, 32, t0, t1);
    if (!p)
        return;
    PUT(p, cn_peer(peer));
    PUT(p, cn_tag(tag));
    PUT(p, cn_comm(comm));
    PUT(p, (uint32_t)0);
    PUT(p, bytes);
    PUT(p, req);
}

static void rec_recv(int call, int64_t t0, int64_t t1, int peer, int tag, MPI_Comm comm,
                     uint64_t bytes, uint32_t flags, const MPI_Status *st)
{
    unsigned char *p = cn_record(call, 48, t0, t1);
    if (!p)
        return;
    PUT(p, cn_peer(peer));
    PUT(p, cn_tag(tag));
    PUT(p, cn_comm(comm));
    PUT(p, flags);
    PUT(p, bytes);
    PUT(p, (uint64_t)0);
    cn_put_status(&p, st);
}

static void rec_coll(int call, int64_t t0, int64_t t1, MPI_Comm comm, int root, uint64_t sbytes,
                     uint64_t rbytes, uint64_t req, int nvec, const int *counts1,
                     MPI_Datatype type1, const int *counts2, MPI_Datatype type2)
{
    int n1 = counts1 ? nvec : 0, n2 = counts2 ? nvec : 0;
    unsigned char *p = cn_record(call, 40 + 8 * (size_t)(n1 + n2), t0, t1);
    if (!p)
        return;
    PUT(p, cn_comm(comm));
    PUT(p, (int32_t)root);
    PUT(p, sbytes);
    PUT(p, rbytes);
    PUT(p, req);
    PUT(p, (uint32_t)(n1 + n2));
    PUT(p, (uint32_t)0);
    if (n1 + n2 == 0)
        return;
    int s1 = 0, s2 = 0;
    if (n1)
        PMPI_Type_size(type1, &s1);
    if (n2)
        PMPI_Type_size(type2, &s2);
    for (int i = 0; i < n1; i++)
        PUT(p, (uint64_t)(counts1[i] > 0 ? counts1[i] : 0) * (uint64_t)s1);
    for (int i = 0; i < n2; i++)
        PUT(p, (uint64_t)(counts2[i] > 0 ? counts2[i] : 0) * (uint64_t)s2);
}

static void rec_plain(int call, int64_t t0, int64_t t1) { (void)cn_record(call, 0, t0, t1); }

/* A new communicator: its name (root's world rank and creation counter,
 * broadcast on it), members in world ranks, and Cartesian grid if any. */
static void rec_comm(int call, int64_t t0, int64_t t1, MPI_Comm parent, MPI_Comm c)
{
    uint32_t parent_id = cn_comm(parent);
    if (!cn_on)
        return;
    if (c == MPI_COMM_NULL) {
        unsigned char *p = cn_record(call, 32, t0, t1);
        if (!p)
            return;
        PUT(p, parent_id);
        PUT(p, CN_COMM_NULL);
        for (int i = 0; i < 6; i++)
            PUT(p, (uint32_t)0);
        return;
    }
    uint32_t id = cn_comm_add(c);
    int size = 0, rank = 0, inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    PMPI_Comm_size(c, &size);
    PMPI_Comm_rank(c, &rank);
    int name[2] = {cn_rank, (int)id};
    if (!inter)
        PMPI_Bcast(name, 2, MPI_INT, 0, c);
    int *members = malloc((size_t)(size > 0 ? size : 1) * 2 * sizeof(int));
    if (!members)
        return;
    int *local = members + size;
    MPI_Group g, world;
    PMPI_Comm_group(c, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < size; i++)
        local[i] = i;
    PMPI_Group_translate_ranks(g, size, local, world, members);
    PMPI_Group_free(&g);
    PMPI_Group_free(&world);
    int identity = size == cn_size;
    for (int i = 0; identity && i < size; i++)
        identity = members[i] == i;
    int topo = MPI_UNDEFINED, ndims = 0;
    PMPI_Topo_test(c, &topo);
    if (topo == MPI_CART)
        PMPI_Cartdim_get(c, &ndims);
    int *dims = NULL;
    if (ndims > 0) {
        dims = malloc((size_t)ndims * 3 * sizeof(int));
        if (dims)
            PMPI_Cart_get(c, ndims, dims, dims + ndims, dims + 2 * ndims);
        else
            ndims = 0;
    }
    size_t payload = 32 + (identity ? 0 : 4 * (size_t)size) + 8 * (size_t)ndims;
    unsigned char *p = cn_record(call, payload, t0, t1);
    if (p) {
        PUT(p, parent_id);
        PUT(p, id);
        PUT(p, (uint32_t)name[0]);
        PUT(p, (uint32_t)name[1]);
        PUT(p, (uint32_t)size);
        PUT(p, (uint32_t)rank);
        PUT(p, (uint32_t)ndims);
        PUT(p, (uint32_t)((identity ? 1u : 0u) | (ndims ? 2u : 0u)));
        if (!identity)
            for (int i = 0; i < size; i++)
                PUT(p, (int32_t)members[i]);
        for (int i = 0; i < 2 * ndims; i++)
            PUT(p, (int32_t)dims[i]);
    }
    free(dims);
    free(members);
}

/* ------------------------------------------------------------ polling
 *
 * An unsuccessful MPI_Test* (it completed nothing) or MPI_Iprobe (it found
 * nothing) moves no data: converted, its time is compute. A loop of them
 * is folded into one POLL record per polled set (same call, same
 * requests, or the same source, tag and communicator), written when the
 * next other record is; a set seen once is written as its own record,
 * exactly as it would be without folding. */

static void cn_poll_write(const struct cn_poll *q)
{
    if (q->calls == 1 && q->call == CN_CALL_MPI_Iprobe) {
        unsigned char *p = cn_record((int)q->call, 48, q->first_entry, q->last_exit);
        if (!p)
            return;
        PUT(p, q->peer);
        PUT(p, q->tag);
        PUT(p, q->comm);
        PUT(p, (uint32_t)0);
        PUT(p, (uint64_t)0);
        PUT(p, (uint64_t)0);
        PUT(p, (int32_t)CN_PEER_NULL);
        PUT(p, (int32_t)CN_TAG_ANY);
        PUT(p, (uint64_t)0);
        return;
    }
    if (q->calls == 1) {
        unsigned char *p = cn_record((int)q->call, 8, q->first_entry, q->last_exit);
        if (!p)
            return;
        PUT(p, q->nreq);
        PUT(p, (uint32_t)0);
        return;
    }
    unsigned char *p = cn_record(CN_CALL_CN_POLL, 40 + 8 * (size_t)q->nreq, q->first_entry, q->last_exit);
    if (!p)
        return;
    PUT(p, q->call);
    PUT(p, q->nreq);
    PUT(p, q->calls);
    PUT(p, q->inside_ns);
    PUT(p, q->peer);
    PUT(p, q->tag);
    PUT(p, q->comm);
    PUT(p, (uint32_t)0);
    memcpy(p, q->reqs, 8 * (size_t)q->nreq);
}

static void cn_poll_flush(void)
{
    int n = cn_npolls;
    cn_npolls = 0; /* (cn_record, called below, flushes while this is set) */
    for (int i = 0; i < n; i++)
        cn_poll_write(&cn_polls[i]);
}

/* Folds one unsuccessful poll; 0 when it must be recorded as usual. */
static int cn_poll(int call, int64_t t0, int64_t t1, int nreq, const uint64_t *handles, int32_t peer,
                   int32_t tag, uint32_t comm)
{
    if (!cn_on || !cn_fold || nreq < 0 || nreq > CN_POLL_REQS)
        return 0;
    for (int i = 0; i < cn_npolls; i++) {
        struct cn_poll *q = &cn_polls[i];
        if (q->call == (uint32_t)call && q->nreq == (uint32_t)nreq && q->peer == peer && q->tag == tag &&
            q->comm == comm && (nreq == 0 || memcmp(q->reqs, handles, 8 * (size_t)nreq) == 0)) {
            q->calls++;
            q->last_exit = t1;
            q->inside_ns += t1 - t0;
            return 1;
        }
    }
    if (cn_npolls == CN_POLL_SETS)
        cn_poll_flush();
    struct cn_poll *q = &cn_polls[cn_npolls++];
    q->call = (uint32_t)call;
    q->nreq = (uint32_t)nreq;
    q->peer = peer;
    q->tag = tag;
    q->comm = comm;
    q->calls = 1;
    q->first_entry = t0;
    q->last_exit = t1;
    q->inside_ns = t1 - t0;
    if (nreq)
        memcpy(q->reqs, handles, 8 * (size_t)nreq);
    return 1;
}

/* --------------------------------------- unwrapped imports (ELF scan) */

static const char *const cn_wrapped[] = {
#define CN_NAME(num, name, layout) #name,
    CN_TRACE_CALLS(CN_NAME)
#undef CN_NAME
    NULL};

/* MPI functions that only query or set up local state: their time is
 * compute time, and not recording them loses nothing. */
static const char *const cn_local_prefixes[] = {
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group", "MPI_Comm_compare", "MPI_Comm_test_inter",
    "MPI_Comm_get_", "MPI_Comm_set_", "MPI_Comm_call_errhandler", "MPI_Comm_remote_",
    "MPI_Wtime", "MPI_Wtick", "MPI_Get_", "MPI_Type_", "MPI_Op_", "MPI_Group_", "MPI_Error_",
    "MPI_Errhandler_", "MPI_Initialized", "MPI_Finalized", "MPI_Query_thread", "MPI_Is_thread_main",
    "MPI_Dims_create", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_get", "MPI_Cartdim_get",
    "MPI_Cart_map", "MPI_Topo_test", "MPI_Graph_get", "MPI_Graphdims_get", "MPI_Graph_neighbors",
    "MPI_Info_", "MPI_Alloc_mem", "MPI_Free_mem", "MPI_Pack", "MPI_Unpack", "MPI_Status_",
    "MPI_Buffer_", "MPI_Address", "MPI_Aint_", "MPI_Keyval_", "MPI_Attr_", "MPI_Add_error_",
    "MPI_Request_get_status", "MPI_Pcontrol", "MPI_T_", "MPI_Session_", "MPI_Abi_",
    NULL};

static int cn_known(const char *name)
{
    for (const char *const *w = cn_wrapped; *w; w++)
        if (strcmp(*w, name) == 0)
            return 1;
    for (const char *const *l = cn_local_prefixes; *l; l++)
        if (strncmp(*l, name, strlen(*l)) == 0)
            return 1;
    return 0;
}

static void rec_unwrapped(int64_t t)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0)
        return;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    size_t len = (size_t)sb.st_size;
    const unsigned char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    char names[8192];
    size_t used = 0;
    uint32_t count = 0;
    const Elf64_Ehdr *eh = (const void *)m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
        goto done;
    const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > len || strs->sh_offset + strs->sh_size > len)
            continue;
        const Elf64_Sym *sym = (const void *)(m + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < n; k++) {
            if (sym[k].st_shndx != SHN_UNDEF || sym[k].st_name >= strs->sh_size)
                continue;
            const char *name = (const char *)(m + strs->sh_offset + sym[k].st_name);
            size_t nlen = strnlen(name, strs->sh_size - sym[k].st_name);
            if (nlen < 5 || (strncmp(name, "MPI_", 4) != 0 && strncmp(name, "mpi_", 4) != 0))
                continue;
            if (name[nlen] != '\0' || cn_known(name) || used + nlen + 1 > sizeof names)
                continue;
            memcpy(names + used, name, nlen + 1);
            used += nlen + 1;
            count++;
        }
    }
done:
    munmap((void *)m, len);
    if (count == 0)
        return;
    unsigned char *p = cn_record(CN_CALL_CN_NAMES, 8 + used, t, t);
    if (!p)
        return;
    PUT(p, count);
    PUT(p, (uint32_t)used);
    memcpy(p, names, used);
}

/* ------------------------------------------------- start and finish */

static void cn_start(int call, int64_t t_entry)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &cn_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cn_size);
    /* a common origin for every rank's clock */
    PMPI_Barrier(MPI_COMM_WORLD);
    cn_t0 = cn_now_ns();
    const char *polling = getenv("CN_TRACE_POLLING");
    cn_fold = !(polling && strcmp(polling, "every") == 0);
    const char *dir = getenv("CN_TRACE_DIR");
    if (!dir || !*dir)
        dir = "cn-trace";
    mkdir(dir, 0777);
    snprintf(cn_path, sizeof cn_path, "%s/rank-%06d.cntr", dir, cn_rank);
    cn_fd = open(cn_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (cn_fd < 0) {
        cn_fail("cannot create");
        return;
    }
    cn_cap = 4u << 20;
    cn_buf = malloc(cn_cap);
    if (!cn_buf) {
        errno = ENOMEM;
        cn_fail("out of memory for");
        return;
    }
    unsigned char header[CN_TRACE_HEADER_BYTES] = {0};
    unsigned char *p = header;
    memcpy(p, CN_TRACE_MAGIC, 8);
    p += 8;
    PUT(p, (uint32_t)CN_TRACE_VERSION);
    PUT(p, (uint32_t)cn_rank);
    PUT(p, (uint32_t)cn_size);
    PUT(p, (uint32_t)0);
    PUT(p, t_entry);
    PUT(p, cn_t0);
    gethostname((char *)p, 23);
    memcpy(cn_buf, header, sizeof header);
    cn_used = sizeof header;
    cn_on = 1;
    rec_plain(call, t_entry, cn_t0);
    rec_unwrapped(cn_t0);
}

static void cn_finish(int64_t t_entry, int64_t t_exit)
{
    rec_plain(CN_CALL_MPI_Finalize, t_entry, t_exit);
    uint64_t before = cn_records;
    unsigned char *p = cn_record(CN_CALL_CN_END, 8, t_exit, t_exit);
    if (p)
        PUT(p, before);
    cn_flush();
    if (cn_fd >= 0 && close(cn_fd) != 0)
        cn_fail("cannot close");
    cn_fd = -1;
    cn_on = 0;
}

/* ============================================================ wrappers */

#define T0 int64_t t0_ = cn_now_ns()
#define T1 int64_t t1_ = cn_now_ns()

int MPI_Init(int *argc, char ***argv)
{
    T0;
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        cn_start(CN_CALL_MPI_Init, t0_);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    T0;
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        cn_start(CN_CALL_MPI_Init_thread, t0_);
    return rc;
}

int MPI_Finalize(void)
{
    T0;
    /* the file is closed before MPI goes away; the exit time is the entry */
    if (cn_on)
        cn_finish(t0_, t0_);
    return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    T0;
    rec_plain(CN_CALL_MPI_Abort, t0_, t0_);
    cn_flush();
    return PMPI_Abort(comm, errorcode);
}

/* ------------------------------------------------ point to point */

#define BLOCKING_SEND(NAME)                                                                  \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,         \
                   MPI_Comm comm)                                                            \
    {                                                                                        \
        T0;                                                                                  \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                             \
        T1;                                                                                  \
        if (cn_on)                                                                           \
            rec_p2p(CN_CALL_MPI_##NAME, t0_, t1_, dest, tag, comm, cn_bytes(count, type), 0); \
        return rc;                                                                           \
    }
BLOCKING_SEND(Send)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(NAME)                                                          \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,    \
                   MPI_Comm comm, MPI_Request *req)                                     \
    {                                                                                   \
        T0;                                                                             \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                   \
        T1;                                                                             \
        if (cn_on)                                                                      \
            rec_p2p(CN_CALL_MPI_##NAME, t0_, t1_, dest, tag, comm, cn_bytes(count, type), \
                    cn_req(*req));                                                      \
        return rc;                                                                      \
    }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)
NONBLOCKING_SEND(Send_init)
NONBLOCKING_SEND(Bsend_init)
NONBLOCKING_SEND(Ssend_init)
NONBLOCKING_SEND(Rsend_init)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    T1;
    if (cn_on)
        rec_recv(CN_CALL_MPI_Recv, t0_, t1_, source, tag, comm, cn_bytes(count, type), 0, st);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    T0;
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    T1;
    if (cn_on)
        rec_p2p(CN_CALL_MPI_Irecv, t0_, t1_, source, tag, comm, cn_bytes(count, type), cn_req(*req));
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    T0;
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
    T1;
    if (cn_on)
        rec_p2p(CN_CALL_MPI_Recv_init, t0_, t1_, source, tag, comm, cn_bytes(count, type),
                cn_req(*req));
    return rc;
}

static void rec_sendrecv(int call, int64_t t0, int64_t t1, int dest, int stag, uint64_t sbytes,
                         int source, int rtag, uint64_t rbytes, MPI_Comm comm, const MPI_Status *st)
{
    unsigned char *p = cn_record(call, 56, t0, t1);
    if (!p)
        return;
    PUT(p, cn_peer(dest));
    PUT(p, cn_tag(stag));
    PUT(p, sbytes);
    PUT(p, cn_peer(source));
    PUT(p, cn_tag(rtag));
    PUT(p, rbytes);
    PUT(p, cn_comm(comm));
    PUT(p, (uint32_t)0);
    cn_put_status(&p, st);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, st);
    T1;
    if (cn_on)
        rec_sendrecv(CN_CALL_MPI_Sendrecv, t0_, t1_, dest, stag, cn_bytes(scount, stype), source,
                     rtag, cn_bytes(rcount, rtype), comm, st);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, st);
    T1;
    if (cn_on) {
        uint64_t b = cn_bytes(count, type);
        rec_sendrecv(CN_CALL_MPI_Sendrecv_replace, t0_, t1_, dest, stag, b, source, rtag, b, comm, st);
    }
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Probe(source, tag, comm, st);
    T1;
    if (cn_on)
        rec_recv(CN_CALL_MPI_Probe, t0_, t1_, source, tag, comm, 0, 1, st);
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Iprobe(source, tag, comm, flag, st);
    T1;
    if (cn_on && !*flag && cn_poll(CN_CALL_MPI_Iprobe, t0_, t1_, 0, NULL, cn_peer(source), cn_tag(tag), cn_comm(comm)))
        return rc;
    if (cn_on) {
        if (!*flag) {
            st->MPI_SOURCE = MPI_PROC_NULL;
            st->MPI_TAG = MPI_ANY_TAG;
        }
        rec_recv(CN_CALL_MPI_Iprobe, t0_, t1_, source, tag, comm, 0, *flag ? 1u : 0u, st);
    }
    return rc;
}

/* ----------------------------------------- starting and completing */

static void rec_start(int call, int64_t t0, int64_t t1, int count, const uint64_t *handles)
{
    unsigned char *p = cn_record(call, 8 + 8 * (size_t)count, t0, t1);
    if (!p)
        return;
    PUT(p, (uint32_t)count);
    PUT(p, (uint32_t)0);
    memcpy(p, handles, 8 * (size_t)count);
}

/* A call on one request, recorded with its handle (START layout). */
#define CN_ONE_REQUEST(NAME)                                \
    int MPI_##NAME(MPI_Request *req)                        \
    {                                                       \
        uint64_t h = cn_req(*req);                          \
        T0;                                                 \
        int rc = PMPI_##NAME(req);                          \
        T1;                                                 \
        if (cn_on)                                          \
            rec_start(CN_CALL_MPI_##NAME, t0_, t1_, 1, &h); \
        return rc;                                          \
    }

CN_ONE_REQUEST(Start)
CN_ONE_REQUEST(Request_free)
/* MPI_Cancel: the request is marked; whether the cancellation succeeded is
 * in the completion that follows (source CN_PEER_CANCELLED). */
CN_ONE_REQUEST(Cancel)

int MPI_Startall(int count, MPI_Request reqs[])
{
    int ok = cn_on && count > 0 && cn_scratch((size_t)count);
    if (ok)
        for (int i = 0; i < count; i++)
            cn_handles[i] = cn_req(reqs[i]);
    T0;
    int rc = PMPI_Startall(count, reqs);
    T1;
    if (ok)
        rec_start(CN_CALL_MPI_Startall, t0_, t1_, count, cn_handles);
    return rc;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    T0;
    int rc = PMPI_Test_cancelled(status, flag);
    T1;
    rec_plain(CN_CALL_MPI_Test_cancelled, t0_, t1_);
    return rc;
}

/* COMPLETE record: `done` entries, entry k being request handles[which[k]]
 * (which == NULL: handles[k]) with status statuses[k]. */
static void rec_complete(int call, int64_t t0, int64_t t1, int count, int done,
                         const uint64_t *handles, const int *which, const MPI_Status *statuses)
{
    if (done < 0)
        done = 0;
    unsigned char *p = cn_record(call, 8 + 24 * (size_t)done, t0, t1);
    if (!p)
        return;
    PUT(p, (uint32_t)count);
    PUT(p, (uint32_t)done);
    for (int k = 0; k < done; k++) {
        PUT(p, handles[which ? which[k] : k]);
        cn_put_completion(&p, &statuses[k]);
    }
}

static const uint64_t *cn_null_handle(void)
{
    static uint64_t h;
    static int set;
    if (!set) {
        h = cn_req(MPI_REQUEST_NULL);
        set = 1;
    }
    return &h;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t h = cn_req(*req);
    T0;
    int rc = PMPI_Wait(req, st);
    T1;
    if (cn_on)
        rec_complete(CN_CALL_MPI_Wait, t0_, t1_, 1, h != *cn_null_handle(), &h, NULL, st);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t h = cn_req(*req);
    T0;
    int rc = PMPI_Test(req, flag, st);
    T1;
    if (cn_on) {
        int done = *flag && h != *cn_null_handle();
        if (done || !cn_poll(CN_CALL_MPI_Test, t0_, t1_, 1, &h, 0, 0, 0))
            rec_complete(CN_CALL_MPI_Test, t0_, t1_, 1, done, &h, NULL, st);
    }
    return rc;
}

/* Keeps the non-null handles of reqs[0..count) (and their statuses) at the
 * front of the scratch arrays; returns how many. */
static int cn_compact(int count, MPI_Status *statuses)
{
    int n = 0;
    for (int i = 0; i < count; i++)
        if (cn_handles[i] != *cn_null_handle()) {
            cn_handles[n] = cn_handles[i];
            if (statuses != cn_statuses)
                cn_statuses[n] = statuses[i];
            else
                cn_statuses[n] = cn_statuses[i];
            n++;
        }
    return n;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    int ok = cn_on && count >= 0 && cn_scratch((size_t)count + 1);
    if (!ok)
        return PMPI_Waitall(count, reqs, statuses);
    for (int i = 0; i < count; i++)
        cn_handles[i] = cn_req(reqs[i]);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? cn_statuses : statuses;
    T0;
    int rc = PMPI_Waitall(count, reqs, st);
    T1;
    int n = cn_compact(count, st);
    rec_complete(CN_CALL_MPI_Waitall, t0_, t1_, count, n, cn_handles, NULL, cn_statuses);
    return rc;
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    int ok = cn_on && count >= 0 && cn_scratch((size_t)count + 1);
    if (!ok)
        return PMPI_Testall(count, reqs, flag, statuses);
    for (int i = 0; i < count; i++)
        cn_handles[i] = cn_req(reqs[i]);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? cn_statuses : statuses;
    T0;
    int rc = PMPI_Testall(count, reqs, flag, st);
    T1;
    int n = *flag ? cn_compact(count, st) : 0;
    if (n || !cn_poll(CN_CALL_MPI_Testall, t0_, t1_, count, cn_handles, 0, 0, 0))
        rec_complete(CN_CALL_MPI_Testall, t0_, t1_, count, n, cn_handles, NULL, cn_statuses);
    return rc;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    int ok = cn_on && count >= 0 && cn_scratch((size_t)count + 1);
    if (!ok)
        return PMPI_Waitany(count, reqs, index, status);
    for (int i = 0; i < count; i++)
        cn_handles[i] = cn_req(reqs[i]);
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Waitany(count, reqs, index, st);
    T1;
    int done = *index != MPI_UNDEFINED && *index >= 0 && *index < count;
    rec_complete(CN_CALL_MPI_Waitany, t0_, t1_, count, done, cn_handles, done ? index : NULL, st);
    return rc;
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    int ok = cn_on && count >= 0 && cn_scratch((size_t)count + 1);
    if (!ok)
        return PMPI_Testany(count, reqs, index, flag, status);
    for (int i = 0; i < count; i++)
        cn_handles[i] = cn_req(reqs[i]);
    MPI_Status mine;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &mine : status;
    T0;
    int rc = PMPI_Testany(count, reqs, index, flag, st);
    T1;
    int done = *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count;
    if (done || !cn_poll(CN_CALL_MPI_Testany, t0_, t1_, count, cn_handles, 0, 0, 0))
        rec_complete(CN_CALL_MPI_Testany, t0_, t1_, count, done, cn_handles, done ? index : NULL, st);
    return rc;
}

static int cn_some(int call, int incount, MPI_Request reqs[], int *outcount, int indices[],
                   MPI_Status statuses[], int wait)
{
    int ok = cn_on && incount >= 0 && cn_scratch((size_t)incount + 1);
    if (!ok)
        return wait ? PMPI_Waitsome(incount, reqs, outcount, indices, statuses)
                    : PMPI_Testsome(incount, reqs, outcount, indices, statuses);
    for (int i = 0; i < incount; i++)
        cn_handles[i] = cn_req(reqs[i]);
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? cn_statuses : statuses;
    T0;
    int rc = wait ? PMPI_Waitsome(incount, reqs, outcount, indices, st)
                  : PMPI_Testsome(incount, reqs, outcount, indices, st);
    T1;
    int done = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    if (wait || done > 0 || !cn_poll(call, t0_, t1_, incount, cn_handles, 0, 0, 0))
        rec_complete(call, t0_, t1_, incount, done, cn_handles, indices, st);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return cn_some(CN_CALL_MPI_Waitsome, incount, reqs, outcount, indices, statuses, 1);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return cn_some(CN_CALL_MPI_Testsome, incount, reqs, outcount, indices, statuses, 0);
}

/* ------------------------------------------------------- collectives */

static int cn_is_root(MPI_Comm comm, int root)
{
    int r = -1;
    PMPI_Comm_rank(comm, &r);
    return r == root;
}

static int cn_comm_size(MPI_Comm comm)
{
    int p = 0;
    PMPI_Comm_size(comm, &p);
    return p;
}

int MPI_Barrier(MPI_Comm comm)
{
    T0;
    int rc = PMPI_Barrier(comm);
    T1;
    if (cn_on)
        rec_coll(CN_CALL_MPI_Barrier, t0_, t1_, comm, -1, 0, 0, 0, 0, NULL, 0, NULL, 0);
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    T0;
    int rc = PMPI_Ibarrier(comm, req);
    T1;
    if (cn_on)
        rec_coll(CN_CALL_MPI_Ibarrier, t0_, t1_, comm, -1, 0, 0, cn_req(*req), 0, NULL, 0, NULL, 0);
    return rc;
}

#define BCAST_ARGS void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm
int MPI_Bcast(BCAST_ARGS)
{
    T0;
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    T1;
    if (cn_on) {
        uint64_t b = cn_bytes(count, type);
        rec_coll(CN_CALL_MPI_Bcast, t0_, t1_, comm, root, b, b, 0, 0, NULL, 0, NULL, 0);
    }
    return rc;
}

int MPI_Ibcast(BCAST_ARGS, MPI_Request *req)
{
    T0;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, req);
    T1;
    if (cn_on) {
        uint64_t b = cn_bytes(count, type);
        rec_coll(CN_CALL_MPI_Ibcast, t0_, t1_, comm, root, b, b, cn_req(*req), 0, NULL, 0, NULL, 0);
    }
    return rc;
}

/* A blocking collective and its non-blocking twin (same arguments plus a
 * request). REC records it; it sees `call` and `rq` (0 when blocking). */
#define CN_UNPAREN(...) __VA_ARGS__
#define CN_PAIR(NAME, INAME, PARAMS, ARGS, REC)                    \
    int MPI_##NAME(CN_UNPAREN PARAMS)                              \
    {                                                              \
        T0;                                                        \
        int rc = PMPI_##NAME(CN_UNPAREN ARGS);                     \
        T1;                                                        \
        if (cn_on) {                                               \
            const int call = CN_CALL_MPI_##NAME;                   \
            const uint64_t rq = 0;                                 \
            CN_UNPAREN REC;                                        \
        }                                                          \
        return rc;                                                 \
    }                                                              \
    int MPI_##INAME(CN_UNPAREN PARAMS, MPI_Request *req)           \
    {                                                              \
        T0;                                                        \
        int rc = PMPI_##INAME(CN_UNPAREN ARGS, req);               \
        T1;                                                        \
        if (cn_on) {                                               \
            const int call = CN_CALL_MPI_##INAME;                  \
            const uint64_t rq = cn_req(*req);                      \
            CN_UNPAREN REC;                                        \
        }                                                          \
        return rc;                                                 \
    }

static void rec_counted(int call, int64_t t0, int64_t t1, MPI_Comm comm, int root, int count,
                        MPI_Datatype type, uint64_t rq)
{
    uint64_t b = cn_bytes(count, type);
    rec_coll(call, t0, t1, comm, root, b, b, rq, 0, NULL, 0, NULL, 0);
}

CN_PAIR(Reduce, Ireduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, root, comm),
        (rec_counted(call, t0_, t1_, comm, root, count, type, rq)))
CN_PAIR(Allreduce, Iallreduce,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, comm),
        (rec_counted(call, t0_, t1_, comm, -1, count, type, rq)))
CN_PAIR(Scan, Iscan,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, comm),
        (rec_counted(call, t0_, t1_, comm, -1, count, type, rq)))
CN_PAIR(Exscan, Iexscan,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, comm),
        (rec_counted(call, t0_, t1_, comm, -1, count, type, rq)))
CN_PAIR(Reduce_scatter_block, Ireduce_scatter_block,
        (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, count, type, op, comm),
        (rec_counted(call, t0_, t1_, comm, -1, count, type, rq)))
CN_PAIR(Reduce_scatter, Ireduce_scatter,
        (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm),
        (sbuf, rbuf, rcounts, type, op, comm),
        (rec_coll(call, t0_, t1_, comm, -1, 0, 0, rq, cn_comm_size(comm), rcounts, type, NULL, 0)))

static void rec_gather(int call, int64_t t0, int64_t t1, const void *sbuf, int scount,
                       MPI_Datatype stype, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                       uint64_t rq)
{
    int at_root = root >= 0 && cn_is_root(comm, root);
    uint64_t rb = at_root || root < 0 ? cn_bytes(rcount, rtype) : 0;
    uint64_t sb = sbuf == MPI_IN_PLACE ? rb : cn_bytes(scount, stype);
    rec_coll(call, t0, t1, comm, root, sb, rb, rq, 0, NULL, 0, NULL, 0);
}

CN_PAIR(Gather, Igather,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
         int root, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
        (rec_gather(call, t0_, t1_, sbuf, scount, stype, rcount, rtype, root, comm, rq)))
CN_PAIR(Allgather, Iallgather,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
         MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, comm),
        (rec_gather(call, t0_, t1_, sbuf, scount, stype, rcount, rtype, -1, comm, rq)))
CN_PAIR(Alltoall, Ialltoall,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
         MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, comm),
        (rec_gather(call, t0_, t1_, sbuf, scount, stype, rcount, rtype, -1, comm, rq)))

static void rec_scatter(int call, int64_t t0, int64_t t1, int scount, MPI_Datatype stype,
                        const void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                        uint64_t rq)
{
    uint64_t sb = cn_is_root(comm, root) ? cn_bytes(scount, stype) : 0;
    uint64_t rb = rbuf == MPI_IN_PLACE ? sb : cn_bytes(rcount, rtype);
    rec_coll(call, t0, t1, comm, root, sb, rb, rq, 0, NULL, 0, NULL, 0);
}

CN_PAIR(Scatter, Iscatter,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
         int root, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
        (rec_scatter(call, t0_, t1_, scount, stype, rbuf, rcount, rtype, root, comm, rq)))

static void rec_gatherv(int call, int64_t t0, int64_t t1, const void *sbuf, int scount,
                        MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype, int root,
                        MPI_Comm comm, uint64_t rq)
{
    int vec = root < 0 || cn_is_root(comm, root);
    uint64_t sb = sbuf == MPI_IN_PLACE ? 0 : cn_bytes(scount, stype);
    rec_coll(call, t0, t1, comm, root, sb, 0, rq, vec ? cn_comm_size(comm) : 0, vec ? rcounts : NULL,
             rtype, NULL, 0);
}

CN_PAIR(Gatherv, Igatherv,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
         const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
        (rec_gatherv(call, t0_, t1_, sbuf, scount, stype, rcounts, rtype, root, comm, rq)))
CN_PAIR(Allgatherv, Iallgatherv,
        (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
         const int displs[], MPI_Datatype rtype, MPI_Comm comm),
        (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
        (rec_gatherv(call, t0_, t1_, sbuf, scount, stype, rcounts, rtype, -1, comm, rq)))

static void rec_scatterv(int call, int64_t t0, int64_t t1, const int *scounts, MPI_Datatype stype,
                         const void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                         uint64_t rq)
{
    int vec = cn_is_root(comm, root);
    uint64_t rb = rbuf == MPI_IN_PLACE ? 0 : cn_bytes(rcount, rtype);
    rec_coll(call, t0, t1, comm, root, 0, rb, rq, vec ? cn_comm_size(comm) : 0, vec ? scounts : NULL,
             stype, NULL, 0);
}

CN_PAIR(Scatterv, Iscatterv,
        (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
         int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
        (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
        (rec_scatterv(call, t0_, t1_, scounts, stype, rbuf, rcount, rtype, root, comm, rq)))

static void rec_alltoallv(int call, int64_t t0, int64_t t1, const void *sbuf, const int *scounts,
                          MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype, MPI_Comm comm,
                          uint64_t rq)
{
    int in_place = sbuf == MPI_IN_PLACE;
    rec_coll(call, t0, t1, comm, -1, 0, 0, rq, cn_comm_size(comm), in_place ? rcounts : scounts,
             in_place ? rtype : stype, rcounts, rtype);
}

CN_PAIR(Alltoallv, Ialltoallv,
        (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
         const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
        (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
        (rec_alltoallv(call, t0_, t1_, sbuf, scounts, stype, rcounts, rtype, comm, rq)))

/* ------------------------------------------------------ communicators */

#define CN_COMM_CREATOR(NAME, PARAMS, ARGS, PARENT, NEWCOMM)    \
    int MPI_##NAME(CN_UNPAREN PARAMS)                           \
    {                                                           \
        T0;                                                     \
        int rc = PMPI_##NAME(CN_UNPAREN ARGS);                  \
        T1;                                                     \
        if (cn_on && rc == MPI_SUCCESS)                         \
            rec_comm(CN_CALL_MPI_##NAME, t0_, t1_, PARENT, *NEWCOMM); \
        return rc;                                              \
    }

CN_COMM_CREATOR(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), comm, newcomm)
CN_COMM_CREATOR(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
                (comm, info, newcomm), comm, newcomm)
CN_COMM_CREATOR(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
                (comm, color, key, newcomm), comm, newcomm)
CN_COMM_CREATOR(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm),
                (comm, type, key, info, newcomm), comm, newcomm)
CN_COMM_CREATOR(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
                (comm, group, newcomm), comm, newcomm)
CN_COMM_CREATOR(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
                (comm, group, tag, newcomm), comm, newcomm)
CN_COMM_CREATOR(Cart_create,
                (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                 MPI_Comm *newcomm),
                (comm, ndims, dims, periods, reorder, newcomm), comm, newcomm)
CN_COMM_CREATOR(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm),
                (comm, remain_dims, newcomm), comm, newcomm)

int MPI_Comm_free(MPI_Comm *comm)
{
    uint32_t id = cn_on ? cn_comm(*comm) : CN_COMM_NULL;
    MPI_Comm old = *comm;
    T0;
    int rc = PMPI_Comm_free(comm);
    T1;
    if (cn_on) {
        cn_comm_forget(old);
        unsigned char *p = cn_record(CN_CALL_MPI_Comm_free, 8, t0_, t1_);
        if (p) {
            PUT(p, id);
            PUT(p, (uint32_t)0);
        }
    }
    return rc;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
{
    T0;
    int rc = PMPI_Cart_shift(comm, direction, disp, source, dest);
    T1;
    if (cn_on) {
        unsigned char *p = cn_record(CN_CALL_MPI_Cart_shift, 24, t0_, t1_);
        if (p) {
            PUT(p, cn_comm(comm));
            PUT(p, (int32_t)direction);
            PUT(p, (int32_t)disp);
            PUT(p, cn_peer(*source));
            PUT(p, cn_peer(*dest));
            PUT(p, (uint32_t)0);
        }
    }
    return rc;
}

/* ------------------------------------- named only: not converted */

#define CN_NAMED(NAME, PARAMS, ARGS)                  \
    int MPI_##NAME(CN_UNPAREN PARAMS)                 \
    {                                                 \
        T0;                                           \
        int rc = PMPI_##NAME(CN_UNPAREN ARGS);        \
        T1;                                           \
        rec_plain(CN_CALL_MPI_##NAME, t0_, t1_);      \
        return rc;                                    \
    }

CN_NAMED(Alltoallw,
         (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
          void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
          MPI_Comm comm),
         (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm))
CN_NAMED(Neighbor_allgather,
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
          MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, comm))
CN_NAMED(Neighbor_allgatherv,
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
          const int displs[], MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
CN_NAMED(Neighbor_alltoall,
         (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
          MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, comm))
CN_NAMED(Neighbor_alltoallv,
         (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
          void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm))
CN_NAMED(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status),
         (source, tag, comm, message, status))
CN_NAMED(Improbe,
         (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status),
         (source, tag, comm, flag, message, status))
CN_NAMED(Mrecv, (void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status),
         (buf, count, type, message, status))
CN_NAMED(Imrecv,
         (void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request),
         (buf, count, type, message, request))
CN_NAMED(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request),
         (comm, newcomm, request))
CN_NAMED(Intercomm_create,
         (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
          MPI_Comm *newintercomm),
         (local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm))
CN_NAMED(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm),
         (intercomm, high, newintracomm))
CN_NAMED(Graph_create,
         (MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
          MPI_Comm *comm_graph),
         (comm_old, nnodes, indx, edges, reorder, comm_graph))
CN_NAMED(Dist_graph_create_adjacent,
         (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
          int outdegree, const int destinations[], const int destweights[], MPI_Info info,
          int reorder, MPI_Comm *comm_dist_graph),
         (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
          reorder, comm_dist_graph))
CN_NAMED(Win_create,
         (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
         (base, size, disp_unit, info, comm, win))
CN_NAMED(Win_allocate,
         (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win),
         (size, disp_unit, info, comm, baseptr, win))
CN_NAMED(Win_fence, (int assert_, MPI_Win win), (assert_, win))
CN_NAMED(Put,
         (const void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
          MPI_Datatype ttype, MPI_Win win),
         (origin, ocount, otype, target, disp, tcount, ttype, win))
CN_NAMED(Get,
         (void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
          MPI_Datatype ttype, MPI_Win win),
         (origin, ocount, otype, target, disp, tcount, ttype, win))
CN_NAMED(Accumulate,
         (const void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
          MPI_Datatype ttype, MPI_Op op, MPI_Win win),
         (origin, ocount, otype, target, disp, tcount, ttype, op, win))
CN_NAMED(Win_lock, (int lock_type, int rank, int assert_, MPI_Win win), (lock_type, rank, assert_, win))
CN_NAMED(Win_unlock, (int rank, MPI_Win win), (rank, win))
CN_NAMED(Win_free, (MPI_Win *win), (win))
#ifdef MPI_MODE_RDONLY
CN_NAMED(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh),
         (comm, filename, amode, info, fh))
CN_NAMED(File_close, (MPI_File *fh), (fh))
CN_NAMED(File_write_all,
         (MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status),
         (fh, buf, count, type, status))
CN_NAMED(File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status),
         (fh, buf, count, type, status))
CN_NAMED(File_write_at_all,
         (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype type,
          MPI_Status *status),
         (fh, offset, buf, count, type, status))
CN_NAMED(File_read_at_all,
         (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type, MPI_Status *status),
         (fh, offset, buf, count, type, status))
#endif

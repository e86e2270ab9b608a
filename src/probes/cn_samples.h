/* cn_samples.h: append-only sample files that survive a killed run.
 *
 * A sample is six little-endian int64 fields (48 bytes):
 *   kind, size_bytes, param, stream, t_ns, value_ns
 * kind says what value_ns is (see CN_KIND_*); param is experiment specific
 * (the inter-message interval for bursts, the train length for LogGP);
 * stream is the ping-pong pair (or direction) that measured it; t_ns is the
 * CLOCK_MONOTONIC_RAW time the measurement started.
 *
 * Samples are buffered and handed to the kernel (fwrite + fflush) whenever
 * the buffer fills or CN_FLUSH_NS has passed since the last flush, so a
 * killed probe loses at most the last second. Python reads the file in
 * whole records and ignores a torn last one.
 */
#ifndef CN_SAMPLES_H
#define CN_SAMPLES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cn_timer.h"

enum {
    CN_KIND_RTT = 0,        /* round-trip time of one ping-pong */
    CN_KIND_SEND_CALL = 1,  /* duration of one MPI_Send call (o_s) */
    CN_KIND_RECV_CALL = 2,  /* duration of one MPI_Recv of an arrived message (o_r) */
    CN_KIND_TRAIN = 3,      /* param back-to-back sends plus a 1-byte ack */
    CN_KIND_DETOUR = 4,     /* one selfish-detour iteration above the threshold */
    CN_KIND_GOAL_REP = 5,   /* one rank's part of one repetition of a GOAL schedule */
    CN_KIND_ISEND_CALL = 6, /* duration of one MPI_Isend call: posting a send, not finishing it */
    /* cn_loggp.c (stream = the round) */
    CN_KIND_EXCHANGE = 7,       /* one of back-to-back exchanges (Isend + Irecv, both polled) */
    CN_KIND_TRAIN_DELAYED = 8,  /* PRTT(n,d,s): param = d, the spin between sends (ns) */
    CN_KIND_RECV_EARLY = 9,     /* completing a posted receive whose message has arrived */
    CN_KIND_RECV_LATE = 10,     /* posting and completing a receive whose message has arrived */
    CN_KIND_SEND_DONE = 11,     /* MPI_Isend to completion while the receive is not posted */
    /* cn_core_latency.h, from cn_loggp.c (size_bytes = the unit's size, stream = the round) and
     * cn_goal_exec.c (size_bytes = the repetition it preceded, stream = 0) */
    CN_KIND_CORE_LATENCY = 12,  /* one-way time of a cache line between the host's first two ranks */
    /* cn_goal_exec.c, beside each core probe: size_bytes = the repetition it preceded */
    CN_KIND_PINGPONG_REF = 13,  /* median one-way time of a polled 1 B MPI ping-pong, ranks 0 and 1 */
};

#define CN_FLUSH_NS 500000000LL /* at most half a second between flushes */
#define CN_SAMPLE_BUF 8192

struct cn_sample {
    int64_t kind, size_bytes, param, stream, t_ns, value_ns;
};

struct cn_sample_file {
    FILE *fp;
    struct cn_sample buf[CN_SAMPLE_BUF];
    int used;
    int64_t last_flush_ns;
};

static inline int cn_samples_open(struct cn_sample_file *sf, const char *path)
{
    sf->fp = fopen(path, "ab");
    sf->used = 0;
    sf->last_flush_ns = cn_now_ns();
    return sf->fp ? 0 : -1;
}

/* Returns nonzero when the data could not be written (disk full). */
static inline int cn_samples_flush(struct cn_sample_file *sf)
{
    int bad = 0;
    if (sf->used > 0 &&
        fwrite(sf->buf, sizeof sf->buf[0], (size_t)sf->used, sf->fp) != (size_t)sf->used)
        bad = 1;
    if (fflush(sf->fp) != 0)
        bad = 1;
    sf->used = 0;
    sf->last_flush_ns = cn_now_ns();
    return bad;
}

/* Record one sample; called outside the timed region. */
static inline void cn_samples_add(struct cn_sample_file *sf, int64_t kind, int64_t size,
                                  int64_t param, int64_t stream, int64_t t_ns, int64_t value_ns)
{
    struct cn_sample *s = &sf->buf[sf->used++];
    s->kind = kind;
    s->size_bytes = size;
    s->param = param;
    s->stream = stream;
    s->t_ns = t_ns;
    s->value_ns = value_ns;
    if (sf->used == CN_SAMPLE_BUF || t_ns - sf->last_flush_ns > CN_FLUSH_NS) {
        if (cn_samples_flush(sf)) {
            fprintf(stderr, "cloudnoise probe: cannot write samples (disk full?)\n");
            exit(5);
        }
    }
}

static inline void cn_samples_close(struct cn_sample_file *sf)
{
    if (sf->fp) {
        if (cn_samples_flush(sf))
            fprintf(stderr, "cloudnoise probe: cannot write samples (disk full?)\n");
        fclose(sf->fp);
        sf->fp = NULL;
    }
}

#endif

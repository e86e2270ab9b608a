/* cn_chunks.h: compact sample streams, in chunk files Python converts while the run goes on.
 *
 * Long measurements (an hour of 1-byte ping-pongs is about a billion samples
 * on shared memory) cannot afford cn_samples.h's 48 bytes per sample, nor one
 * file that only grows. A stream here is a series of chunk files
 *
 *     PREFIX.rankR.cKKKKKK.cnk      K = 0, 1, 2, ...
 *
 * each a sequence of blocks. A block is a 48-byte header followed by `count`
 * records of `rec_bytes` bytes (little endian):
 *
 *     u32 magic 'CNB1'  u16 rec_bytes  u16 kind  u32 count  u32 stream
 *     i64 size_bytes    i64 param      i64 t0_ns i64 seq0
 *
 *     rec_bytes 8:  u32 dt_ns, u32 value_ns
 *     rec_bytes 16: i64 dt_ns, i64 value_ns   (a lone sample that does not fit 32 bits)
 *
 * A record's start time is the previous record's start plus dt_ns (the
 * first record's: t0_ns plus its dt_ns); seq0 numbers the block's first
 * sample within its (unit, stream) sequence, so every chunk can be converted
 * on its own. All records of a block share kind, size, param and stream.
 *
 * A block is handed to the kernel with one write() when its buffer is full,
 * when CN_CHUNK_FLUSH_NS passed since the block began, or when its key
 * changes, so a killed probe loses at most the last half second. A chunk is
 * finished when the next one exists (rotation opens K+1 only after K is
 * complete) or when the probe has ended; Python converts finished chunks to
 * Parquet, checks the result and deletes them. A torn last block (killed
 * mid-write) keeps its whole records.
 *
 * Files are opened lazily, so a rank that records nothing (a ping-pong
 * responder) writes no file, while rotation still advances its chunk index
 * in step with the others.
 */
#ifndef CN_CHUNKS_H
#define CN_CHUNKS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cn_timer.h"

#define CN_CHUNK_MAGIC 0x31424E43u /* "CNB1" */
#define CN_CHUNK_FLUSH_NS 500000000LL /* at most half a second between writes */
#define CN_CHUNK_BLOCK 8192           /* records per block */
#define CN_CHUNK_HEADER 48

struct cn_chunk_header {
    uint32_t magic;
    uint16_t rec_bytes;
    uint16_t kind;
    uint32_t count;
    uint32_t stream;
    int64_t size_bytes;
    int64_t param;
    int64_t t0_ns;
    int64_t seq0;
};

struct cn_chunk_stream {
    char prefix[4000];
    int rank;
    int fd;                /* -1 while no file of the current chunk is open */
    int64_t chunk;         /* index of the current chunk */
    int64_t chunk_samples; /* samples written to the current chunk */
    int64_t chunk_begin_ns;
    /* the block being filled */
    struct cn_chunk_header head;
    int64_t last_t;        /* start of the block's last sample */
    int64_t block_begin_ns;
    uint32_t recs[2 * CN_CHUNK_BLOCK];
};

static inline void cn_chunk_fail(const char *what)
{
    fprintf(stderr, "cloudnoise probe: cannot write samples (%s: %s; disk full?)\n", what,
            strerror(errno));
    exit(5);
}

static inline void cn_chunk_init(struct cn_chunk_stream *s, const char *prefix, int rank)
{
    memset(s, 0, sizeof *s);
    snprintf(s->prefix, sizeof s->prefix, "%s", prefix);
    s->rank = rank;
    s->fd = -1;
    s->chunk_begin_ns = cn_now_ns();
}

static inline void cn_chunk_write_all(int fd, const void *data, size_t n)
{
    const char *p = (const char *)data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            cn_chunk_fail("write");
        }
        p += w;
        n -= (size_t)w;
    }
}

static inline void cn_chunk_open_file(struct cn_chunk_stream *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.rank%d.c%06lld.cnk", s->prefix, s->rank, (long long)s->chunk);
    s->fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (s->fd < 0)
        cn_chunk_fail(path);
}

/* Write the block being filled (if any) with one write(). */
static inline void cn_chunk_flush(struct cn_chunk_stream *s)
{
    if (s->head.count == 0)
        return;
    if (s->fd < 0)
        cn_chunk_open_file(s);
    {
        /* header and records in one write: a reader never sees a header
         * without the records it announces unless the probe was killed mid-write */
        static char buf[CN_CHUNK_HEADER + sizeof(uint32_t) * 2 * CN_CHUNK_BLOCK];
        size_t body = (size_t)s->head.count * s->head.rec_bytes;
        memcpy(buf, &s->head, CN_CHUNK_HEADER);
        memcpy(buf + CN_CHUNK_HEADER, s->recs, body);
        cn_chunk_write_all(s->fd, buf, CN_CHUNK_HEADER + body);
    }
    s->head.count = 0;
}

/* Write what is buffered and close the current chunk's file. */
static inline void cn_chunk_close(struct cn_chunk_stream *s)
{
    cn_chunk_flush(s);
    if (s->fd >= 0) {
        if (close(s->fd) != 0)
            cn_chunk_fail("close");
        s->fd = -1;
    }
}

/* Close the current chunk and move to the next; the file of the next one is
 * created by its first write. */
static inline void cn_chunk_rotate(struct cn_chunk_stream *s)
{
    cn_chunk_close(s);
    s->chunk++;
    s->chunk_samples = 0;
    s->chunk_begin_ns = cn_now_ns();
}

static inline void cn_chunk_begin_block(struct cn_chunk_stream *s, uint16_t rec_bytes, int64_t kind,
                                        int64_t size, int64_t param, int64_t stream, int64_t t_ns,
                                        int64_t seq)
{
    s->head.magic = CN_CHUNK_MAGIC;
    s->head.rec_bytes = rec_bytes;
    s->head.kind = (uint16_t)kind;
    s->head.count = 0;
    s->head.stream = (uint32_t)stream;
    s->head.size_bytes = size;
    s->head.param = param;
    s->head.t0_ns = t_ns;
    s->head.seq0 = seq;
    s->last_t = t_ns;
    s->block_begin_ns = t_ns;
}

/* Record one sample (outside the timed region): started at t_ns, lasted
 * value_ns; seq numbers it within its (unit, stream) sequence. */
static inline void cn_chunk_add(struct cn_chunk_stream *s, int64_t kind, int64_t size, int64_t param,
                                int64_t stream, int64_t seq, int64_t t_ns, int64_t value_ns)
{
    struct cn_chunk_header *h = &s->head;
    int64_t dt;
    if (h->count > 0 && (h->kind != (uint16_t)kind || h->size_bytes != size || h->param != param ||
                         h->stream != (uint32_t)stream || h->rec_bytes != 8 ||
                         t_ns - s->block_begin_ns > CN_CHUNK_FLUSH_NS ||
                         h->seq0 + (int64_t)h->count != seq))
        cn_chunk_flush(s);
    if (h->count == 0)
        cn_chunk_begin_block(s, 8, kind, size, param, stream, t_ns, seq);
    dt = t_ns - s->last_t;
    if (dt < 0 || dt > (int64_t)UINT32_MAX || value_ns < 0 || value_ns > (int64_t)UINT32_MAX) {
        /* a sample that does not fit 32 bits goes alone in a wide block */
        int64_t wide[2];
        cn_chunk_flush(s);
        cn_chunk_begin_block(s, 16, kind, size, param, stream, t_ns, seq);
        wide[0] = 0;
        wide[1] = value_ns;
        memcpy(s->recs, wide, sizeof wide);
        h->count = 1;
        cn_chunk_flush(s);
    } else {
        s->recs[2 * h->count] = (uint32_t)dt;
        s->recs[2 * h->count + 1] = (uint32_t)value_ns;
        h->count++;
        s->last_t = t_ns;
        if (h->count == CN_CHUNK_BLOCK)
            cn_chunk_flush(s);
    }
    s->chunk_samples++;
}

/* Write what is buffered if the block is older than the flush interval:
 * for loops that may go a while without a sample. */
static inline void cn_chunk_tick(struct cn_chunk_stream *s, int64_t now_ns)
{
    if (s->head.count > 0 && now_ns - s->block_begin_ns > CN_CHUNK_FLUSH_NS)
        cn_chunk_flush(s);
}

#endif

/* cn_args.h: what every probe's command line needs: a one-line fatal
 * error (MPI_Abort, exit status 2) and comma-separated integer lists.
 * (cn_pingpong.c still has its own copies: it can move here.) */
#ifndef CN_ARGS_H
#define CN_ARGS_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline void cn_die(const char *msg)
{
    fprintf(stderr, "cloudnoise probe: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* Parses "1,2,3" into out (at most max values); returns how many. */
static inline int cn_parse_list(const char *text, int64_t *out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p)
            cn_die("bad number in a list option");
        out[n++] = v;
        p = (*end == ',') ? end + 1 : end;
        if (*end && *end != ',')
            cn_die("lists are comma separated integers");
    }
    return n;
}

#endif

/* cn_info.h: the facts a probe rank reports about where and how it ran.
 *
 * Each rank writes PREFIX.rankN.info, one key=value per line: host, MPI
 * library, timer and its measured resolution and overhead, and the pair of
 * clocks (monotonic, wall) read together so Python can turn sample
 * timestamps into wall-clock time.
 */
#ifndef CN_INFO_H
#define CN_INFO_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cn_timer.h"

/* Opens the info file and writes the common keys; the caller may add more
 * with fprintf and must fclose. Returns NULL when the file cannot be made. */
static inline FILE *cn_info_open(const char *prefix, int rank, int nranks,
                                 const struct cn_timer_info *timer)
{
    char path[4096], host[256], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, i;
    FILE *fp;

    snprintf(path, sizeof path, "%s.rank%d.info", prefix, rank);
    fp = fopen(path, "w");
    if (!fp)
        return NULL;
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    MPI_Get_library_version(lib, &len);
    /* Keep the first line: the rest of some libraries' strings is build detail. */
    for (i = 0; i < len && lib[i]; i++)
        if (lib[i] == '\n' || lib[i] == '\r') {
            lib[i] = '\0';
            break;
        }
    fprintf(fp, "rank=%d\nnranks=%d\nhost=%s\nmpi_library=%s\n", rank, nranks, host, lib);
    fprintf(fp, "timer=%s\ntimer_resolution_ns=%.3f\ntimer_getres_ns=%.3f\n"
                "timer_overhead_ns=%.3f\n",
            CN_TIMER_NAME, timer->resolution_ns, timer->getres_ns, timer->overhead_ns);
    fprintf(fp, "clock_monotonic_ns=%lld\nclock_wall_ns=%lld\n", (long long)cn_now_ns(),
            (long long)cn_wall_ns());
    fflush(fp);
    return fp;
}

#endif

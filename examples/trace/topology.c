/* topology.c: every MPI topology call the trace recorder records with its
 * arguments, in a small periodic 3-D halo exchange.
 *
 *   mpicc -O2 -o topology topology.c
 *   mpiexec -n 4 ./topology STEPS
 *
 * MPI_Dims_create picks the grid, MPI_Cart_create makes it (periodic,
 * reorder 0), MPI_Cart_coords / MPI_Cart_rank / MPI_Cart_shift find the
 * neighbours, and every step exchanges 64 doubles with the two neighbours
 * of each dimension (MPI_Sendrecv, skipping itself as LAMMPS does), then an
 * MPI_Allreduce. Then MPI_Cart_sub (a row), a graph (MPI_Graph_create of a
 * ring) and two distributed graphs (the same ring) are made, used by one
 * MPI_Barrier each, and freed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int steps = argc > 1 ? atoi(argv[1]) : 4;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int me, coords[3];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 3, coords);
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        MPI_Cart_shift(cart, d, 1, &lo[d], &hi[d]);
        int c[3] = {coords[0], coords[1], coords[2]};
        c[d] = (c[d] + 1) % dims[d];
        int check;
        MPI_Cart_rank(cart, c, &check);
        if (check != hi[d])
            MPI_Abort(MPI_COMM_WORLD, 1);
    }

    double out[64], in[64], sum = 0;
    for (int i = 0; i < 64; i++)
        out[i] = rank + i;
    for (int s = 0; s < steps; s++) {
        for (int d = 0; d < 3; d++) {
            if (dims[d] == 1)
                continue; /* its own neighbour: no message */
            MPI_Sendrecv(out, 64, MPI_DOUBLE, lo[d], d, in, 64, MPI_DOUBLE, hi[d], d, cart, MPI_STATUS_IGNORE);
            MPI_Sendrecv(out, 64, MPI_DOUBLE, hi[d], d, in, 64, MPI_DOUBLE, lo[d], d, cart, MPI_STATUS_IGNORE);
            sum += in[0];
        }
        MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    int keep[3] = {0, 0, 1};
    MPI_Comm row;
    MPI_Cart_sub(cart, keep, &row);
    MPI_Barrier(row);
    MPI_Comm_free(&row);

    int *index = malloc((size_t)size * sizeof(int)), *edges = malloc((size_t)size * 2 * sizeof(int));
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    MPI_Barrier(graph);
    MPI_Comm_free(&graph);

    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size}, w[2] = {1, 1};
    MPI_Comm dist, dist2;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w, MPI_INFO_NULL, 0, &dist);
    MPI_Barrier(dist);
    MPI_Comm_free(&dist);
    int degree = 2;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, nb, w, MPI_INFO_NULL, 0, &dist2);
    MPI_Barrier(dist2);
    MPI_Comm_free(&dist2);
    free(index);
    free(edges);

    MPI_Comm_free(&cart);
    if (rank == 0)
        printf("topology: %d ranks on %d x %d x %d, sum %g\n", size, dims[0], dims[1], dims[2], sum);
    MPI_Finalize();
    return 0;
}

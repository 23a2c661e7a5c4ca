/*
 * fuzz_npy.c — libFuzzer harness for the .npy reader (sim/npy.c).
 *
 * The input is a whole .npy image, parsed in memory by npy_parse_f32().  A
 * tensor that parses is written back as float32 with npy_write() and read
 * again with npy_read_f32() (the file path of the reader): the shape and
 * every bit must survive the round trip, else the harness aborts.
 */
#include "fuzz_util.h"
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mx_shape shape;
    float *x = NULL;
    char err[512];
    if (npy_parse_f32(data, size, "fuzz.npy", &shape, &x, err, sizeof err) != 0) {
        if (x) abort(); /* the contract: nothing allocated on failure */
        if (!err[0]) abort(); /* and a message */
        return 0;
    }
    const size_t n = mx_shape_count(&shape);
    if (n <= (1u << 16)) {
        char path[4200];
        snprintf(path, sizeof path, "%s/rt.npy", fuzz_dir());
        if (npy_write(path, NPY_F32, &shape, x, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_npy: write-back failed: %s\n", err);
            abort();
        }
        mx_shape s2;
        float *y = NULL;
        if (npy_read_f32(path, &s2, &y, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_npy: re-read of our own output failed: %s\n", err);
            abort();
        }
        if (s2.ndim != shape.ndim || memcmp(s2.dim, shape.dim, sizeof(size_t) * (size_t)shape.ndim) != 0 ||
            (n && memcmp(x, y, n * sizeof(float)) != 0)) {
            fprintf(stderr, "fuzz_npy: round trip changed the tensor\n");
            abort();
        }
        free(y);
        remove(path); /* the next write-back is a new file, not a rename over this one */
    }
    free(x);
    return 0;
}

/*
 * mx_dist.h — seeded test-data distributions for quantization-error studies
 * (mxsim qsnr, tests, benchmarks).  No global state: the generator state is
 * an explicit mx_rng.h handle.
 */
#ifndef MX_DIST_H
#define MX_DIST_H

#include "util/mx_fp_env.h" /* refuses -ffast-math, excess precision */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MX_DIST_GAUSSIAN = 0,   /* N(0, 1)                                              */
    MX_DIST_LAPLACE,        /* Laplace(0, b = 1/sqrt 2): unit variance               */
    MX_DIST_UNIFORM,        /* U[-1, 1)                                             */
    MX_DIST_STUDENT_T,      /* Student t, nu = MX_DIST_STUDENT_NU: heavy tails       */
    MX_DIST_BLOCK_GAUSSIAN, /* N(0, sigma^2), sigma = 10^u per group of `group`
                               consecutive elements, u ~ U[-3, 3] (six decades)    */
    MX_DIST_COUNT
} mx_dist_kind;

#define MX_DIST_STUDENT_NU 3
#define MX_DIST_BLOCK_DECADES 3.0 /* u in [-3, 3] */

/* Short name ("gaussian", "laplace", "uniform", "student_t3", "block_gaussian"). */
const char *mx_dist_name(mx_dist_kind k);

/* Fills out[0..n) with samples of distribution k drawn from *rng.  `group`
 * is the group size of MX_DIST_BLOCK_GAUSSIAN (ignored otherwise, must be
 * >= 1 then).  Returns 0, or -1 for an unknown k or group < 1. */
int mx_dist_fill(mx_dist_kind k, size_t group, uint64_t *rng, float *out, size_t n);

/* One standard normal sample (Box-Muller, one of the pair). */
double mx_dist_normal(uint64_t *rng);

/* Quantization error of q against x over n elements (SPEC §2.3):
 * qsnr_db = -10 log10(sum (q-x)^2 / sum x^2), in double precision;
 * max_rel = max over x != 0 of |q - x| / |x|.
 * A non-finite q (or x) makes both NaN; all-zero x gives qsnr +Inf when q == x. */
typedef struct {
    double qsnr_db;
    double max_rel;
} mx_qerr;

mx_qerr mx_qerr_compute(const float *x, const float *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif

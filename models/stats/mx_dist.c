/*
 * mx_dist.c — seeded distributions and the QSNR / relative-error measure.
 */
#include "stats/mx_dist.h"
#include "formats/mx_rng.h"

#include <math.h>

const char *mx_dist_name(mx_dist_kind k)
{
    switch (k) {
    case MX_DIST_GAUSSIAN: return "gaussian";
    case MX_DIST_LAPLACE: return "laplace";
    case MX_DIST_UNIFORM: return "uniform";
    case MX_DIST_STUDENT_T: return "student_t3";
    case MX_DIST_BLOCK_GAUSSIAN: return "block_gaussian";
    default: return "?";
    }
}

/* Uniform in (0, 1]: safe for log(). */
static double uniform_open0(uint64_t *rng) { return 1.0 - mx_rng_uniform(rng); }

double mx_dist_normal(uint64_t *rng)
{
    double u1 = uniform_open0(rng), u2 = mx_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

int mx_dist_fill(mx_dist_kind k, size_t group, uint64_t *rng, float *out, size_t n)
{
    switch (k) {
    case MX_DIST_GAUSSIAN:
        for (size_t i = 0; i < n; i++) out[i] = (float)mx_dist_normal(rng);
        return 0;
    case MX_DIST_LAPLACE: {
        const double b = 1.0 / sqrt(2.0);
        for (size_t i = 0; i < n; i++) {
            /* Exponential magnitude with a random sign. */
            double e = -b * log(uniform_open0(rng));
            out[i] = (float)((mx_rng_next(rng) >> 63) ? -e : e);
        }
        return 0;
    }
    case MX_DIST_UNIFORM:
        for (size_t i = 0; i < n; i++) out[i] = (float)(2.0 * mx_rng_uniform(rng) - 1.0);
        return 0;
    case MX_DIST_STUDENT_T:
        for (size_t i = 0; i < n; i++) {
            /* Z / sqrt(V / nu), V a chi-square with nu degrees of freedom. */
            double z = mx_dist_normal(rng), v = 0.0;
            for (int j = 0; j < MX_DIST_STUDENT_NU; j++) {
                double g = mx_dist_normal(rng);
                v += g * g;
            }
            if (v < 1e-300) v = 1e-300;
            out[i] = (float)(z / sqrt(v / MX_DIST_STUDENT_NU));
        }
        return 0;
    case MX_DIST_BLOCK_GAUSSIAN: {
        if (group < 1) return -1;
        double sigma = 1.0;
        for (size_t i = 0; i < n; i++) {
            if (i % group == 0)
                sigma = pow(10.0, MX_DIST_BLOCK_DECADES * (2.0 * mx_rng_uniform(rng) - 1.0));
            out[i] = (float)(sigma * mx_dist_normal(rng));
        }
        return 0;
    }
    default:
        return -1;
    }
}

mx_qerr mx_qerr_compute(const float *x, const float *q, size_t n)
{
    double num = 0.0, den = 0.0, max_rel = 0.0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        double xi = x[i], qi = q[i];
        if (!isfinite(xi) || !isfinite(qi)) { bad = 1; break; }
        double d = qi - xi;
        num += d * d;
        den += xi * xi;
        if (xi != 0.0) {
            double r = fabs(d) / fabs(xi);
            if (r > max_rel) max_rel = r;
        }
    }
    mx_qerr e;
    if (bad) {
        e.qsnr_db = NAN;
        e.max_rel = NAN;
        return e;
    }
    e.max_rel = max_rel;
    if (num == 0.0) e.qsnr_db = INFINITY;
    else if (den == 0.0) e.qsnr_db = -INFINITY;
    else e.qsnr_db = -10.0 * log10(num / den);
    return e;
}

/*
 * mx_rng.h — seeded random numbers as an explicit state handle (splitmix64).
 * Used by stochastic rounding and by test/benchmark data generators.
 */
#ifndef MX_RNG_H
#define MX_RNG_H
#include <stdint.h>

static inline uint64_t mx_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double mx_rng_uniform(uint64_t *state)
{
    return (double)(mx_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif

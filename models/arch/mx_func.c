/* mx_func.c — functional mode of the accelerator model (placeholder). */
#include "arch/mx_arch.h"

#include <stdio.h>

int mx_arch_gemm_functional(const mx_arch_config *c, const mx_gemm *g, const mx_func_data *d,
                            mx_stats *s, uint32_t *out, char *err, size_t errlen)
{
    (void)d; (void)out;
    if (mx_arch_gemm_timing(c, g, s, err, errlen) != 0) return -1;
    snprintf(err, errlen, "functional mode not implemented yet");
    return -1;
}

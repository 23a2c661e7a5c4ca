/*
 * mx_addtree.c — two's-complement sum (twin of rtl/mx_addtree.sv).
 */
#include "units/mx_addtree.h"

int64_t mx_addtree_comb(int lanes, const int64_t *aligned_i)
{
    int64_t s = 0;
    for (int i = 0; i < lanes; i++) s += aligned_i[i];
    return s;
}

/*
 * mx_sc_rtl_stub.cpp — the RTL back-end factory of a build without the
 * Verilated array.
 */
#include "mx_sc_accel.h"

std::unique_ptr<mx_sc_backend> mx_sc_make_rtl_backend(const mx_arch_config &, std::string &err)
{
    err = "this binary was built without the Verilated RTL back-end";
    return nullptr;
}

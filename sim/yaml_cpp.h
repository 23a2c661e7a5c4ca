// yaml_cpp.h — includes yaml-cpp for the loaders (config_yaml.cpp,
// dram_config.cpp).  GCC 12 reports a false -Wdangling-pointer inside
// yaml-cpp's Node assignment (node/impl.h); the warning is silenced for the
// library's header only.
#ifndef MXSIM_YAML_CPP_H
#define MXSIM_YAML_CPP_H
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
#endif

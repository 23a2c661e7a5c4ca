// yaml_cpp.h — includes yaml-cpp for the loaders (config_yaml.cpp,
// dram_config.cpp) and declares their shared checked YAML reader.  GCC 12
// reports a false -Wdangling-pointer inside yaml-cpp's Node assignment
// (node/impl.h); the warning is silenced for the library's header only.
#ifndef MXSIM_YAML_CPP_H
#define MXSIM_YAML_CPP_H
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif

#include <string>

namespace mxsim {

// A complete one-line message naming the file (and line and key).
struct yaml_input_error {
    std::string msg;
};

// Deepest nesting of mappings/sequences accepted; our files use 3.  Checked
// while parsing, so hostile nesting stops here, far from yaml-cpp's own
// recursion limit and from the stack's.
constexpr int yaml_max_depth = 32;

// Most nodes (keys and values) accepted in one document; our files have a
// few hundred.  yaml-cpp spends ~1.5 us and ~450 bytes per node: the bound
// keeps a hostile file's node tree small and fast.
constexpr int yaml_max_nodes = 20000;

// Parses YAML text after checking it event by event: exactly one document,
// every mapping key a plain scalar (not null, a sequence, a mapping or an
// alias) and unique within its mapping, nesting at most yaml_max_depth,
// at most yaml_max_nodes nodes.  yaml-cpp
// alone keeps both copies of a repeated key and fails on a non-scalar key
// with "bad conversion".  `where` prefixes messages: a file name (then
// ":LINE" is added) or, with has_lines false, e.g. "--set"; key paths start
// at key_prefix.  Throws yaml_input_error.
YAML::Node yaml_parse_checked(const std::string &text, const std::string &where, bool has_lines,
                              const std::string &key_prefix = "");

// mx_input_read (regular file, bounded size) + yaml_parse_checked.
YAML::Node yaml_load_file_checked(const std::string &file, const char *what);

}  // namespace mxsim
#endif

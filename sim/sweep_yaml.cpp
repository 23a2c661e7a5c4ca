// sweep_yaml.cpp — reads a sweep file (`mxsim sweep -s SWEEP.yaml`) into a
// sw_def (sim/sweep_def.h).  Keys: base, traces, grid, zip, engine, mode, out;
// relative paths (base, traces) are found next to the sweep file, then in
// the data directories (mx_data_find); out is relative to the sweep file.
#include "config_yaml.h"
#include "sweep_def.h"
#include "yaml_cpp.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct sweep_error {
    std::string msg;
};

std::string at(const std::string &file, const YAML::Node &n, const std::string &key, const std::string &what)
{
    int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    return file + ":" + std::to_string(line) + ": key '" + key + "': " + what;
}

// A path of the sweep file: next to it, else in the data directories
// (mx_data_find; found nowhere: next to it, for the error to name).
std::string rel(const std::string &file, const std::string &p)
{
    if (p.empty() || p[0] == '/') return p;
    char out[4096];
    mx_data_find(file.c_str(), p.c_str(), out, sizeof out, nullptr, 0);
    return out;
}

std::vector<std::string> scalars(const std::string &file, const YAML::Node &n, const std::string &key)
{
    std::vector<std::string> out;
    if (n.IsScalar()) out.push_back(n.Scalar());
    else if (n.IsSequence())
        for (const YAML::Node &v : n) {
            if (!v.IsScalar()) throw sweep_error{at(file, v, key, "expected a scalar value")};
            out.push_back(v.Scalar());
        }
    else throw sweep_error{at(file, n, key, "expected a value or a list of values")};
    return out;
}

void axis(const std::string &file, sw_def *d, const YAML::Node &m, bool zip, const std::string &prefix)
{
    int a = d->naxes;
    for (auto it = m.begin(); it != m.end(); ++it) {
        std::string key = it->first.Scalar();
        std::vector<std::string> v = scalars(file, it->second, prefix + "." + key);
        std::vector<const char *> p;
        for (const std::string &s : v) p.push_back(s.c_str());
        char err[600];
        if (sw_def_axis_key(d, zip ? a : d->naxes, zip, key.c_str(), p.data(), (int)p.size(), err, sizeof err) != 0)
            throw sweep_error{at(file, it->second, prefix + "." + key, err)};
    }
}

}  // namespace

extern "C" int sw_def_load_yaml(const char *path, sw_def *d, const char **out, char *err, size_t errlen)
{
    const std::string file = path;
    *out = nullptr;
    try {
        YAML::Node doc = mxsim::yaml_load_file_checked(file, "sweep file");
        std::vector<std::pair<std::string, YAML::Node>> filters; // added once every axis is known
        if (!doc.IsMap()) throw sweep_error{file + ": a sweep file is a mapping (base, traces, grid, zip, engine, mode, out)"};
        for (auto it = doc.begin(); it != doc.end(); ++it) {
            std::string k = it->first.Scalar();
            const YAML::Node v = it->second; // a handle: it-> is a temporary proxy
            if (k == "base") {
                if (!v.IsScalar()) throw sweep_error{at(file, v, k, "expected a file name")};
                d->base = sw_def_strdup(d, rel(file, v.Scalar()).c_str());
            } else if (k == "traces") {
                for (const std::string &t : scalars(file, v, k)) {
                    char e[300];
                    if (sw_def_add_trace(d, sw_def_strdup(d, rel(file, t).c_str()), e, sizeof e) != 0) throw sweep_error{at(file, v, k, e)};
                }
            } else if (k == "grid") {
                if (!v.IsMap()) throw sweep_error{at(file, v, k, "expected a mapping KEY: [V1, V2, ...]")};
                for (auto g = v.begin(); g != v.end(); ++g) {
                    YAML::Node one(YAML::NodeType::Map);
                    one[g->first] = g->second;
                    axis(file, d, one, false, "grid");
                }
            } else if (k == "zip") {
                if (!v.IsSequence()) throw sweep_error{at(file, v, k, "expected a list of mappings (each one zipped axis)")};
                for (const YAML::Node &z : v) {
                    if (!z.IsMap() || z.size() == 0) throw sweep_error{at(file, z, k, "expected a mapping KEY: [V1, V2, ...]")};
                    axis(file, d, z, true, "zip");
                }
            } else if (k == "engine" || k == "mode") {
                if (!v.IsScalar()) throw sweep_error{at(file, v, k, "expected a value")};
                std::string s = v.Scalar();
                bool ok = k == "engine" ? (s == "analytic" || s == "cycle") : (s == "timing" || s == "functional");
                if (!ok) throw sweep_error{at(file, v, k, k == "engine" ? "must be analytic or cycle" : "must be timing or functional")};
                (k == "engine" ? d->engine : d->mode) = sw_def_strdup(d, s.c_str());
            } else if (k == "filters") {
                for (const std::string &f : scalars(file, v, k)) filters.emplace_back(f, v);
            } else if (k == "out") {
                if (!v.IsScalar()) throw sweep_error{at(file, v, k, "expected a directory name")};
                const std::string o = v.Scalar();
                const size_t sl = file.rfind('/');
                *out = sw_def_strdup(d, (o.empty() || o[0] == '/' || sl == std::string::npos ? o : file.substr(0, sl + 1) + o).c_str());
            } else {
                throw sweep_error{at(file, it->first, k, "unknown key (expected base, traces, grid, zip, filters, engine, mode, out)")};
            }
        }
        for (auto &f : filters) {
            char e[700];
            if (sw_def_add_filter(d, f.first.c_str(), e, sizeof e) != 0) throw sweep_error{at(file, f.second, "filters", e)};
        }
    } catch (const sweep_error &e) {
        snprintf(err, errlen, "%s", e.msg.c_str());
        return -1;
    } catch (const mxsim::yaml_input_error &e) {
        snprintf(err, errlen, "%s", e.msg.c_str());
        return -1;
    } catch (const YAML::Exception &e) {
        snprintf(err, errlen, "%s: %s", path, e.what());
        return -1;
    }
    return 0;
}

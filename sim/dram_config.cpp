// dram_config.cpp — loads a DRAM configuration (mem/mx_dram.h) from our YAML
// (configs/dram/*.yaml: every number with its source) or from a DRAMsim3
// .ini preset (parsed with inih, the parser DRAMsim3 itself bundles).  Every
// error is one line naming file, line and key; unknown keys are errors.
// The key mapping is documented in docs/DRAM.md ("Configuration files") and
// docs/DECISIONS.md ("DRAM configuration").
#include "dram_config.h"
#include "config_yaml.h"

#include "yaml_cpp.h"

#include <ini.h>

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

struct load_error {
    std::string msg;
};

std::string fmt(const char *f, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, f, ap);
    return buf;
}

[[noreturn]] void fail(const std::string &file, int line, const std::string &key, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    std::string m = fmt(f, ap);
    va_end(ap);
    throw load_error{file + ":" + std::to_string(line > 0 ? line : 1) + ": key '" + key + "': " + m};
}

// ---- value parsing shared by both formats ----------------------------------

bool parse_int(const std::string &s, long long &v)
{
    if (s.empty()) return false;
    char *end = nullptr;
    errno = 0;
    v = strtoll(s.c_str(), &end, 10);
    return *end == 0 && errno == 0;
}

bool parse_num(const std::string &s, double &v)
{
    if (s.empty()) return false;
    char *end = nullptr;
    errno = 0;
    v = strtod(s.c_str(), &end);
    return *end == 0 && errno == 0 && std::isfinite(v);
}

// One value to store: where it came from (for messages) and its text.
struct item {
    std::string text;
    int line = 0;
};

long long want_int(const std::string &file, const std::string &key, const item &it, long long lo,
                   long long hi)
{
    long long v;
    if (!parse_int(it.text, v)) fail(file, it.line, key, "not an integer: '%s'", it.text.c_str());
    if (v < lo || v > hi) fail(file, it.line, key, "must be >= %lld and <= %lld, got %lld", lo, hi, v);
    return v;
}

double want_num(const std::string &file, const std::string &key, const item &it, double lo, double hi)
{
    double v;
    if (!parse_num(it.text, v)) fail(file, it.line, key, "not a number: '%s'", it.text.c_str());
    if (v < lo || v > hi) fail(file, it.line, key, "must be >= %g and <= %g, got %g", lo, hi, v);
    return v;
}

int *timing_field(mx_dram_config *c, const mx_dram_timing_field &f)
{
    return reinterpret_cast<int *>(reinterpret_cast<char *>(&c->t) + f.offset);
}

const long long TIMING_MAX = 100000000; // clocks; far beyond any real parameter

// After mx_dram_config_check fails: its message names a field ("key 'tRC'");
// the message is re-keyed to the file's own dotted key and gets its line.
// `lines`: our dotted key -> line; `names`: our dotted key -> the file's key
// (the .ini's names; empty for YAML, whose keys are ours).
std::string check_message(const std::string &file, const char *msg, const std::map<std::string, int> &lines,
                          const std::map<std::string, std::string> &names)
{
    const char *q = strstr(msg, "key '");
    if (!q) return file + ":1: " + msg;
    std::string key(q + 5, strcspn(q + 5, "'"));
    std::string ours;
    if (key == "tCK") key = "tCK_ns";
    if (lines.count(key)) ours = key;
    else
        for (auto &e : lines) { // the check names the field without its section
            size_t n = e.first.size(), k = key.size();
            if (n > k && e.first.compare(n - k, k, key) == 0 && e.first[n - k - 1] == '.') { ours = e.first; break; }
        }
    if (ours.empty()) return file + ":1: " + msg;
    auto nm = names.find(ours);
    std::string shown = nm != names.end() ? nm->second : ours;
    std::string rest(q + 5 + strcspn(q + 5, "'"));
    return file + ":" + std::to_string(lines.at(ours)) + ": " + std::string(msg, q - msg) + "key '" + shown + rest;
}

void check_config(const std::string &file, const mx_dram_config *c, const std::map<std::string, int> &lines,
                  const std::map<std::string, std::string> &names = {})
{
    char cerr[400];
    if (mx_dram_config_check(c, cerr, sizeof cerr) != 0) throw load_error{check_message(file, cerr, lines, names)};
}

std::string basename_noext(const std::string &p)
{
    size_t s = p.find_last_of('/');
    std::string b = s == std::string::npos ? p : p.substr(s + 1);
    size_t d = b.find_last_of('.');
    return d == std::string::npos || d == 0 ? b : b.substr(0, d);
}

// ---- YAML -------------------------------------------------------------------
//
// Sections structure / timing / power / controller; a value is a scalar or
// {value: X, source: "...", note: "..."}; a section may carry `source:` and
// `note:` for all its values.  Every value needs a source (its own or its
// section's); every field is required (no silent defaults).

int yline(const YAML::Node &n)
{
    return n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 1;
}

enum kind { K_INT, K_NUM, K_BOOL, K_STR };

struct yfield {
    kind k;
    long long lo, hi;
    std::function<void(long long, double, const std::string &)> set;
};

std::map<std::string, yfield> yaml_fields(mx_dram_config *c)
{
    std::map<std::string, yfield> t;
    auto I = [&](const char *key, int *dst, long long lo, long long hi) {
        t[key] = yfield{K_INT, lo, hi, [dst](long long v, double, const std::string &) { *dst = (int)v; }};
    };
    auto N = [&](const char *key, double *dst, double lo, double hi) {
        t[key] = yfield{K_NUM, (long long)lo, (long long)hi, [dst](long long, double v, const std::string &) { *dst = v; }};
    };
    I("structure.channels", &c->channels, 1, 1024);
    I("structure.ranks", &c->ranks, 1, 64);
    I("structure.bankgroups", &c->bankgroups, 1, 64);
    I("structure.banks_per_group", &c->banks_per_group, 1, 64);
    I("structure.rows", &c->rows, 1, 1 << 24);
    I("structure.columns", &c->columns, 1, 1 << 20);
    I("structure.device_width", &c->device_width, 1, 1024);
    I("structure.bus_bits", &c->bus_bits, 1, 4096);
    I("structure.BL", &c->BL, 1, 64);
    N("timing.tCK_ns", &c->tCK_ns, 0, 1000);
    for (size_t i = 0; i < mx_dram_timing_table_n; i++) {
        const mx_dram_timing_field &f = mx_dram_timing_table[i];
        I((std::string("timing.") + f.name).c_str(), timing_field(c, f), f.min, TIMING_MAX);
    }
    N("power.VDD", &c->p.VDD, 0, 10);
    N("power.IDD0", &c->p.IDD0, 0, 1e5);
    N("power.IDD2N", &c->p.IDD2N, 0, 1e5);
    N("power.IDD3N", &c->p.IDD3N, 0, 1e5);
    N("power.IDD4R", &c->p.IDD4R, 0, 1e5);
    N("power.IDD4W", &c->p.IDD4W, 0, 1e5);
    N("power.IDD5", &c->p.IDD5, 0, 1e5);
    t["controller.page_policy"] = yfield{K_STR, 0, 0, [c](long long, double, const std::string &s) {
        c->page_policy = s == "closed" ? MX_PAGE_CLOSED : MX_PAGE_OPEN;
    }};
    t["controller.address_mapping"] = yfield{K_STR, 0, 0, [c](long long, double, const std::string &s) {
        snprintf(c->address_mapping, sizeof c->address_mapping, "%s", s.c_str());
    }};
    I("controller.queue_size", &c->queue_size, 1, 1 << 20);
    I("controller.write_high", &c->write_high, 0, 1 << 20);
    I("controller.write_low", &c->write_low, 0, 1 << 20);
    t["controller.refresh"] = yfield{K_BOOL, 0, 0, [c](long long v, double, const std::string &) { c->refresh = (int)v; }};
    return t;
}

std::string yscalar(const std::string &file, const YAML::Node &n, const std::string &key)
{
    if (!n.IsScalar()) fail(file, yline(n), key, "expected a scalar value");
    return n.Scalar();
}

void yaml_value(const std::string &file, const std::string &key, const yfield &f, const YAML::Node &v)
{
    item it{yscalar(file, v, key), yline(v)};
    switch (f.k) {
    case K_INT: f.set(want_int(file, key, it, f.lo, f.hi), 0, ""); break;
    case K_NUM: {
        double x = want_num(file, key, it, (double)f.lo, (double)f.hi);
        if (x <= 0) fail(file, it.line, key, "must be > 0, got %g", x); // tCK, VDD, currents
        f.set(0, x, "");
        break;
    }
    case K_BOOL:
        if (it.text == "true" || it.text == "yes" || it.text == "on") f.set(1, 0, "");
        else if (it.text == "false" || it.text == "no" || it.text == "off") f.set(0, 0, "");
        else fail(file, it.line, key, "must be true or false, got '%s'", it.text.c_str());
        break;
    case K_STR:
        if (key == "controller.page_policy" && it.text != "open" && it.text != "closed")
            fail(file, it.line, key, "must be open or closed, got '%s'", it.text.c_str());
        static_assert(sizeof(mx_dram_config::address_mapping) > 12, "6 two-letter fields and the NUL");
        if (key == "controller.address_mapping" && it.text.size() != 12)
            fail(file, it.line, key, "must be 6 two-letter fields (ro ch ra bg ba co), e.g. rochrababgco, got '%s'",
                 it.text.c_str());
        f.set(0, 0, it.text);
        break;
    }
}

bool nonempty_source(const YAML::Node &n)
{
    return n.IsDefined() && n.IsScalar() && !n.Scalar().empty();
}

void load_yaml(const std::string &file, mx_dram_config *c)
{
    auto parse = [&]() { // the shared checked reader (sim/yaml_cpp.h): bounded, duplicate keys, depth
        try {
            return mxsim::yaml_load_file_checked(file, "DRAM configuration");
        } catch (const mxsim::yaml_input_error &e) {
            throw load_error{e.msg};
        }
    };
    const YAML::Node root = parse();
    if (!root.IsDefined() || root.IsNull()) throw load_error{file + ":1: empty configuration"};
    if (!root.IsMap()) fail(file, yline(root), "(top level)", "expected a mapping");
    auto table = yaml_fields(c);
    std::map<std::string, int> lines; // dotted key -> line, for check messages
    std::set<std::string> top_seen;
    static const char *sections[] = {"structure", "timing", "power", "controller"};
    for (auto it = root.begin(); it != root.end(); ++it) {
        std::string k = it->first.as<std::string>();
        int kl = yline(it->first);
        if (top_seen.count(k)) fail(file, kl, k, "duplicate key");
        top_seen.insert(k);
        if (k == "name") {
            std::string s = yscalar(file, it->second, k);
            if (s.empty() || s.size() >= MX_DRAM_NAME_MAX)
                fail(file, kl, k, "must be 1..%d characters", MX_DRAM_NAME_MAX - 1);
            snprintf(c->name, sizeof c->name, "%s", s.c_str());
            continue;
        }
        if (k == "description" || k == "source" || k == "note") {
            yscalar(file, it->second, k);
            continue;
        }
        bool is_section = false;
        for (const char *s : sections) is_section |= k == s;
        if (!is_section) fail(file, kl, k, "unknown key (expected name, description, structure, timing, power, controller)");
        const YAML::Node sec = it->second;
        if (!sec.IsMap()) fail(file, yline(sec), k, "expected a mapping");
        bool sec_source = nonempty_source(sec["source"]);
        std::set<std::string> seen;
        for (auto f = sec.begin(); f != sec.end(); ++f) {
            std::string fk = f->first.as<std::string>();
            std::string full = k + "." + fk;
            int fl = yline(f->first);
            if (seen.count(fk)) fail(file, fl, full, "duplicate key");
            seen.insert(fk);
            if (fk == "source" || fk == "note") {
                std::string s = yscalar(file, f->second, full);
                if (fk == "source" && s.empty()) fail(file, fl, full, "must not be empty");
                continue;
            }
            auto tf = table.find(full);
            if (tf == table.end()) fail(file, fl, full, "unknown key");
            const YAML::Node v = f->second;
            if (v.IsMap()) { // {value: X, source: "...", note: "..."}: its own source is required
                for (auto e = v.begin(); e != v.end(); ++e) {
                    std::string ek = e->first.as<std::string>();
                    if (ek != "value" && ek != "source" && ek != "note")
                        fail(file, yline(e->first), full + "." + ek, "unknown field (expected value, source, note)");
                }
                if (!v["value"].IsDefined()) fail(file, fl, full + ".value", "missing");
                if (!nonempty_source(v["source"])) fail(file, fl, full + ".source", "missing or empty");
            } else if (!sec_source) {
                fail(file, fl, full, "no source: give the section a 'source:' or write {value: ..., source: ...}");
            }
            // (constructed, never assigned: yaml-cpp's Node assignment writes through)
            const YAML::Node value = v.IsMap() ? v["value"] : v;
            yaml_value(file, full, tf->second, value);
            lines[full] = fl;
        }
    }
    if (!top_seen.count("name")) fail(file, 1, "name", "missing");
    for (auto &e : table)
        if (!lines.count(e.first)) {
            std::string sec = e.first.substr(0, e.first.find('.'));
            int l = 1;
            for (auto it = root.begin(); it != root.end(); ++it)
                if (it->first.as<std::string>() == sec) l = yline(it->first);
            fail(file, l, e.first, "missing");
        }
    check_config(file, c, lines);
}

// ---- DRAMsim3 .ini ----------------------------------------------------------

enum ini_use { MAPPED, IGNORED };

// The keys DRAMsim3 reads (src/configuration.cc) or ships in its presets,
// per section.  MAPPED keys feed mx_dram_config; IGNORED ones are accepted
// and have no counterpart in our model.
const std::map<std::string, std::map<std::string, ini_use>> &ini_keys()
{
    static const std::map<std::string, std::map<std::string, ini_use>> k = {
        {"dram_structure",
         {{"protocol", MAPPED}, {"bankgroups", MAPPED}, {"banks_per_group", MAPPED},
          {"bankgroup_enable", MAPPED}, {"rows", MAPPED}, {"columns", MAPPED},
          {"device_width", MAPPED}, {"BL", MAPPED}, {"num_dies", IGNORED}, {"hbm_dual_cmd", IGNORED}}},
        {"timing",
         {{"tCK", MAPPED}, {"AL", MAPPED}, {"CL", MAPPED}, {"CWL", MAPPED}, {"tRCD", MAPPED},
          {"tRCDRD", MAPPED}, {"tRCDWR", MAPPED}, {"tRP", MAPPED}, {"tRAS", MAPPED}, {"tRC", MAPPED},
          {"tRFC", MAPPED}, {"tREFI", MAPPED}, {"tRRD_S", MAPPED}, {"tRRD_L", MAPPED},
          {"tWTR_S", MAPPED}, {"tWTR_L", MAPPED}, {"tFAW", MAPPED}, {"tWR", MAPPED}, {"tRTP", MAPPED},
          {"tRTP_L", MAPPED}, {"tCCD_S", MAPPED}, {"tCCD_L", MAPPED}, {"tCKE", MAPPED}, {"tXP", MAPPED},
          {"tRTRS", MAPPED},
          {"tRFC2", IGNORED}, {"tRFC4", IGNORED}, {"tRFCb", IGNORED}, {"tREFIb", IGNORED},
          {"tRPRE", IGNORED}, {"tWPRE", IGNORED}, {"tWR2", IGNORED}, {"tWP", IGNORED},
          {"tRTP_S", IGNORED}, {"tCKESR", IGNORED}, {"tCKSRE", IGNORED}, {"tXS", IGNORED},
          {"tPPD", IGNORED}, {"t32AW", IGNORED}, {"ideal_memory_latency", IGNORED}}},
        {"power",
         {{"VDD", MAPPED}, {"IDD0", MAPPED}, {"IDD2N", MAPPED}, {"IDD3N", MAPPED}, {"IDD4R", MAPPED},
          {"IDD4W", MAPPED}, {"IDD5AB", MAPPED}, {"IDD2P", IGNORED}, {"IDD3P", IGNORED},
          {"IDD5PB", IGNORED}, {"IDD6x", IGNORED}, {"IPP0", IGNORED}}},
        {"system",
         {{"channel_size", MAPPED}, {"channels", MAPPED}, {"bus_width", MAPPED},
          {"address_mapping", MAPPED}, {"row_buf_policy", MAPPED}, {"trans_queue_size", MAPPED},
          {"refresh_policy", MAPPED}, {"queue_structure", IGNORED}, {"cmd_queue_size", IGNORED},
          {"unified_queue", IGNORED}, {"write_buf_size", IGNORED}, {"enable_self_refresh", IGNORED},
          {"sref_threshold", IGNORED}, {"aggressive_precharging_enabled", IGNORED},
          {"mega_tick", IGNORED}}},
        {"other", {{"epoch_period", IGNORED}, {"output_level", IGNORED}, {"output_prefix", IGNORED}}},
        {"hmc",
         {{"num_links", IGNORED}, {"link_width", IGNORED}, {"link_speed", IGNORED},
          {"block_size", IGNORED}, {"xbar_queue_depth", IGNORED}}},
        {"thermal",
         {{"const_logic_power", IGNORED}, {"mat_dim_x", IGNORED}, {"mat_dim_y", IGNORED},
          {"loc_mapping", IGNORED}, {"bank_order", IGNORED}, {"bank_layer_order", IGNORED},
          {"chip_dim_x", IGNORED}, {"chip_dim_y", IGNORED}, {"amb_temp", IGNORED}}},
    };
    return k;
}

const int INI_LINE_MAX = 1000; // longer lines are refused

struct ini_state {
    std::string file;
    FILE *f = nullptr;
    int line = 0;         // lines read so far = line of the current handler call
    std::string error;    // first error, complete message
    std::map<std::string, item> values; // "section.key" -> value
    std::map<std::string, int> section_lines;
};

void ini_set_error(ini_state *s, int line, const std::string &key, const std::string &msg)
{
    if (s->error.empty()) s->error = s->file + ":" + std::to_string(line) + ": key '" + key + "': " + msg;
}

// inih reader: one whole line per call, counting lines; a line longer than
// inih's buffer or INI_LINE_MAX is an error (never split into two lines).
char *ini_read_line(char *str, int num, void *stream)
{
    ini_state *s = static_cast<ini_state *>(stream);
    std::string l;
    int ch;
    bool any = false;
    while ((ch = fgetc(s->f)) != EOF) {
        any = true;
        if (ch == '\n') break;
        if ((int)l.size() < INI_LINE_MAX + 1) l.push_back((char)ch);
    }
    if (!any) return nullptr;
    s->line++;
    if ((int)l.size() > INI_LINE_MAX || (int)l.size() + 2 > num) {
        if (s->error.empty())
            s->error = s->file + ":" + std::to_string(s->line) + ": line longer than " +
                       std::to_string(std::min(INI_LINE_MAX, num - 2)) + " characters";
        l.clear();
    }
    size_t b = l.find_first_not_of(" \t");
    if (b != std::string::npos && l[b] == '[') {
        size_t e = l.find(']', b);
        if (e != std::string::npos) s->section_lines.emplace(l.substr(b + 1, e - b - 1), s->line);
    }
    memcpy(str, l.c_str(), l.size());
    str[l.size()] = '\n';
    str[l.size() + 1] = 0;
    return str;
}

int ini_handler_fn(void *user, const char *section, const char *name, const char *value)
{
    ini_state *s = static_cast<ini_state *>(user);
    if (!s->error.empty()) return 1;
    std::string sec(section), key(name);
    std::string full = sec + "." + key;
    if (sec.empty()) {
        ini_set_error(s, s->line, key, "outside a section (DRAMsim3 sections: dram_structure, timing, power, system, other)");
        return 0;
    }
    auto &known = ini_keys();
    auto si = known.find(sec);
    if (si == known.end()) {
        ini_set_error(s, s->line, full, "unknown section '" + sec +
                                            "' (DRAMsim3 sections: dram_structure, timing, power, system, other, hmc, thermal)");
        return 0;
    }
    if (!si->second.count(key)) {
        ini_set_error(s, s->line, full, "unknown key");
        return 0;
    }
    if (s->values.count(full)) {
        ini_set_error(s, s->line, full, "duplicate key (first on line " + std::to_string(s->values[full].line) + ")");
        return 0;
    }
    s->values[full] = item{value, s->line};
    return 1;
}

struct ini_cfg {
    const std::string &file;
    std::map<std::string, item> &v;
    std::map<std::string, int> lines; // our dotted key -> line, for check messages
    std::map<std::string, std::string> names; // our dotted key -> .ini dotted key
    const std::map<std::string, int> &sections; // section -> line of its header
    bool has(const std::string &k) const { return v.count(k) > 0; }
    const item &need(const std::string &k) const
    {
        auto it = v.find(k);
        if (it == v.end()) {
            auto sl = sections.find(k.substr(0, k.find('.')));
            fail(file, sl == sections.end() ? 1 : sl->second, k, "missing");
        }
        return it->second;
    }
    long long i(const std::string &k, long long lo, long long hi) const { return want_int(file, k, need(k), lo, hi); }
    double d(const std::string &k, double lo, double hi) const { return want_num(file, k, need(k), lo, hi); }
};

bool ini_bool(const std::string &s, bool &b)
{
    std::string l;
    for (char ch : s) l.push_back((char)tolower((unsigned char)ch));
    if (l == "true" || l == "yes" || l == "on" || l == "1") { b = true; return true; }
    if (l == "false" || l == "no" || l == "off" || l == "0") { b = false; return true; }
    return false;
}

void load_ini(const std::string &file, mx_dram_config *c)
{
    ini_state st;
    st.file = file;
    char *text = nullptr, rerr[700];
    size_t len = 0;
    if (mx_input_read(file.c_str(), "DRAM configuration", &text, &len, rerr, sizeof rerr) != 0) throw load_error{rerr};
    st.f = len ? fmemopen(text, len, "r") : fopen("/dev/null", "r"); // the bounded copy, not the file again
    if (!st.f) {
        free(text);
        throw load_error{file + ": cannot read the file: " + strerror(errno)};
    }
    int rc = ini_parse_stream(ini_read_line, &st, ini_handler_fn, &st);
    fclose(st.f);
    free(text);
    if (!st.error.empty()) throw load_error{st.error};
    if (rc > 0) throw load_error{file + ":" + std::to_string(rc) + ": malformed INI line (expected [section] or key = value)"};
    if (rc < 0) throw load_error{file + ": cannot read the file"};

    ini_cfg g{file, st.values, {}, {}, st.section_lines};
    auto mark = [&](const std::string &ours, const std::string &ini) {
        auto it = st.values.find(ini);
        if (it != st.values.end()) {
            g.lines[ours] = it->second.line;
            g.names[ours] = ini;
        }
    };
    snprintf(c->name, sizeof c->name, "%s", basename_noext(file).c_str());

    // [dram_structure]
    const item &proto = g.need("dram_structure.protocol");
    const std::string &p = proto.text;
    bool hbm = p == "HBM" || p == "HBM2";
    if (p == "GDDR5" || p == "GDDR5X" || p == "HMC")
        fail(file, proto.line, "dram_structure.protocol", "'%s' is not modelled (DDR3, DDR4, LPDDR, LPDDR3, LPDDR4, HBM, HBM2)", p.c_str());
    if (!(hbm || p == "DDR3" || p == "DDR4" || p == "LPDDR" || p == "LPDDR3" || p == "LPDDR4"))
        fail(file, proto.line, "dram_structure.protocol", "unknown protocol '%s' (DDR3, DDR4, LPDDR, LPDDR3, LPDDR4, HBM, HBM2)", p.c_str());
    c->bankgroups = (int)g.i("dram_structure.bankgroups", 1, 64);
    c->banks_per_group = (int)g.i("dram_structure.banks_per_group", 1, 64);
    if (g.has("dram_structure.bankgroup_enable")) {
        const item &b = g.need("dram_structure.bankgroup_enable");
        bool on;
        if (!ini_bool(b.text, on)) fail(file, b.line, "dram_structure.bankgroup_enable", "must be true or false, got '%s'", b.text.c_str());
        if (!on) { // DRAMsim3: all banks in one group
            c->banks_per_group *= c->bankgroups;
            c->bankgroups = 1;
        }
    }
    c->rows = (int)g.i("dram_structure.rows", 1, 1 << 24);
    c->columns = (int)g.i("dram_structure.columns", 1, 1 << 20);
    if (hbm) c->columns *= 2; // DRAMsim3: HBM columns are 2n-prefetch pairs of device words
    c->device_width = (int)g.i("dram_structure.device_width", 1, 1024);
    c->BL = (int)g.i("dram_structure.BL", 1, 64);
    mark("structure.bankgroups", "dram_structure.bankgroups");
    mark("structure.banks_per_group", "dram_structure.banks_per_group");
    mark("structure.rows", "dram_structure.rows");
    mark("structure.columns", "dram_structure.columns");
    mark("structure.device_width", "dram_structure.device_width");
    mark("structure.BL", "dram_structure.BL");

    // [system]
    c->channels = (int)g.i("system.channels", 1, 1024);
    c->bus_bits = (int)g.i("system.bus_width", 1, 4096);
    long long channel_mb = g.i("system.channel_size", 1, 1LL << 30);
    mark("structure.channels", "system.channels");
    mark("structure.bus_bits", "system.bus_width");
    if (c->bus_bits % c->device_width != 0)
        fail(file, g.need("system.bus_width").line, "system.bus_width", "must be a multiple of dram_structure.device_width (%d)", c->device_width);
    { // DRAMsim3 Config::CalculateSize, integer arithmetic as there
        long long devices = c->bus_bits / c->device_width;
        long long page = (long long)c->columns * c->device_width / 8;
        long long megs_per_bank = page * (c->rows / 1024) / 1024;
        long long megs_per_rank = megs_per_bank * c->bankgroups * c->banks_per_group * devices;
        if (megs_per_rank <= 0)
            fail(file, g.need("dram_structure.rows").line, "dram_structure.rows", "a rank of less than 1 MB (rows x page too small for DRAMsim3's size rule)");
        if (megs_per_rank > channel_mb)
            fail(file, g.need("system.channel_size").line, "system.channel_size",
                 "%lld MB is less than one rank (%lld MB)", channel_mb, megs_per_rank);
        if (channel_mb / megs_per_rank > 64)
            fail(file, g.need("system.channel_size").line, "system.channel_size", "more than 64 ranks (%lld MB per rank)", megs_per_rank);
        c->ranks = (int)(channel_mb / megs_per_rank);
        mark("structure.ranks", "system.channel_size");
    }
    {
        const item &m = g.need("system.address_mapping");
        if (m.text.size() != 12)
            fail(file, m.line, "system.address_mapping", "must be 6 two-letter fields (ro ch ra bg ba co), got '%s'", m.text.c_str());
        snprintf(c->address_mapping, sizeof c->address_mapping, "%s", m.text.c_str());
        mark("controller.address_mapping", "system.address_mapping");
    }
    {
        const item &r = g.need("system.row_buf_policy");
        if (r.text == "OPEN_PAGE") c->page_policy = MX_PAGE_OPEN;
        else if (r.text == "CLOSE_PAGE") c->page_policy = MX_PAGE_CLOSED;
        else fail(file, r.line, "system.row_buf_policy", "must be OPEN_PAGE or CLOSE_PAGE, got '%s'", r.text.c_str());
        mark("controller.page_policy", "system.row_buf_policy");
    }
    c->refresh = 1;
    if (g.has("system.refresh_policy")) {
        const item &r = g.need("system.refresh_policy");
        if (r.text == "BANK_LEVEL_STAGGERED")
            fail(file, r.line, "system.refresh_policy", "BANK_LEVEL_STAGGERED (per-bank refresh) is not modelled; use RANK_LEVEL_STAGGERED or RANK_LEVEL_SIMULTANEOUS");
        if (r.text != "RANK_LEVEL_STAGGERED" && r.text != "RANK_LEVEL_SIMULTANEOUS")
            fail(file, r.line, "system.refresh_policy", "must be RANK_LEVEL_STAGGERED or RANK_LEVEL_SIMULTANEOUS, got '%s'", r.text.c_str());
        mark("controller.refresh", "system.refresh_policy");
    }
    c->queue_size = g.has("system.trans_queue_size") ? (int)g.i("system.trans_queue_size", 1, 1 << 20) : 32;
    c->write_high = c->queue_size; // DRAMsim3: drain when the write buffer is full ...
    c->write_low = 0;              // ... and issue every buffered write
    mark("controller.queue_size", "system.trans_queue_size");
    mark("controller.write_high", "system.trans_queue_size");

    // [timing]
    c->tCK_ns = g.d("timing.tCK", 0, 1000);
    if (c->tCK_ns <= 0) fail(file, g.need("timing.tCK").line, "timing.tCK", "must be > 0");
    mark("timing.tCK_ns", "timing.tCK");
    auto set_t = [&](const mx_dram_timing_field &f, const std::string &ini_key) {
        *timing_field(c, f) = (int)g.i(ini_key, f.min, TIMING_MAX);
        mark(std::string("timing.") + f.name, ini_key);
    };
    // Keys DRAMsim3 presets commonly omit; the values are DRAMsim3's own
    // defaults (src/configuration.cc).
    static const std::map<std::string, int> defaults = {{"AL", 0}, {"tRTRS", 2}, {"tCKE", 6}, {"tXP", 8}};
    for (size_t i = 0; i < mx_dram_timing_table_n; i++) {
        const mx_dram_timing_field &f = mx_dram_timing_table[i];
        std::string sn(f.name), k = "timing." + sn;
        auto dflt = defaults.find(sn);
        if (sn == "tRC" && !g.has(k)) continue; // DRAMsim3 has no tRC key: tRAS + tRP below
        if (sn == "tRCD" && !g.has(k) && (g.has("timing.tRCDRD") || g.has("timing.tRCDWR"))) {
            // HBM/GDDR presets: one tRCD for both, the larger (conservative)
            long long rd = g.i("timing.tRCDRD", f.min, TIMING_MAX);
            long long wr = g.has("timing.tRCDWR") ? g.i("timing.tRCDWR", f.min, TIMING_MAX) : rd;
            c->t.tRCD = (int)(rd > wr ? rd : wr);
            mark("timing.tRCD", "timing.tRCDRD");
        } else if (sn == "tRTP" && !g.has(k) && g.has("timing.tRTP_L")) {
            set_t(f, "timing.tRTP_L"); // RD->PRE is within one bank: same bank group
        } else if (dflt != defaults.end() && !g.has(k)) {
            *timing_field(c, f) = dflt->second;
        } else {
            set_t(f, k);
        }
    }
    if (!g.has("timing.tRC")) {
        c->t.tRC = c->t.tRAS + c->t.tRP;
        mark("timing.tRC", "timing.tRAS");
    }

    // [power]
    struct { const char *ini, *ours; double *dst, hi; } pw[] = {
        {"power.VDD", "power.VDD", &c->p.VDD, 10},       {"power.IDD0", "power.IDD0", &c->p.IDD0, 1e5},
        {"power.IDD2N", "power.IDD2N", &c->p.IDD2N, 1e5}, {"power.IDD3N", "power.IDD3N", &c->p.IDD3N, 1e5},
        {"power.IDD4R", "power.IDD4R", &c->p.IDD4R, 1e5}, {"power.IDD4W", "power.IDD4W", &c->p.IDD4W, 1e5},
        {"power.IDD5AB", "power.IDD5", &c->p.IDD5, 1e5},
    };
    for (auto &e : pw) {
        *e.dst = g.d(e.ini, 0, e.hi);
        if (*e.dst <= 0) fail(file, g.need(e.ini).line, e.ini, "must be > 0");
        mark(e.ours, e.ini);
    }
    check_config(file, c, g.lines, g.names);
}

void copy_err(char *err, size_t errlen, const std::string &m)
{
    if (err && errlen) snprintf(err, errlen, "%s", m.c_str());
}

bool ends_with(const std::string &s, const char *suf)
{
    size_t n = strlen(suf);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[s.size() - n + i]) != suf[i]) return false;
    return true;
}

} // namespace

extern "C" int mx_dram_config_load(const char *path, mx_dram_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    std::string file(path ? path : "");
    try {
        struct stat sb;
        if (stat(file.c_str(), &sb) != 0) throw load_error{file + ": cannot open the file: " + strerror(errno)};
        if (!S_ISREG(sb.st_mode)) throw load_error{file + ": not a regular file"};
        // both loaders read through mx_input_read (regular file, bounded size) again
        if (ends_with(file, ".yaml") || ends_with(file, ".yml")) load_yaml(file, c);
        else if (ends_with(file, ".ini")) load_ini(file, c);
        else throw load_error{file + ": unknown DRAM config type (expected .yaml, .yml or a DRAMsim3 .ini)"};
    } catch (const load_error &e) {
        copy_err(err, errlen, e.msg);
        return -1;
    } catch (const YAML::Exception &e) {
        copy_err(err, errlen, file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
        return -1;
    } catch (const std::exception &e) {
        copy_err(err, errlen, file + ": " + e.what());
        return -1;
    }
    return 0;
}

// config_yaml.cpp — thin yaml-cpp layer filling mx_arch_config and
// mx_energy_table.  Every node carries its line (YAML::Mark), so every error
// names file, line and dotted key.
#include "config_yaml.h"
#include "dram_config.h"

#include "yaml_cpp.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// ---- shared input reading (config_yaml.h, yaml_cpp.h) -----------------------

extern "C" int mx_input_read(const char *path, const char *what, char **text, size_t *len, char *err,
                             size_t errlen)
{
    *text = nullptr;
    if (len) *len = 0;
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below)
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot open the file%s%s", path, e == ENOENT ? "" : ": ",
                 e == ENOENT ? "" : strerror(e));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { // directory, device (/dev/zero), FIFO, socket
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    const size_t cap = MX_INPUT_MAX_BYTES;
    if ((unsigned long long)st.st_size > cap) {
        snprintf(err, errlen, "%s: %lld bytes: over the " MX_INPUT_MAX_TEXT " limit of %s files", path, (long long)st.st_size, what);
        close(fd);
        return -1;
    }
    char *buf = (char *)malloc(cap + 2);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    size_t n = 0;
    while (n <= cap) { // at most cap + 1 bytes: a file that grew past the cap is refused, not read on
        ssize_t r = read(fd, buf + n, cap + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: cannot read the file: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (n > cap) {
        snprintf(err, errlen, "%s: over the " MX_INPUT_MAX_TEXT " limit of %s files", path, what);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    if (len) *len = n;
    return 0;
}

extern "C" void mx_print_error(const char *prog, const char *fmt, ...)
{
    char raw[2048], safe[4 * sizeof raw];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    mx_escape_controls(safe, sizeof safe, raw);
    fprintf(stderr, "%s: %s\n", prog, safe);
}

namespace mxsim {

namespace {

// Walks the parser's events (no node tree yet, no recursion of ours): the
// checks yaml_parse_checked promises.  Messages: WHERE[:LINE]: key 'K': ...
class yaml_checker : public YAML::EventHandler {
public:
    yaml_checker(const std::string &where, bool has_lines, const std::string &key_prefix)
        : where_(where), has_lines_(has_lines), prefix_(key_prefix) {}

    void OnDocumentStart(const YAML::Mark &m) override
    {
        if (++docs_ > 1) fail(m, prefix_, "more than one YAML document ('---'): expected one");
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &m, YAML::anchor_t) override { leaf(m, nullptr, "a null"); }
    void OnAlias(const YAML::Mark &m, YAML::anchor_t) override { leaf(m, nullptr, "an alias"); }
    void OnScalar(const YAML::Mark &m, const std::string &, YAML::anchor_t, const std::string &v) override
    {
        leaf(m, &v, nullptr);
    }
    void OnSequenceStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        open(m, false);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        open(m, true);
    }
    void OnMapEnd() override { close(); }

private:
    struct frame {
        bool is_map;
        std::string path;
        bool at_key = true;              // a mapping's next node is a key
        bool as_key = false;             // this node is itself a (non-scalar) key
        std::string key;                 // its current key
        std::map<std::string, int> keys; // key -> line
        int index = 0;                   // a sequence's next element
    };

    [[noreturn]] void fail(const YAML::Mark &m, const std::string &key, const std::string &msg) const
    {
        std::string w = has_lines_ ? where_ + ":" + std::to_string(m.line + 1) : where_;
        throw yaml_input_error{w + (key.empty() ? "" : ": key '" + key + "'") + ": " + msg};
    }

    std::string join(const std::string &a, const std::string &b) const { return a.empty() ? b : a + "." + b; }

    // Whether the node starting now is a mapping's key; else value_path() is its path.
    bool is_key() const { return !st_.empty() && st_.back().is_map && st_.back().at_key; }
    std::string value_path() const
    {
        if (st_.empty()) return prefix_;
        const frame &f = st_.back();
        return f.is_map ? join(f.path, f.key) : f.path + "[" + std::to_string(f.index) + "]";
    }
    void value_done()
    {
        if (st_.empty()) return;
        frame &f = st_.back();
        if (f.is_map) f.at_key = true;
        else f.index++;
    }

    // A non-scalar key is reported after the parse, so that malformed input
    // (an unterminated '[' reads as a key to yaml-cpp) gets the parser's
    // message, and deep nesting the depth message; its node is walked on
    // as the value of a key named "?".
    void non_scalar_key(const YAML::Mark &m, const char *kind)
    {
        const frame &f = st_.back();
        std::string w = has_lines_ ? where_ + ":" + std::to_string(m.line + 1) : where_;
        if (bad_key_.empty())
            bad_key_ = w + ": key '" + (f.path.empty() ? "(top level)" : f.path) + "': " + kind + " as a key: keys must be plain words";
    }
    void key_done(const std::string &k)
    {
        frame &f = st_.back();
        f.key = k;
        f.at_key = false;
    }

    // Every node passes here first.
    void count(const YAML::Mark &m)
    {
        if (++nodes_ > yaml_max_nodes)
            fail(m, "", "more than " + std::to_string(yaml_max_nodes) + " YAML nodes (keys and values): not a configuration");
    }

    void leaf(const YAML::Mark &m, const std::string *scalar, const char *kind)
    {
        count(m);
        if (!is_key()) { value_done(); return; }
        if (!scalar) {
            non_scalar_key(m, kind);
            key_done("?");
            return;
        }
        frame &f = st_.back();
        std::string full = join(f.path, *scalar);
        auto it = f.keys.find(*scalar);
        if (it != f.keys.end())
            fail(m, full, "duplicate key" + (has_lines_ ? " (first on line " + std::to_string(it->second) + ")" : std::string()));
        f.keys[*scalar] = m.line + 1;
        key_done(*scalar);
    }

    void open(const YAML::Mark &m, bool is_map)
    {
        count(m);
        bool as_key = is_key();
        if (as_key) non_scalar_key(m, is_map ? "a mapping" : "a sequence");
        std::string path = as_key ? join(st_.back().path, "?") : value_path();
        if ((int)st_.size() >= yaml_max_depth)
            fail(m, path, "nested more than " + std::to_string(yaml_max_depth) + " levels deep");
        frame f;
        f.is_map = is_map;
        f.as_key = as_key;
        f.path = path;
        st_.push_back(std::move(f));
    }
    void close()
    {
        bool as_key = st_.back().as_key;
        st_.pop_back();
        if (as_key) key_done("?");
        else value_done();
    }

public:
    // The first non-scalar key, after a complete parse.
    void finish() const
    {
        if (!bad_key_.empty()) throw yaml_input_error{bad_key_};
    }

private:
    std::string where_;
    bool has_lines_;
    std::string prefix_;
    int docs_ = 0, nodes_ = 0;
    std::vector<frame> st_;
    std::string bad_key_;
};

}  // namespace

YAML::Node yaml_parse_checked(const std::string &text, const std::string &where, bool has_lines,
                              const std::string &key_prefix)
{
    auto at = [&](const YAML::Mark &m) { return has_lines ? where + ":" + std::to_string(m.line + 1) : where; };
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        yaml_checker check(where, has_lines, key_prefix);
        while (parser.HandleNextDocument(check)) {
        }
        check.finish();
        return YAML::Load(text); // the checked text; parsed again into nodes
    } catch (const YAML::ParserException &e) {
        std::string k = key_prefix.empty() ? "" : ": key '" + key_prefix + "'";
        throw yaml_input_error{at(e.mark) + k + ": malformed YAML: " + e.msg};
    }
}

YAML::Node yaml_load_file_checked(const std::string &file, const char *what)
{
    char *text = nullptr, err[700];
    size_t len = 0;
    if (mx_input_read(file.c_str(), what, &text, &len, err, sizeof err) != 0) throw yaml_input_error{err};
    std::string s(text, len);
    free(text);
    return yaml_parse_checked(s, file, true);
}

}  // namespace mxsim

namespace {

struct load_error {
    std::string msg;
};

[[noreturn]] void bad(const std::string &file, const YAML::Node &n, const std::string &key,
                      const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    std::string where = file == "--set" ? file : file + ":" + std::to_string(line); // overrides have no line
    std::string m = where + ": key '" + key + "': " + buf;
    throw load_error{m};
}

std::string scalar(const std::string &file, const YAML::Node &n, const std::string &key)
{
    if (!n.IsScalar()) bad(file, n, key, "expected a scalar value");
    return n.Scalar();
}

long long get_int(const std::string &file, const YAML::Node &n, const std::string &key,
                  long long lo, long long hi)
{
    std::string s = scalar(file, n, key);
    char *end = nullptr;
    errno = 0;
    long long v = strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end || errno)
        bad(file, n, key, "not an integer: '%s'", s.c_str());
    if (v < lo || v > hi) bad(file, n, key, "must be %lld..%lld, got %lld", lo, hi, v);
    return v;
}

double get_num(const std::string &file, const YAML::Node &n, const std::string &key, double lo,
               double hi)
{
    std::string s = scalar(file, n, key);
    char *end = nullptr;
    errno = 0;
    double v = strtod(s.c_str(), &end);
    if (s.empty() || *end || errno || !std::isfinite(v))
        bad(file, n, key, "not a number: '%s'", s.c_str());
    if (v < lo || v > hi) bad(file, n, key, "must be %g..%g, got %g", lo, hi, v);
    return v;
}

// true/yes/on -> 1, false/no/off -> 0, anything else -> -1.
int bool_word(const std::string &s)
{
    if (s == "true" || s == "yes" || s == "on") return 1;
    if (s == "false" || s == "no" || s == "off") return 0;
    return -1;
}

int get_bool(const std::string &file, const YAML::Node &n, const std::string &key)
{
    std::string s = scalar(file, n, key);
    int b = bool_word(s);
    if (b < 0) bad(file, n, key, "must be true or false, got '%s'", s.c_str());
    return b;
}

void get_str(const std::string &file, const YAML::Node &n, const std::string &key, char *dst,
             size_t cap)
{
    std::string s = scalar(file, n, key);
    if (s.empty() || s.size() >= cap) bad(file, n, key, "must be 1..%zu characters", cap - 1);
    memcpy(dst, s.c_str(), s.size() + 1);
}

void get_format(const std::string &file, const YAML::Node &n, const std::string &key,
                const mx_arch_config *c, char *dst)
{
    get_str(file, n, key, dst, MX_FORMAT_NAME_MAX);
    mx_operand_fmt f;
    if (mx_operand_fmt_resolve(c, dst, &f) != 0)
        bad(file, n, key, "unknown format '%s' (MX: mxsf, mxfp8_e4m3, mxfp8_e5m2, mxfp8_e2m5, "
                          "mxint8, ...; plain: bf16, fp16, fp32, fp8_e4m3, ...)", dst);
}

using setter = std::function<void(const YAML::Node &, const std::string &)>;

// The key table: dotted key -> setter.  Used by the file loader and by
// --set overrides alike.
std::map<std::string, setter> key_table(const std::string &file, mx_arch_config *c)
{
    std::map<std::string, setter> t;
    const std::string f = file;
    t["name"] = [=](const YAML::Node &n, const std::string &k) {
        get_str(f, n, k, c->name, sizeof c->name);
        // reports go to OUTDIR/NAME/: one safe file name, never a path ('/', '..')
        const char *v = c->name;
        if (!isalnum((unsigned char)v[0]) && v[0] != '_') bad(f, n, k, "must start with a letter, digit or '_', got '%s'", v);
        if (v[strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-")])
            bad(f, n, k, "must be a file name of letters, digits, '_', '-', '.' and '+' (reports go to OUTDIR/NAME/), got '%s'", v);
    };
    t["arch.rows"] = [=](const YAML::Node &n, const std::string &k) { c->rows = (int)get_int(f, n, k, 1, 1024); };
    t["arch.cols"] = [=](const YAML::Node &n, const std::string &k) { c->cols = (int)get_int(f, n, k, 1, 1024); };
    t["arch.lanes"] = [=](const YAML::Node &n, const std::string &k) { c->lanes = (int)get_int(f, n, k, 1, 64); };
    t["arch.dataflow"] = [=](const YAML::Node &n, const std::string &k) {
        std::string s = scalar(f, n, k);
        if (mx_dataflow_parse(s.c_str(), &c->dataflow)) bad(f, n, k, "must be os, ws or is, got '%s'", s.c_str());
    };
    t["arch.pe_pipeline_depth"] = [=](const YAML::Node &n, const std::string &k) { c->pe_pipeline_depth = (int)get_int(f, n, k, 1, 64); };
    t["arch.fold_overlap"] = [=](const YAML::Node &n, const std::string &k) { c->fold_overlap = get_bool(f, n, k); };
    t["arch.scalesim_compat"] = [=](const YAML::Node &n, const std::string &k) { c->scalesim_compat = get_bool(f, n, k); };
    t["arch.clock_ghz"] = [=](const YAML::Node &n, const std::string &k) { c->clock_ghz = get_num(f, n, k, 0.001, 100); };
    t["format.a"] = [=](const YAML::Node &n, const std::string &k) { get_format(f, n, k, c, c->a_format); };
    t["format.b"] = [=](const YAML::Node &n, const std::string &k) { get_format(f, n, k, c, c->b_format); };
    t["format.out"] = [=](const YAML::Node &n, const std::string &k) { get_format(f, n, k, c, c->out_format); };
    t["format.block"] = [=](const YAML::Node &n, const std::string &k) { c->block_size = (int)get_int(f, n, k, 1, 1024); };
    t["format.tile"] = [=](const YAML::Node &n, const std::string &k) {
        if (n.IsScalar() && (n.Scalar() == "none" || n.Scalar() == "null" || n.Scalar() == "~")) {
            c->tile_rows = c->tile_cols = 0;
            return;
        }
        if (!n.IsSequence() || n.size() != 2) bad(f, n, k, "must be [rows, cols] or none");
        c->tile_rows = (int)get_int(f, n[0], k, 1, 64);
        c->tile_cols = (int)get_int(f, n[1], k, 1, 64);
    };
    t["format.scale_rule"] = [=](const YAML::Node &n, const std::string &k) {
        std::string s = scalar(f, n, k);
        if (mx_scale_rule_parse(s.c_str(), &c->scale_rule)) bad(f, n, k, "must be floor, ceil, even or rceil, got '%s'", s.c_str());
    };
    t["format.round"] = [=](const YAML::Node &n, const std::string &k) {
        std::string s = scalar(f, n, k);
        if (mx_round_parse(s.c_str(), &c->round) || c->round == MX_ROUND_STOCHASTIC)
            bad(f, n, k, "must be even, nearest or floor, got '%s'", s.c_str());
    };
    t["format.mxsf_fp5_bias"] = [=](const YAML::Node &n, const std::string &k) { c->mxsf_fp5_bias = (int)get_int(f, n, k, 5, 16); };
    t["format.align_width"] = [=](const YAML::Node &n, const std::string &k) { c->align_width = (int)get_int(f, n, k, 16, 56); };
    t["format.mxsf_wide_fraction"] = [=](const YAML::Node &n, const std::string &k) { c->mxsf_wide_fraction = get_num(f, n, k, 0, 1); };
    const char *ops[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; i++) {
        std::string p = std::string("memory.sram_") + ops[i];
        t[p + ".kib"] = [=](const YAML::Node &n, const std::string &k) { c->sram[i].kib = get_num(f, n, k, 0.25, 1048576); };
        t[p + ".banks"] = [=](const YAML::Node &n, const std::string &k) { c->sram[i].banks = (int)get_int(f, n, k, 1, 1024); };
        t[p + ".bytes_per_cycle"] = [=](const YAML::Node &n, const std::string &k) { c->sram[i].bytes_per_cycle = (int)get_int(f, n, k, 1, 65536); };
    }
    t["memory.double_buffer"] = [=](const YAML::Node &n, const std::string &k) {
        std::string v = scalar(f, n, k);
        c->double_buffer = v == "search" ? 2 : bool_word(v); // search: the mapper chooses per GEMM
        if (c->double_buffer < 0) bad(f, n, k, "must be true, false or search, got '%s'", v.c_str());
    };
    t["memory.dram_bytes_per_cycle"] = [=](const YAML::Node &n, const std::string &k) { c->dram_bytes_per_cycle = get_num(f, n, k, 0.001, 1e6); };
    t["memory.dram_latency"] = [=](const YAML::Node &n, const std::string &k) { c->dram_latency = (int)get_int(f, n, k, 0, 1000000); };
    t["memory.tiling"] = [=](const YAML::Node &n, const std::string &k) {
        std::string v = scalar(f, n, k);
        if (mx_tiling_objective_parse(v.c_str(), &c->tiling_objective))
            bad(f, n, k, "must be time, traffic, energy or edp, got '%s'", v.c_str());
    };
    t["memory.dram"] = [=](const YAML::Node &n, const std::string &k) {
        get_str(f, n, k, c->dram_preset, sizeof c->dram_preset);
        if (!strcmp(c->dram_preset, "none")) c->dram_preset[0] = '\0';
        c->dram_model = 0; // loaded by mx_config_dram() after all overrides
    };
    t["memory.dram_channels"] = [=](const YAML::Node &n, const std::string &k) { c->dram_channels = (int)get_int(f, n, k, 1, 64); c->dram_model = 0; };
    t["engine"] = [=](const YAML::Node &n, const std::string &k) {
        std::string v = scalar(f, n, k);
        if (mx_engine_parse(v.c_str(), &c->engine)) bad(f, n, k, "must be analytic or cycle, got '%s'", v.c_str());
    };
    t["memory.ideal"] = [=](const YAML::Node &n, const std::string &k) { c->ideal_memory = get_bool(f, n, k); };
    t["rqu.elements_per_cycle"] = [=](const YAML::Node &n, const std::string &k) { c->rqu_elements_per_cycle = (int)get_int(f, n, k, 1, 65536); };
    t["rqu.block"] = [=](const YAML::Node &n, const std::string &k) {
        std::string v = scalar(f, n, k);
        if (v == "column") c->rqu_tile = 0;
        else if (v == "tile") c->rqu_tile = 1;
        else bad(f, n, k, "must be column or tile, got '%s'", v.c_str());
    };
    t["training.requant"] = [=](const YAML::Node &n, const std::string &k) { c->train_requant = get_bool(f, n, k); };
    t["functional.max_macs"] = [=](const YAML::Node &n, const std::string &k) { c->functional_max_macs = get_int(f, n, k, 1, 1LL << 50); };
    t["energy.table"] = [=](const YAML::Node &n, const std::string &k) { get_str(f, n, k, c->energy_table, sizeof c->energy_table); };
    return t;
}

void walk(const std::string &file, const YAML::Node &map, const std::string &prefix,
          std::map<std::string, setter> &table, std::map<std::string, YAML::Node> &seen)
{
    if (!map.IsMap()) bad(file, map, prefix.empty() ? "(top level)" : prefix, "expected a mapping");
    for (auto it = map.begin(); it != map.end(); ++it) {
        std::string k = it->first.as<std::string>();
        std::string full = prefix.empty() ? k : prefix + "." + k;
        if (table.count(full)) {
            if (seen.count(full)) bad(file, it->first, full, "duplicate key");
            seen[full] = it->second;
            table[full](it->second, full);
            continue;
        }
        bool is_section = false;
        for (auto &e : table)
            if (e.first.compare(0, full.size() + 1, full + ".") == 0) { is_section = true; break; }
        if (is_section) {
            walk(file, it->second, full, table, seen);
            continue;
        }
        bad(file, it->first, full, "unknown key");
    }
}

std::string dirname_of(const std::string &p)
{
    size_t s = p.find_last_of('/');
    return s == std::string::npos ? std::string(".") : p.substr(0, s);
}

// Every message leaves with its control characters escaped: it echoes file
// names, keys and values.
void copy_err(char *err, size_t errlen, const std::string &m)
{
    if (err && errlen) mx_escape_controls(err, errlen, m.c_str());
}

// Reads and parses a YAML file through the checked reader; its errors
// become load_errors.
YAML::Node load_file(const std::string &file, const char *what)
{
    try {
        return mxsim::yaml_load_file_checked(file, what);
    } catch (const mxsim::yaml_input_error &e) {
        throw load_error{e.msg};
    }
}

} // namespace

extern "C" int mx_config_load(const char *path, mx_arch_config *c, char *energy_path, char *err,
                              size_t errlen)
{
    mx_arch_config_default(c);
    std::string file(path);
    try {
        YAML::Node root = load_file(file, "configuration");
        if (!root.IsDefined() || root.IsNull()) throw load_error{file + ":1: empty configuration"};
        auto table = key_table(file, c);
        std::map<std::string, YAML::Node> seen;
        walk(file, root, "", table, seen);
        char cerr[400];
        if (mx_arch_config_check(c, cerr, sizeof cerr) != 0) {
            // find the line of the key named in the message
            int line = 1;
            const char *q = strstr(cerr, "key '");
            if (q) {
                std::string key(q + 5, strcspn(q + 5, "'"));
                auto it = seen.find(key);
                if (it != seen.end()) line = it->second.Mark().line + 1;
            }
            throw load_error{file + ":" + std::to_string(line) + ": " + cerr};
        }
        char eerr[700];
        if (energy_path && mx_config_energy_path(path, c, energy_path, eerr, sizeof eerr) != 0) throw load_error{eerr};
    } catch (const load_error &e) {
        copy_err(err, errlen, e.msg);
        return -1;
    } catch (const YAML::Exception &e) {
        copy_err(err, errlen, file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
        return -1;
    } catch (const std::exception &e) { // e.g. bad_alloc: still one line, never an abort
        copy_err(err, errlen, file + ": " + e.what());
        return -1;
    }
    return 0;
}

namespace {

bool is_dir(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The data directories, in order (mx_data_find): the installed one next to
// the binary, then the source tree's.
std::vector<std::string> data_dirs()
{
    std::vector<std::string> d;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        std::string share = dirname_of(dirname_of(exe)) + "/share/mxsim";
        if (is_dir(share)) d.push_back(share);
    }
    if (is_dir(MXSIM_SRC_DIR) && (d.empty() || d[0] != MXSIM_SRC_DIR)) d.push_back(MXSIM_SRC_DIR);
    return d;
}

} // namespace

extern "C" int mx_data_find(const char *from, const char *rel, char *out, size_t cap, char *looked, size_t lcap)
{
    std::string r(rel);
    std::vector<std::string> cand;
    if (!r.empty() && r[0] == '/') cand.push_back(r);
    else {
        cand.push_back(dirname_of(from) + "/" + r);
        for (const std::string &d : data_dirs()) {
            cand.push_back(d + "/configs/" + r);
            cand.push_back(d + "/" + r);
        }
    }
    struct stat st;
    size_t hit = 0;
    while (hit < cand.size() && stat(cand[hit].c_str(), &st) != 0) hit++;
    const bool found = hit < cand.size() || cand.size() == 1;
    snprintf(out, cap, "%s", cand[found ? std::min(hit, cand.size() - 1) : 0].c_str());
    if (looked && lcap) {
        std::string l;
        for (const std::string &c : cand) l += (l.empty() ? "" : ", ") + c;
        snprintf(looked, lcap, "%s", l.c_str());
    }
    return found ? 0 : -1;
}

extern "C" int mx_config_energy_path(const char *config_path, const mx_arch_config *c, char *out, char *err,
                                     size_t errlen)
{
    std::string file(config_path);
    char path[4096], looked[2048];
    if (mx_data_find(config_path, c->energy_table, path, sizeof path, looked, sizeof looked) != 0) {
        copy_err(err, errlen, file + ": key 'energy.table': no file '" + c->energy_table + "' (looked for " + looked + ")");
        return -1;
    }
    if (strlen(path) >= MX_ARCH_PATH_MAX) {
        copy_err(err, errlen, file + ": key 'energy.table': path too long");
        return -1;
    }
    memcpy(out, path, strlen(path) + 1); /* fits: checked above */
    return 0;
}

extern "C" int mx_config_override(mx_arch_config *c, const char *assignment, char *err,
                                  size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    std::string key = eq ? std::string(assignment, eq - assignment) : std::string(assignment);
    try {
        if (!eq) throw load_error{std::string("--set '") + assignment + "': expected KEY=VALUE"};
        if (key.size() > 100) throw load_error{"--set: key '" + key.substr(0, 100) + "...': unknown key"};
        auto table = key_table("--set", c);
        auto it = table.find(key);
        if (it == table.end()) throw load_error{"--set: key '" + key + "': unknown key"};
        YAML::Node v = mxsim::yaml_parse_checked(eq + 1, "--set", false, key);
        it->second(v, key);
        char cerr[400];
        if (mx_arch_config_check(c, cerr, sizeof cerr) != 0) throw load_error{std::string("--set: ") + cerr};
    } catch (const load_error &e) {
        copy_err(err, errlen, e.msg);
        return -1;
    } catch (const mxsim::yaml_input_error &e) {
        copy_err(err, errlen, e.msg);
        return -1;
    } catch (const YAML::Exception &e) {
        copy_err(err, errlen, "--set: key '" + key + "': " + e.msg);
        return -1;
    } catch (const std::exception &e) {
        copy_err(err, errlen, "--set: key '" + key + "': " + e.what());
        return -1;
    }
    return 0;
}

extern "C" int mx_energy_load(const char *path, mx_energy_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    std::string file(path);
    snprintf(t->path, sizeof t->path, "%s", path);
    try {
        YAML::Node root = load_file(file, "energy table");
        if (!root.IsMap()) throw load_error{file + ":1: expected a mapping with 'entries'"};
        for (auto it = root.begin(); it != root.end(); ++it) {
            std::string k = it->first.as<std::string>();
            if (k != "name" && k != "description" && k != "entries")
                bad(file, it->first, k, "unknown key (expected name, description, entries)");
        }
        YAML::Node entries = root["entries"];
        if (!entries.IsDefined() || !entries.IsMap())
            bad(file, root, "entries", "missing or not a mapping");
        for (auto it = entries.begin(); it != entries.end(); ++it) {
            std::string k = it->first.as<std::string>();
            std::string full = "entries." + k;
            if (k.size() >= MX_ENERGY_KEY_MAX) bad(file, it->first, full, "name too long");
            if (t->n >= MX_ENERGY_MAX_ENTRIES) bad(file, it->first, full, "more than %d entries", MX_ENERGY_MAX_ENTRIES);
            double dummy;
            if (mx_energy_get(t, k.c_str(), &dummy) == 0) bad(file, it->first, full, "duplicate entry");
            YAML::Node e = it->second;  // a copy: it->second is a temporary
            if (!e.IsMap()) bad(file, e, full, "expected {pj, source, node, voltage}");
            bool have[4] = {false, false, false, false};
            double pj = 0;
            for (auto f = e.begin(); f != e.end(); ++f) {
                std::string fk = f->first.as<std::string>();
                std::string ffull = full + "." + fk;
                if (fk == "pj") { pj = get_num(file, f->second, ffull, 0, 1e9); have[0] = true; }
                else if (fk == "source" || fk == "node" || fk == "voltage") {
                    std::string s = scalar(file, f->second, ffull);
                    if (s.empty()) bad(file, f->second, ffull, "must not be empty");
                    have[fk == "source" ? 1 : fk == "node" ? 2 : 3] = true;
                } else if (fk == "note") {
                    scalar(file, f->second, ffull);
                } else {
                    bad(file, f->first, ffull, "unknown field (expected pj, source, node, voltage, note)");
                }
            }
            const char *names[4] = {"pj", "source", "node", "voltage"};
            for (int i = 0; i < 4; i++)
                if (!have[i]) bad(file, it->first, full + "." + names[i], "missing");
            snprintf(t->e[t->n].key, MX_ENERGY_KEY_MAX, "%s", k.c_str());
            t->e[t->n].pj = pj;
            t->e[t->n].line = it->first.Mark().line + 1;
            t->n++;
        }
    } catch (const load_error &e) {
        copy_err(err, errlen, e.msg);
        return -1;
    } catch (const YAML::Exception &e) {
        copy_err(err, errlen, file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
        return -1;
    } catch (const std::exception &e) { // e.g. bad_alloc: still one line, never an abort
        copy_err(err, errlen, file + ": " + e.what());
        return -1;
    }
    return 0;
}

// memory.dram: a preset name (dram/NAME.yaml) or a .yaml/.ini path, found
// by mx_data_find (next to the config, then the data directories).
extern "C" int mx_config_dram(const char *config_path, mx_arch_config *c, char *err, size_t errlen)
{
    c->dram_model = 0;
    memset(&c->dram_cal, 0, sizeof c->dram_cal);
    if (!c->dram_preset[0]) return 0;
    std::string v = c->dram_preset, path;
    bool is_name = v.find('/') == std::string::npos && v.find('.') == std::string::npos;
    {   /* a name: dram/NAME.yaml; a path as given (mx_data_find: next to the
         * config, then the data directories) */
        char found[4096], looked[2048];
        const std::string rel = is_name ? "dram/" + v + ".yaml" : v;
        const int rc = mx_data_find(config_path, rel.c_str(), found, sizeof found, looked, sizeof looked);
        if (rc != 0 && is_name) {
            copy_err(err, errlen, std::string(config_path) + ": key 'memory.dram': no preset '" + v + "' (looked for " + looked + ")");
            return -1;
        }
        path = found; /* a path found nowhere: the loader names it (next to the config) */
    }
    char derr[600];
    if (mx_dram_config_load(path.c_str(), &c->dram, derr, sizeof derr) != 0) {
        copy_err(err, errlen, std::string(derr) + " (memory.dram of " + config_path + ")");
        return -1;
    }
    if (c->dram_channels > 0) c->dram.channels = c->dram_channels;
    if (mx_dram_config_check(&c->dram, derr, sizeof derr) != 0) {
        copy_err(err, errlen, path + ": " + derr + " (memory.dram of " + config_path + ")");
        return -1;
    }
    c->dram_model = 1;
    if (mx_arch_dram_calibrate(c, derr, sizeof derr) != 0) {
        copy_err(err, errlen, std::string(config_path) + ": " + derr);
        return -1;
    }
    return 0;
}

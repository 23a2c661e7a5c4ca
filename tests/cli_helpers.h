// Helpers for tests that drive the mxsim binary (path in $MXSIM_BIN) and build
// .npy files byte by byte, independently of sim/npy.c.
#ifndef MXSIM_TESTS_CLI_HELPERS_H
#define MXSIM_TESTS_CLI_HELPERS_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace clitest {

// A fresh directory under $TMPDIR (or /tmp), removed with its files at the end.
class TempDir {
public:
    TempDir()
    {
        const char *base = getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxsim_test_XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        char *d = mkdtemp(buf.data());
        if (d) path_ = d;
    }
    ~TempDir()
    {
        for (const std::string &f : list()) unlink((path_ + "/" + f).c_str());
        rmdir(path_.c_str());
    }
    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }
    // Names of the entries of the directory (no "." and "..").
    std::vector<std::string> list() const
    {
        std::vector<std::string> out;
        DIR *d = opendir(path_.c_str());
        if (!d) return out;
        while (dirent *e = readdir(d))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) out.push_back(e->d_name);
        closedir(d);
        return out;
    }

private:
    std::string path_;
};

inline bool exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

inline std::string read_text(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::vector<uint8_t> read_bytes(const std::string &path)
{
    std::string s = read_text(path);
    return std::vector<uint8_t>(s.begin(), s.end());
}

inline void write_bytes(const std::string &path, const std::vector<uint8_t> &b)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(b.data()), (std::streamsize)b.size());
}

struct RunResult {
    int status = -1;
    std::string out, err;
};

inline std::string quote(const std::string &s)
{
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string mxsim_bin()
{
    // absolute: a test may run it from its own temporary directory
    // (Sweep.ResumeSkipsFinishedPointsAndKillLeavesOnlyWholePoints cd's there)
    const char *b = getenv("MXSIM_BIN");
    return b ? b : MXSIM_SRC_DIR "/build/mxsim";
}

// Runs "$MXSIM_BIN args..." with stdout/stderr captured into files of dir.
inline RunResult run_mxsim(const TempDir &dir, const std::vector<std::string> &args)
{
    std::string cmd = quote(mxsim_bin());
    for (const std::string &a : args) cmd += " " + quote(a);
    std::string o = dir.path() + "/.stdout", e = dir.path() + "/.stderr";
    cmd += " >" + quote(o) + " 2>" + quote(e);
    RunResult r;
    int st = system(cmd.c_str());
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = read_text(o);
    r.err = read_text(e);
    unlink(o.c_str());
    unlink(e.c_str());
    return r;
}

// ---- .npy bytes built by hand --------------------------------------------------

inline void put_le(std::vector<uint8_t> &b, uint64_t v, int nbytes)
{
    for (int i = 0; i < nbytes; i++) b.push_back((uint8_t)(v >> (8 * i)));
}

// magic, version major.minor, header length (2 bytes for v1, 4 otherwise), the
// dict text padded with spaces to a multiple of 64 and ended by '\n', data.
inline std::vector<uint8_t> npy_bytes(int major, const std::string &dict, const std::vector<uint8_t> &data,
                                      int minor = 0)
{
    std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)major, (uint8_t)minor};
    size_t pre = major == 1 ? 10 : 12;
    size_t total = (pre + dict.size() + 1 + 63) / 64 * 64;
    size_t hlen = total - pre;
    put_le(b, hlen, major == 1 ? 2 : 4);
    b.insert(b.end(), dict.begin(), dict.end());
    b.insert(b.end(), hlen - dict.size() - 1, ' ');
    b.push_back('\n');
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

// Little-endian float32 data from bit patterns (independent of the host).
inline std::vector<uint8_t> f32_bits(const std::vector<uint32_t> &bits)
{
    std::vector<uint8_t> b;
    for (uint32_t v : bits) put_le(b, v, 4);
    return b;
}

inline uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

inline float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

// float32 .npy of the given shape text ("(4,)") from float values.
inline std::vector<uint8_t> f32_npy(const std::string &shape, const std::vector<float> &v)
{
    std::vector<uint32_t> bits;
    for (float f : v) bits.push_back(bits_of(f));
    return npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }", f32_bits(bits));
}

// Splits an .npy file written by mxsim into its header dict text (trimmed of the
// padding) and its data bytes; checks magic/version 1.0 by hand.
inline bool split_npy(const std::vector<uint8_t> &b, std::string &dict, std::vector<uint8_t> &data)
{
    if (b.size() < 10 || memcmp(b.data(), "\x93NUMPY\x01\x00", 8) != 0) return false;
    size_t hlen = b[8] | (size_t)b[9] << 8;
    if (10 + hlen > b.size() || (10 + hlen) % 64 != 0 || b[10 + hlen - 1] != '\n') return false;
    dict.assign(b.begin() + 10, b.begin() + 10 + (long)hlen);
    while (!dict.empty() && (dict.back() == ' ' || dict.back() == '\n')) dict.pop_back();
    data.assign(b.begin() + 10 + (long)hlen, b.end());
    return true;
}

// float32 values of an mxsim-written '<f4' .npy file (header checked by the caller).
inline std::vector<float> f32_values(const std::vector<uint8_t> &data)
{
    std::vector<float> v;
    for (size_t i = 0; i + 4 <= data.size(); i += 4)
        v.push_back(float_of((uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 |
                             (uint32_t)data[i + 3] << 24));
    return v;
}

}  // namespace clitest

#endif

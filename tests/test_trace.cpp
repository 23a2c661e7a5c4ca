// GEMM trace loader (models/arch/mx_trace.c) and the shipped traces/*.csv.
//
// Expected values are written here by hand: row values of small files the test
// writes itself, error positions counted in those files, and for the shipped
// traces MAC totals derived from the published model dimensions and checked
// against published FLOP and parameter counts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "arch/mx_trace.h"

namespace {

// Shipped traces: under the source tree the build names, else relative to
// this file (tests/ -> traces/).
std::string repo_file(const std::string &rel)
{
#ifdef MXSIM_SRC_DIR
    return std::string(MXSIM_SRC_DIR) + "/" + rel;
#endif
    std::string here = __FILE__;
    size_t pos = here.rfind("tests/");
    return (pos == std::string::npos ? std::string() : here.substr(0, pos)) + rel;
}

// A scratch file with the given bytes; removed when the object goes away.
class TempTrace {
public:
    explicit TempTrace(const std::string &bytes)
    {
        static int serial = 0;
        path_ = ::testing::TempDir() + "mxsim_trace_" + std::to_string(getpid()) + "_" +
                std::to_string(serial++) + ".csv";
        FILE *f = std::fopen(path_.c_str(), "wb");
        EXPECT_NE(f, nullptr) << path_;
        if (f) {
            std::fwrite(bytes.data(), 1, bytes.size(), f);
            std::fclose(f);
        }
    }
    ~TempTrace() { std::remove(path_.c_str()); }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

struct Loaded {
    int rc;
    std::string err;
    mx_trace t;
};

Loaded load(const std::string &path)
{
    Loaded r;
    char err[512];
    std::snprintf(err, sizeof err, "(unset)");
    r.t.gemms = reinterpret_cast<mx_gemm *>(1); // must be overwritten
    r.t.n = 12345;
    r.rc = mx_trace_load(path.c_str(), &r.t, err, sizeof err);
    r.err = err;
    return r;
}

const char *const kHeader = "name,M,N,K,phase,count\n";

// ---- bad input: one line naming file, line and column ---------------------

struct BadCase {
    const char *what;
    std::string content;
    int line;              // expected line number
    const char *column;    // expected column, or nullptr when the whole line is wrong
    const char *detail;    // a piece of the message after the position
};

TEST(Trace, BadInputNamesFileLineAndColumn)
{
    const std::string h = kHeader;
    const std::string h8 = "name,M,N,K,phase,count,a_format,b_format\n";
    const std::string name64(64, 'x');
    const std::vector<BadCase> cases = {
        {"header wrong column name", "# c\nname,M,K,N,phase,count\nx,1,1,1,fwd,1\n", 2, "N",
         "column 3 is 'K', expected 'N'"},
        {"header upper-case", "NAME,M,N,K,phase,count\n", 1, "name", "'NAME'"},
        {"header too few columns", "name,M,N,K,phase\nx,1,1,1,fwd\n", 1, nullptr, "bad header: 5 columns"},
        {"header 7 columns", "name,M,N,K,phase,count,a_format\n", 1, nullptr, "bad header: 7 columns"},
        {"header 9 columns", "name,M,N,K,phase,count,a_format,b_format,x\n", 1, nullptr,
         "bad header: 9 columns"},
        {"row too few columns", h + "a,1,2,3,fwd,1\nb,1,2,3,fwd\n", 3, nullptr, "5 columns, expected 6"},
        {"row too many columns", h + "a,1,2,3,fwd,1,\n", 2, nullptr, "7 columns, expected 6"},
        {"row 6 columns under 8-column header", h8 + "a,1,2,3,fwd,1\n", 2, nullptr, "6 columns, expected 8"},
        {"M not an integer", h + "a,1x,2,3,fwd,1\n", 2, "M", "not an integer: '1x'"},
        {"N decimal point", h + "a,1,2.0,3,fwd,1\n", 2, "N", "not an integer: '2.0'"},
        {"K exponent", h + "a,1,2,1e3,fwd,1\n", 2, "K", "not an integer: '1e3'"},
        {"K empty", h + "a,1,2,,fwd,1\n", 2, "K", "empty"},
        {"count hex", h + "a,1,2,3,fwd,0x10\n", 2, "count", "not an integer"},
        {"M lone sign", h + "a,-,2,3,fwd,1\n", 2, "M", "not an integer: '-'"},
        {"M inner blank", h + "a,1 2,2,3,fwd,1\n", 2, "M", "not an integer: '1 2'"},
        {"K zero", h + "a,1,2,0,fwd,1\n", 2, "K", "must be positive: '0'"},
        {"N negative", h + "a,1,-2,3,fwd,1\n", 2, "N", "must be positive: '-2'"},
        {"count zero", h + "a,1,2,3,fwd,000\n", 2, "count", "must be positive"},
        {"M overflows long long", h + "a,9223372036854775808,2,3,fwd,1\n", 2, "M", "integer overflow"},
        {"count overflows long long", h + "a,1,1,1,fwd,99999999999999999999\n", 2, "count",
         "integer overflow"},
        // 2^31 * 2^31 fits, * 2^2 = 2^64 does not: K is the factor that overflows.
        {"M*N*K overflows at K", h + "a,2147483648,2147483648,4,fwd,1\n", 2, "K", "overflow: M*N*K*count"},
        // 2^20 * 2^20 * 2^20 = 2^60 fits, * 16 = 2^64 does not.
        {"M*N*K*count overflows at count", h + "a,1048576,1048576,1048576,fwd,16\n", 2, "count",
         "overflow: M*N*K*count"},
        {"unknown phase", h + "a,1,2,3,fwd,1\nb,1,2,3,bwd,1\n", 3, "phase", "unknown phase 'bwd'"},
        {"phase is case sensitive", h + "a,1,2,3,FWD,1\n", 2, "phase", "unknown phase 'FWD'"},
        {"empty phase", h + "a,1,2,3,,1\n", 2, "phase", "unknown phase ''"},
        {"name too long", h + name64 + ",1,2,3,fwd,1\n", 2, "name", "too long (64 characters, at most 63)"},
        {"name empty", h + ",1,2,3,fwd,1\n", 2, "name", "empty"},
        {"unknown a_format", h8 + "a,1,2,3,fwd,1,fp9,\n", 2, "a_format", "unknown element format 'fp9'"},
        {"unknown b_format", h8 + "a,1,2,3,fwd,1,,mxfp8\n", 2, "b_format", "unknown element format 'mxfp8'"},
        {"format too long", h8 + "a,1,2,3,fwd,1," + std::string(24, 'e') + ",\n", 2, "a_format",
         "too long"},
        {"mxsf bias above range", h8 + "a,1,2,3,fwd,1,mxsf_b99,\n", 2, "a_format", "'mxsf_b99'"},
        {"mxsf bias below range (5..16)", h8 + "a,1,2,3,fwd,1,,mxsf_b4\n", 2, "b_format", "'mxsf_b4'"},
        {"mxsf bias not a number", h8 + "a,1,2,3,fwd,1,mxsf_bx,\n", 2, "a_format", "'mxsf_bx'"},
        {"header only", "# nothing\n" + h, 2, nullptr, "empty trace: header but no GEMM rows"},
        {"header and comments only", h + "# a\n\n# b\n", 4, nullptr, "empty trace"},
        {"comments only", "# a\n# b\n", 2, nullptr, "empty trace: no header"},
        {"empty file", "", 1, nullptr, "empty trace: no header"},
        {"NUL byte", h + std::string("a,1,2,3,fw\0d,1\n", 15), 2, nullptr, "NUL byte"},
    };
    for (const BadCase &c : cases) {
        TempTrace f(c.content);
        Loaded r = load(f.path());
        EXPECT_EQ(r.rc, -1) << c.what;
        EXPECT_EQ(r.t.n, 0u) << c.what;
        EXPECT_EQ(r.t.gemms, nullptr) << c.what;
        std::string prefix = f.path() + ":" + std::to_string(c.line) + ": ";
        if (c.column) prefix += std::string("column '") + c.column + "': ";
        EXPECT_EQ(r.err.substr(0, prefix.size()), prefix) << c.what << ": " << r.err;
        EXPECT_NE(r.err.find(c.detail), std::string::npos) << c.what << ": " << r.err;
        EXPECT_EQ(r.err.find('\n'), std::string::npos) << c.what;
    }
}

TEST(Trace, MissingFileNamesTheFile)
{
    std::string path = ::testing::TempDir() + "mxsim_no_such_trace_" + std::to_string(getpid()) + ".csv";
    Loaded r = load(path);
    EXPECT_EQ(r.rc, -1);
    EXPECT_EQ(r.t.n, 0u);
    EXPECT_EQ(r.err, path + ": cannot open: No such file or directory");
}

TEST(Trace, ErrorBufferIsOptionalAndTruncated)
{
    TempTrace f(std::string(kHeader) + "a,1,2,0,fwd,1\n");
    mx_trace t;
    EXPECT_EQ(mx_trace_load(f.path().c_str(), &t, nullptr, 0), -1);
    char small[8];
    EXPECT_EQ(mx_trace_load(f.path().c_str(), &t, small, sizeof small), -1);
    EXPECT_EQ(std::string(small), f.path().substr(0, 7));
    mx_trace_free(&t);
    mx_trace_free(&t); // twice is fine
    mx_trace_free(nullptr);
}

// ---- good input ------------------------------------------------------------

TEST(Trace, GoodTraceParsesToWrittenValues)
{
    const std::string name63(63, 'n');
    TempTrace f("# comment first\r\n"
                "\n"
                "  name , M , N , K , phase , count , a_format , b_format \r\n"
                "   # indented comment\n"
                "fc1,5,7,33,fwd,1,fp8_e4m3,fp8_e5m2\r\n"
                "\t\n"
                "fc1 , 5 , 33 , 7 , dgrad , 2 , , \n"
                "w,33,7,5,wgrad,3,,mxsf_b12\n"
                "inf.row,1,1,1,inf,1,e2m3,int8\n" +
                name63 + ",9223372036854775807,1,1,fwd,1,,\n"
                "big,1048576,1048576,1048576,fwd,7,,"); // no final newline
    Loaded r = load(f.path());
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.t.n, 6u);
    const mx_gemm *g = r.t.gemms;
    EXPECT_STREQ(g[0].name, "fc1");
    EXPECT_EQ(g[0].M, 5);
    EXPECT_EQ(g[0].N, 7);
    EXPECT_EQ(g[0].K, 33);
    EXPECT_EQ(g[0].count, 1);
    EXPECT_EQ(g[0].phase, MX_PHASE_FWD);
    EXPECT_STREQ(g[0].a_format, "fp8_e4m3");
    EXPECT_STREQ(g[0].b_format, "fp8_e5m2");
    EXPECT_EQ(g[0].line, 5);

    EXPECT_STREQ(g[1].name, "fc1");
    EXPECT_EQ(g[1].M, 5);
    EXPECT_EQ(g[1].N, 33);
    EXPECT_EQ(g[1].K, 7);
    EXPECT_EQ(g[1].count, 2);
    EXPECT_EQ(g[1].phase, MX_PHASE_DGRAD);
    EXPECT_STREQ(g[1].a_format, "");
    EXPECT_STREQ(g[1].b_format, "");
    EXPECT_EQ(g[1].line, 7);

    EXPECT_EQ(g[2].phase, MX_PHASE_WGRAD);
    EXPECT_EQ(g[2].count, 3);
    EXPECT_STREQ(g[2].b_format, "mxsf_b12");
    EXPECT_EQ(g[2].line, 8);

    EXPECT_STREQ(g[3].name, "inf.row");
    EXPECT_EQ(g[3].phase, MX_PHASE_INF);
    EXPECT_STREQ(g[3].a_format, "e2m3");
    EXPECT_STREQ(g[3].b_format, "int8");

    EXPECT_STREQ(g[4].name, name63.c_str());
    EXPECT_EQ(g[4].M, 9223372036854775807LL);
    EXPECT_EQ(g[4].line, 10);

    EXPECT_EQ(g[5].count, 7);
    EXPECT_EQ(g[5].line, 11);

    // 2^60 * 7 fits in a row; the sum of all rows saturates.
    EXPECT_EQ(mx_gemm_macs(&g[5]), 7LL << 60);
    EXPECT_EQ(mx_gemm_macs(&g[0]), 5 * 7 * 33);
    EXPECT_EQ(mx_trace_total_macs(&r.t, 1u << MX_PHASE_DGRAD), 2 * 5 * 33 * 7);
    EXPECT_EQ(mx_trace_total_macs(&r.t, 1u << MX_PHASE_INF), 1);
    EXPECT_EQ(mx_trace_total_macs(&r.t, MX_TRACE_ALL_PHASES), 9223372036854775807LL);
    EXPECT_EQ(mx_trace_total_macs(&r.t, 0), 0);
    mx_trace_free(&r.t);
    EXPECT_EQ(r.t.n, 0u);
    EXPECT_EQ(r.t.gemms, nullptr);
}

TEST(Trace, PhaseNames)
{
    EXPECT_STREQ(mx_phase_name(MX_PHASE_FWD), "fwd");
    EXPECT_STREQ(mx_phase_name(MX_PHASE_DGRAD), "dgrad");
    EXPECT_STREQ(mx_phase_name(MX_PHASE_WGRAD), "wgrad");
    EXPECT_STREQ(mx_phase_name(MX_PHASE_INF), "inf");
    EXPECT_STREQ(mx_phase_name(static_cast<mx_phase>(4)), "?");
    mx_phase p = MX_PHASE_FWD;
    EXPECT_EQ(mx_phase_parse("wgrad", &p), 0);
    EXPECT_EQ(p, MX_PHASE_WGRAD);
    EXPECT_EQ(mx_phase_parse("Wgrad", &p), -1);
    EXPECT_EQ(mx_phase_parse("", &p), -1);
}

// ---- shipped traces -----------------------------------------------------------

struct Shipped {
    mx_trace t{nullptr, 0};
    explicit Shipped(const char *file)
    {
        char err[512] = "";
        std::string path = repo_file(std::string("traces/") + file);
        EXPECT_EQ(mx_trace_load(path.c_str(), &t, err, sizeof err), 0) << err;
    }
    ~Shipped() { mx_trace_free(&t); }
    // MACs of the rows in the given phase whose name is one of `names`.
    long long macs(mx_phase phase, const std::vector<std::string> &names) const
    {
        long long s = 0;
        for (size_t i = 0; i < t.n; i++)
            for (const std::string &n : names)
                if (t.gemms[i].phase == phase && n == t.gemms[i].name) s += mx_gemm_macs(&t.gemms[i]);
        return s;
    }
    long long phase_macs(mx_phase p) const { return mx_trace_total_macs(&t, 1u << p); }
};

TEST(Trace, EveryShippedTraceLoads)
{
    const struct {
        const char *file;
        size_t rows;
    } files[] = {{"resnet50_train.csv", 54 * 3 - 1}, // 53 convs + fc, 3 phases, no conv1 dgrad
                 {"bert_base_train.csv", 10 * 3},
                 {"gpt2_small_train.csv", 7 * 3},
                 {"vit_b16_infer.csv", 8},
                 {"llama_decoder_infer.csv", 2 * 9},
                 {"tiny_train.csv", 8}};
    for (const auto &f : files) {
        Shipped s(f.file);
        EXPECT_EQ(s.t.n, f.rows) << f.file;
    }
}

TEST(Trace, TinyTraceRows)
{
    Shipped s("tiny_train.csv");
    ASSERT_EQ(s.t.n, 8u);
    const mx_gemm &g = s.t.gemms[0];
    EXPECT_STREQ(g.name, "fc1");
    EXPECT_EQ(g.M, 5);
    EXPECT_EQ(g.N, 7);
    EXPECT_EQ(g.K, 33);
    EXPECT_STREQ(g.a_format, "fp8_e4m3");
    bool seen[4] = {false, false, false, false};
    for (size_t i = 0; i < s.t.n; i++) seen[s.t.gemms[i].phase] = true;
    EXPECT_TRUE(seen[MX_PHASE_FWD] && seen[MX_PHASE_DGRAD] && seen[MX_PHASE_WGRAD] && seen[MX_PHASE_INF]);
    // fc1 (5x33 -> 7), fc2 (5x7 -> 16) in three phases, score 4x8x4 x3 fwd, 1 inf.
    EXPECT_EQ(mx_trace_total_macs(&s.t, MX_TRACE_ALL_PHASES), 3 * (5 * 33 * 7 + 5 * 7 * 16) + 3 * 4 * 8 * 4 + 1);
}

// ResNet-50: published ~4.1 GMACs forward per 224x224 image (He et al. 2016
// report 3.8 G for the original stride placement; torchvision's v1.5 model,
// which the trace follows, is listed at 4.09 GFLOPS counting multiply-adds).
TEST(Trace, ResNet50MatchesPublishedFigures)
{
    Shipped s("resnet50_train.csv");
    const long long batch = 32;
    const double fwd_per_image = static_cast<double>(s.phase_macs(MX_PHASE_FWD)) / batch;
    EXPECT_NEAR(fwd_per_image, 4.1e9, 0.02 * 4.1e9);
    // Weight gradients cover every weight once: sum of M*N over wgrad rows is
    // the number of conv + fc weights.  torchvision ResNet-50 has 25,557,032
    // parameters, of which fc bias 1000 and batch norm 2 per channel:
    // channels = 64 (stem) + per stage blocks*(w + w + 4w) + 4w (projection)
    //          with (blocks, w) = (3,64), (4,128), (6,256), (3,512).
    const long long bn_channels = 64 + (3 * 6 * 64 + 4 * 64) + (4 * 6 * 128 + 4 * 128) +
                                  (6 * 6 * 256 + 4 * 256) + (3 * 6 * 512 + 4 * 512);
    long long weights = 0;
    for (size_t i = 0; i < s.t.n; i++)
        if (s.t.gemms[i].phase == MX_PHASE_WGRAD) weights += s.t.gemms[i].M * s.t.gemms[i].N * s.t.gemms[i].count;
    EXPECT_EQ(weights + 2 * bn_channels + 1000, 25557032LL);
    // wgrad has the forward MACs; dgrad lacks only conv1 (7x7/2, 3->64, 112x112 out).
    EXPECT_EQ(s.phase_macs(MX_PHASE_WGRAD), s.phase_macs(MX_PHASE_FWD));
    EXPECT_EQ(s.phase_macs(MX_PHASE_FWD) - s.phase_macs(MX_PHASE_DGRAD), batch * 112 * 112 * (3 * 7 * 7) * 64);
    // The FC layer: 32 images, 2048 -> 1000.
    EXPECT_EQ(s.macs(MX_PHASE_FWD, {"fc"}), 32LL * 2048 * 1000);
}

// ViT-B/16 at 224x224: 17.6 GFLOPs (multiply-adds) per image (DeiT-B, Touvron
// et al. 2021, Table 1) and 86,567,656 parameters (timm vit_base_patch16_224).
TEST(Trace, ViTB16MatchesPublishedFigures)
{
    Shipped s("vit_b16_infer.csv");
    const long long batch = 32, d = 768, layers = 12, heads = 12, ffn = 3072, seq = 197;
    const long long T = batch * seq;
    const double per_image = static_cast<double>(s.phase_macs(MX_PHASE_INF)) / batch;
    EXPECT_NEAR(per_image, 17.6e9, 0.02 * 17.6e9);
    EXPECT_EQ(s.phase_macs(MX_PHASE_FWD), 0);
    // By hand: patch embedding (196 patches x 768 x 3*16*16), 12 layers of
    // qkv + proj + MLP over 197 tokens, attention 2 * 197*197*64 per head, head 768->1000.
    const long long linear_w = layers * (3 * d * d + d * d + 2 * d * ffn);
    const long long attention = 2 * layers * batch * heads * seq * seq * (d / heads);
    EXPECT_EQ(s.macs(MX_PHASE_INF, {"blocks.qkv", "blocks.attn.out", "blocks.ffn.up", "blocks.ffn.down"}),
              T * linear_w);
    EXPECT_EQ(s.macs(MX_PHASE_INF, {"blocks.attn.score", "blocks.attn.context"}), attention);
    EXPECT_EQ(s.phase_macs(MX_PHASE_INF),
              batch * 196 * 768 * d + T * linear_w + attention + batch * d * 1000);
    // Parameters: weights from the GEMMs plus biases, norms, tokens, positions.
    const long long patch_w = s.macs(MX_PHASE_INF, {"patch_embed"}) / (batch * 196);
    const long long head_w = s.macs(MX_PHASE_INF, {"head"}) / batch;
    const long long others = d /*patch bias*/ + d /*cls*/ + seq * d /*pos*/ +
                             layers * (3 * d + d + ffn + d /*biases*/ + 4 * d /*2 LN*/) + 2 * d /*final LN*/ +
                             1000 /*head bias*/;
    EXPECT_EQ(patch_w + linear_w + head_w + others, 86567656LL);
}

// BERT-base: linear MACs = weights x tokens in each of fwd, dgrad, wgrad.
// Weights checked against the published BertModel size, 109,482,240 parameters
// (bert-base-uncased).
TEST(Trace, BertBaseLinearMacsAreWeightsTimesTokens)
{
    Shipped s("bert_base_train.csv");
    const long long L = 12, d = 768, heads = 12, ffn = 3072, seq = 128, batch = 32, vocab = 30522;
    const long long T = batch * seq;
    const long long enc_w = L * (3 * d * d + d * d + d * ffn + ffn * d);
    const long long attention = 2 * L * batch * heads * seq * seq * (d / heads);
    const long long heads_macs = T * (d * d + d * vocab) + batch * (d * d + d * 2);
    const std::vector<std::string> enc = {"enc.qkv", "enc.attn.out", "enc.ffn.up", "enc.ffn.down"};
    for (mx_phase p : {MX_PHASE_FWD, MX_PHASE_DGRAD, MX_PHASE_WGRAD}) {
        EXPECT_EQ(s.macs(p, enc), T * enc_w) << mx_phase_name(p);
        EXPECT_EQ(s.macs(p, {"enc.attn.score", "enc.attn.context"}), attention) << mx_phase_name(p);
        EXPECT_EQ(s.phase_macs(p), T * enc_w + attention + heads_macs) << mx_phase_name(p);
    }
    EXPECT_EQ(T * enc_w, 4096LL * 84934656); // 85M encoder weights x 4096 tokens
    // Published parameter count from the trace's weights (encoder, pooler, tied
    // word embeddings) plus the parts that are not GEMMs.
    const long long word_emb = s.macs(MX_PHASE_FWD, {"mlm.decoder"}) / T;
    const long long pooler_w = s.macs(MX_PHASE_FWD, {"pooler"}) / batch;
    const long long others = 512 * d /*positions*/ + 2 * d /*token types*/ + 2 * d /*emb LN*/ +
                             L * (3 * d + d + ffn + d /*biases*/ + 4 * d /*2 LN*/) + d /*pooler bias*/;
    EXPECT_EQ(s.macs(MX_PHASE_FWD, enc) / T + pooler_w + word_emb + others, 109482240LL);
}

// GPT-2 small: same rule; weights checked against the published 124,439,808
// parameters (HF gpt2).
TEST(Trace, Gpt2SmallLinearMacsAreWeightsTimesTokens)
{
    Shipped s("gpt2_small_train.csv");
    const long long L = 12, d = 768, heads = 12, ffn = 3072, seq = 1024, batch = 8, vocab = 50257;
    const long long T = batch * seq;
    const long long block_w = L * (d * 3 * d + d * d + d * ffn + ffn * d);
    const long long attention = 2 * L * batch * heads * seq * seq * (d / heads);
    const std::vector<std::string> lin = {"h.qkv", "h.attn.out", "h.ffn.up", "h.ffn.down"};
    for (mx_phase p : {MX_PHASE_FWD, MX_PHASE_DGRAD, MX_PHASE_WGRAD}) {
        EXPECT_EQ(s.macs(p, lin), T * block_w) << mx_phase_name(p);
        EXPECT_EQ(s.macs(p, {"lm_head"}), T * d * vocab) << mx_phase_name(p);
        EXPECT_EQ(s.macs(p, {"h.attn.score", "h.attn.context"}), attention) << mx_phase_name(p);
        EXPECT_EQ(s.phase_macs(p), T * (block_w + d * vocab) + attention) << mx_phase_name(p);
    }
    const long long others = seq * d /*positions*/ + L * (3 * d + d + ffn + d /*biases*/ + 4 * d /*2 LN*/) +
                             2 * d /*final LN*/;
    const long long linear_w = (s.macs(MX_PHASE_FWD, lin) + s.macs(MX_PHASE_FWD, {"lm_head"})) / T;
    EXPECT_EQ(linear_w + others, 124439808LL);
}

// One Llama-2-7B layer: 32 such layers + embeddings + norms give the published
// 6,738,415,616 parameters.
TEST(Trace, LlamaLayerMatchesPublishedFigures)
{
    Shipped s("llama_decoder_infer.csv");
    const long long d = 4096, heads = 32, ffn = 11008, prefill = 2048, keys_decode = 2048 + 1, vocab = 32000;
    const long long dh = d / heads;
    const std::vector<std::string> pre = {"prefill.q_proj", "prefill.k_proj", "prefill.v_proj", "prefill.o_proj",
                                          "prefill.gate_proj", "prefill.up_proj", "prefill.down_proj"};
    const std::vector<std::string> dec = {"decode.q_proj", "decode.k_proj", "decode.v_proj", "decode.o_proj",
                                          "decode.gate_proj", "decode.up_proj", "decode.down_proj"};
    const long long layer_w = 4 * d * d + 3 * d * ffn;
    EXPECT_EQ(s.macs(MX_PHASE_INF, pre), prefill * layer_w);
    EXPECT_EQ(s.macs(MX_PHASE_INF, dec), layer_w); // one token
    EXPECT_EQ(s.macs(MX_PHASE_INF, {"prefill.attn.score", "prefill.attn.context"}),
              2 * heads * prefill * prefill * dh);
    EXPECT_EQ(s.macs(MX_PHASE_INF, {"decode.attn.score", "decode.attn.context"}), 2 * heads * keys_decode * dh);
    EXPECT_EQ(32 * (s.macs(MX_PHASE_INF, dec) + 2 * d /*RMSNorms*/) + 2 * vocab * d /*embed, lm_head*/ + d,
              6738415616LL);
}

} // namespace

// MX block format names (block-scaled operands) are accepted per row, besides
// the per-tensor element names: the arch model resolves both.
TEST(Trace, MxBlockFormatNamesPerRow)
{
    TempTrace f("name,M,N,K,phase,count,a_format,b_format\n"
                "mix,4,5,16,fwd,1,mxfp8_e4m3,mxint8\n"
                "mix2,4,5,16,fwd,1,mxfp8_e2m5,mxsf\n");
    Loaded r = load(f.path());
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.t.n, 2u);
    EXPECT_STREQ(r.t.gemms[0].a_format, "mxfp8_e4m3");
    EXPECT_STREQ(r.t.gemms[0].b_format, "mxint8");
    EXPECT_STREQ(r.t.gemms[1].a_format, "mxfp8_e2m5");
    EXPECT_STREQ(r.t.gemms[1].b_format, "mxsf");
    mx_trace_free(&r.t);
}

// The bounded line reader every text reader uses (mx_line_read): what it
// returns and, for hostile input, that it stops reading at once.
TEST(LineReader, LineEndsAndBounds)
{
    TempTrace f("ab\r\ncd\n\tx\ny\n");
    FILE *fp = std::fopen(f.path().c_str(), "rb");
    ASSERT_NE(fp, nullptr);
    char buf[8];
    int bad = -1;
    ASSERT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), MX_LINE_OK);
    EXPECT_STREQ(buf, "ab"); // CRLF: the CR goes with the LF
    ASSERT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), MX_LINE_OK);
    EXPECT_STREQ(buf, "cd");
    ASSERT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), MX_LINE_OK);
    EXPECT_STREQ(buf, "\tx"); // TAB is text
    ASSERT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), MX_LINE_OK);
    EXPECT_STREQ(buf, "y");
    EXPECT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), MX_LINE_EOF);
    std::fclose(fp);
}

TEST(LineReader, StopsAtTheFirstBadByte)
{
    struct Case { std::string bytes; int code; int bad_char; long pos_after; };
    const Case cases[] = {
        {"abcdefgh\n", MX_LINE_TOO_LONG, 0, 8},       // 7 characters fit in 8 bytes; the 8th is read, no more
        {std::string("ab\0cdef\n", 8), MX_LINE_NUL, 0, 3},
        {"ab\rcd\n", MX_LINE_CONTROL, '\r', 3},       // a bare CR (the byte after it is looked at, then pushed back)
        {"a\033[2J\n", MX_LINE_CONTROL, 0x1b, 2},
        {"a\x7f\n", MX_LINE_CONTROL, 0x7f, 2},
    };
    for (const Case &c : cases) {
        TempTrace f(c.bytes);
        FILE *fp = std::fopen(f.path().c_str(), "rb");
        ASSERT_NE(fp, nullptr);
        char buf[8];
        int bad = -1;
        EXPECT_EQ(mx_line_read(fp, buf, sizeof buf, &bad), c.code) << c.bytes;
        if (c.code == MX_LINE_CONTROL) {
            EXPECT_EQ(bad, c.bad_char) << c.bytes;
        }
        EXPECT_EQ(std::ftell(fp), c.pos_after) << c.bytes;
        std::fclose(fp);
    }
    char why[160];
    mx_line_error(MX_LINE_CONTROL, 8, '\r', why, sizeof why);
    EXPECT_NE(std::string(why).find("0x0d"), std::string::npos) << why;
    mx_line_error(MX_LINE_TOO_LONG, 8, 0, why, sizeof why);
    EXPECT_STREQ(why, "line longer than 7 characters");
}

TEST(Trace, HostileLinesNameTheLine)
{
    const std::string h = "name,M,N,K,phase,count\n";
    struct Case { std::string bytes; const char *want; };
    const Case cases[] = {
        {h + "g" + std::string(5000, 'x') + ",1,1,1,fwd,1\n", ":2: line longer than 4095 characters"},
        {"name,M,N,K,phase,count\rg,1,1,1,fwd,1\r", ":1: control character 0x0d"},
        {h + "g\033,1,1,1,fwd,1\n", ":2: control character 0x1b"},
        {h + "#g,1,1,1,fwd,1\n", "empty trace: header but no GEMM rows"}, // a comment, not a row
    };
    for (const Case &c : cases) {
        TempTrace f(c.bytes);
        mx_trace t;
        char err[300];
        EXPECT_EQ(mx_trace_load(f.path().c_str(), &t, err, sizeof err), -1);
        EXPECT_NE(std::string(err).find(c.want), std::string::npos) << err;
        EXPECT_EQ(t.n, 0u);
    }
}

TEST(Trace, RowCheckSharedWithImporters)
{
    const char *col = nullptr;
    char why[160];
    EXPECT_EQ(mx_trace_row_check("g", 1, 2, 3, 4, &col, why, sizeof why), 0);
    EXPECT_EQ(mx_trace_row_check("#g", 1, 1, 1, 1, &col, why, sizeof why), -1);
    EXPECT_STREQ(col, "name");
    EXPECT_EQ(mx_trace_row_check("a,b", 1, 1, 1, 1, &col, why, sizeof why), -1);
    EXPECT_STREQ(col, "name");
    EXPECT_EQ(mx_trace_row_check(std::string(64, 'n').c_str(), 1, 1, 1, 1, &col, why, sizeof why), -1);
    EXPECT_STREQ(why, "too long (64 characters, at most 63)");
    EXPECT_EQ(mx_trace_row_check("g", 1, 0, 1, 1, &col, why, sizeof why), -1);
    EXPECT_STREQ(col, "N");
    // 2^31 * 2^31 * 2^2 = 2^64: K is the factor that overflows
    EXPECT_EQ(mx_trace_row_check("g", 2147483648LL, 2147483648LL, 4, 1, &col, why, sizeof why), -1);
    EXPECT_STREQ(col, "K");
    EXPECT_EQ(mx_trace_row_check("g", 2147483648LL, 2147483648LL, 1, 1, &col, why, sizeof why), 0);
}

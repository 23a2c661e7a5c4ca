/*
 * fuzz_config.c — libFuzzer harness for the YAML configuration reader, the
 * energy-table reader and `--set` overrides (sim/config_yaml.cpp).
 *
 * Input: a YAML file, optionally followed by a line "#--set" and one
 * override ("dotted.key=value") per line; "#--set" is a YAML comment, so the
 * whole input is still the YAML file.  The file is loaded as a configuration
 * (mx_config_load) and as an energy table (mx_energy_load).  The overrides
 * are applied in order to the loaded configuration, or to the defaults if
 * it did not load.  mx_config_dram (memory.dram) is not called: it loads a
 * DRAM file (fuzzed by fuzz_dram_config) and calibrates the analytic engine
 * by simulation, ~65 ms an input under ASan, which would cut this harness
 * from ~2000 to ~15 inputs a second.
 */
#include "config_yaml.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

static void require_message(const char *err)
{
    if (!err[0] || !memchr(err, 0, 1024)) abort(); /* a failure must say why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t head;
    const uint8_t *sets;
    size_t sets_len;
    fuzz_split(data, size, "#--set", &head, &sets, &sets_len);
    const char *path = fuzz_file(0, "config.yaml", data, size);

    static mx_arch_config c; /* large: not on the stack */
    char energy[MX_ARCH_PATH_MAX];
    char err[1024];
    err[0] = 0;
    int ok = mx_config_load(path, &c, energy, err, sizeof err) == 0;
    if (!ok) {
        require_message(err);
        mx_arch_config_default(&c);
    }

    static mx_energy_table t;
    err[0] = 0;
    if (mx_energy_load(path, &t, err, sizeof err) != 0) require_message(err);

    if (sets) {
        char line[1024];
        size_t i = 0;
        while (i < sets_len) {
            size_t n = 0;
            while (i < sets_len && sets[i] != '\n') {
                if (n + 1 < sizeof line) line[n++] = (char)sets[i];
                i++;
            }
            i++; /* the newline */
            line[n] = 0;
            if (strlen(line) != n) continue; /* a NUL: argv strings cannot hold one */
            err[0] = 0;
            if (mx_config_override(&c, line, err, sizeof err) != 0) {
                require_message(err);
            }
        }
    }
    return 0;
}

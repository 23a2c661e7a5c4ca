/*
 * fuzz_dram_config.c — libFuzzer harness for the DRAM configuration readers
 * (sim/dram_config.cpp): the input is written as NAME.yaml and as NAME.ini
 * and loaded both ways by mx_dram_config_load (which picks the reader by
 * extension), so every input exercises the YAML reader and the DRAMsim3
 * .ini reader.  A configuration that loads must pass mx_dram_config_check
 * (the loaders promise checked configurations), and a model built from it
 * runs 64 clocks.
 */
#include "dram_config.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

static void load(int slot, const char *name, const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(slot, name, data, size);
    mx_dram_config c;
    char err[1024];
    err[0] = 0;
    if (mx_dram_config_load(path, &c, err, sizeof err) != 0) {
        if (!err[0] || !memchr(err, 0, sizeof err)) abort();
        return;
    }
    if (mx_dram_config_check(&c, err, sizeof err) != 0) abort();
    mx_dram *d = mx_dram_new(&c, err, sizeof err); /* NULL only when out of memory */
    if (d) {
        for (int i = 0; i < 64; i++) mx_dram_tick(d);
        mx_dram_free(d);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load(0, "dram.yaml", data, size);
    load(1, "dram.ini", data, size);
    return 0;
}

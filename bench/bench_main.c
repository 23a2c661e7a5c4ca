/* bench_main.c — runs every registered benchmark (optionally only those whose
 * name contains argv[1]). */
#include "bench.h"
#include <string.h>

#define MAX_BENCH 64
static struct { const char *name; mx_bench_fn fn; } benches[MAX_BENCH];
static int n_bench;

void mx_bench_register(const char *name, mx_bench_fn fn)
{
    if (n_bench < MAX_BENCH) { benches[n_bench].name = name; benches[n_bench].fn = fn; n_bench++; }
}

int main(int argc, char **argv)
{
    for (int i = 0; i < n_bench; i++) {
        if (argc > 1 && !strstr(benches[i].name, argv[1])) continue;
        printf("== %s\n", benches[i].name);
        fflush(stdout);
        benches[i].fn();
    }
    return 0;
}

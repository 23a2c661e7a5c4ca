/* cli_getopt.c — see cli_getopt.h. */
#include "cli_getopt.h"
#include "config_yaml.h"

#include <stdio.h>
#include <string.h>

int mx_getopt_fail(const char *prog, int c, char *const *argv, const struct option *longopts)
{
    /* glibc has stepped past a long option, so it is argv[optind - 1], and
     * optopt is 0 (unknown, ambiguous) or the option's val (a value missing
     * or not allowed); a short one is optopt (maybe inside a cluster, -qx) */
    const char *typed = optind > 0 ? argv[optind - 1] : "";
    const size_t len = strcspn(typed, "=");
    int is_long = 0, matches = 0;
    char list[200] = "";
    if (!strncmp(typed, "--", 2) && len > 2)
        for (const struct option *o = longopts; o->name; o++) {
            if (strncmp(o->name, typed + 2, len - 2) != 0) continue;
            if (strlen(o->name) == len - 2) { matches = 1; is_long = optopt == o->val; break; } /* exact */
            if (matches++ < 4) snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s", matches > 1 ? ", " : "", o->name);
            is_long |= optopt == o->val;
        }
    if (!strncmp(typed, "--", 2) && optopt == 0) is_long = 1;
    char name[200];
    if (is_long) snprintf(name, sizeof name, "%.*s", (int)len, typed);
    else snprintf(name, sizeof name, "-%c", optopt ? optopt : '?');
    if (c == ':') mx_print_error(prog, "option '%s' needs a value", name);
    else if (is_long && optopt == 0 && matches > 1) mx_print_error(prog, "option '%s' is ambiguous (%s)", name, list);
    else if (is_long && optopt != 0) mx_print_error(prog, "option '%s' takes no value", name);
    else mx_print_error(prog, "unknown option '%s' (%s --help)", name, prog);
    return 2;
}

int mx_getopt_was_long(char *const *argv)
{
    /* the value separate (-j 4, --jobs 4): the option is the argument before it */
    const char *opt = optarg && optind >= 2 && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
    return !strncmp(opt, "--", 2);
}

/*
 * main.c: the `cairn` command.
 *
 * Each subcommand is one function in src/cli/. A compilation is always the
 * same pipeline, the table of passes in src/pass.c, run by src/cli/unit.c:
 *
 *   parse -> resolve -> effects -> parallel -> device -> deferred -> analyze -> emit -> cc
 *
 * and a stage runs only when the ones before it reported no error.
 * Exit statuses: 0 done (accepted), 1 refused (diagnostics on stderr),
 * 2 usage or I/O error. `cairn run` exits with the program's status.
 */
#include "cli/cli.h"
#include "cli/harness.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *issue;       /* not yet built: where it arrives */
} Command;

static const Command commands[] = {
    {"check", cmd_check, "check a program; exit 0 when accepted, 1 when refused", NULL},
    {"run", cmd_run, "build and run a program's fn main() -> i32", NULL},
    {"build", cmd_build, "build a program from a file or a manifest (cairn.toml)", NULL},
    {"test", cmd_test, "run the test fns of a file, a directory or a project", NULL},
    {"expand", cmd_expand, "print a program back as CAIRN source", NULL},
    {"explain", cmd_explain, "print each function's effect row, regions and collectors", NULL},
    {"predict", NULL, "price device work on a card", "a later issue (device performance)"},
    {"tune", NULL, "choose an implementation", "a later issue (device performance)"},
    {"validate", NULL, "hold an implementation to its reference", "a later issue (validation)"},
    {"verify", NULL, "prove a function with an SMT model", "a later issue (verification)"},
    {"export", cmd_export, "package a function as a benchmark submission, or check a package", NULL},
    {"new", cmd_new, "start a project (from a SOL-ExecBench problem with --from-sol-execbench)", NULL},
    {"foreign", NULL, "build and inspect vendored CUDA", "a later issue (foreign CUDA)"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *f)
{
    fprintf(f, "usage: cairn COMMAND [options] [FILE]\n\ncommands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s%s\n", commands[i].name, commands[i].summary,
                commands[i].run ? "" : " (not yet available)");
    fprintf(f, "\n`cairn COMMAND --help` describes each command. Documentation: docs/cli.md\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("cairn 0.1.0\n");
        return EXIT_OK;
    }
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(name, commands[i].name))
            continue;
        if (!commands[i].run) {
            fprintf(stderr, "cairn %s: %s is not available yet; it arrives with %s\n", name,
                    commands[i].summary, commands[i].issue);
            return EXIT_USAGE;
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "cairn: unknown command '%s'\n", name);
    usage(stderr);
    return EXIT_USAGE;
}

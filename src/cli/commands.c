/*
 * commands.c: `cairn check` and `cairn expand`, the commands that stop
 * before any C is written.
 */
#include "cli.h"

#include <string.h>

static const char check_help[] =
    "usage: cairn check FILE [--json] [--emulate] [--device-target T] [--dump=WHAT]\n"
    "\n"
    "Checks FILE: parses it, resolves every name, types every expression and\n"
    "applies the language's rules. Prints `FILE: accepted` and exits 0 when\n"
    "the program is accepted; prints each refusal (code, file:line:col, the\n"
    "source line with a caret, a help line) on stderr and exits 1 otherwise.\n"
    "Exits 2 for a usage or I/O error.\n"
    "\n"
    "  --json            diagnostics as one JSON object per line on stderr,\n"
    "                    and a final {\"status\": ...} object on stdout\n"
    "  --device-target T judge the program against a device target (sm_80,\n"
    "                    sm_90a, sm_120f, ...): E-TARGET, E-TARGET-TOOLKIT\n"
    "  --emulate         judge as an emulated build is judged: also refuses what the\n"
    "                    host cannot run as the device would (E-EMULATE)\n"
    "  --dump=WHAT       print on stdout what a pass made, after it ran: ast (the\n"
    "                    tree, after parse), types (each expression with its type,\n"
    "                    after resolve), effects (each function's row)\n";

int cmd_check(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "check", argc, argv, "json emulate device-target dump"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(check_help, stdout);
        return EXIT_OK;
    }
    if (!o.path) {
        fputs(check_help, stderr);
        return EXIT_USAGE;
    }
    Unit u;
    if (!unit_load(&u, o.path, &o)) {
        unit_free(&u);
        return EXIT_USAGE;
    }
    bool ok = unit_check_target(&u, &o, NULL, NULL);
    if (o.json)
        printf("{\"status\": \"%s\", \"errors\": %d}\n", ok ? "accepted" : "refused", u.sink.errors);
    else
        unit_verdict(&u, o.path, ok);
    unit_free(&u);
    return ok ? EXIT_OK : EXIT_REFUSED;
}

static const char expand_help[] =
    "usage: cairn expand FILE\n"
    "\n"
    "Prints FILE back as CAIRN source, as the compiler sees it: one statement\n"
    "a line, every parenthesis the precedence needs. Parsing the output gives\n"
    "the same program. Exits 1 when FILE does not parse.\n";

static bool has_derive(const Node *prog)
{
    for (int i = 0; prog && i < prog->block.stmts.n; i++)
        if (((const Node *)prog->block.stmts.v[i])->kind == N_DERIVE)
            return true;
    return false;
}

int cmd_expand(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "expand", argc, argv, "json"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(expand_help, stdout);
        return EXIT_OK;
    }
    if (!o.path) {
        fputs(expand_help, stderr);
        return EXIT_USAGE;
    }
    Unit u;
    if (!unit_load(&u, o.path, &o)) {
        unit_free(&u);
        return EXIT_USAGE;
    }
    bool ok = unit_parse(&u);
    /* a program that derives gradients is checked too, so what derive grad writes is printed (as
     * comments after each derive); a refused one prints as parsed, its diagnostics on stderr */
    if (ok && has_derive(u.program))
        (void)unit_check(&u);
    if (ok)
        expand_program(stdout, u.program);
    unit_free(&u);
    return ok ? EXIT_OK : EXIT_REFUSED;
}

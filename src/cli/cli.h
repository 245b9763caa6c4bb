/*
 * cli.h: what the subcommands of `cairn` share: options, loading and
 * checking one compilation unit, running processes, and the manifest.
 */
#ifndef CAIRN_CLI_H
#define CAIRN_CLI_H

#include "../cairn.h"
#include "../pass.h"
#include "../target.h"

#include <signal.h>

/* Exit statuses of every subcommand. */
enum { EXIT_OK = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2 };

/* Options common to the subcommands; each takes the ones it knows. */
typedef struct {
    bool json;
    bool emulate;
    bool emit_c;
    bool header;
    bool quiet;                   /* no "cairn: built" line (cairn export's own build) */
    bool help;
    const char *device_target;
    const char *out_dir;          /* --out DIR */
    const char *path;             /* the FILE, DIR or manifest */
    const char *dump;             /* --dump=WHAT (pass.h: ast, types, effects) */
    int nprog_args;               /* after `--` */
    char **prog_args;
} Options;

/* Parses argv for `cmd`. `allowed` is the set of option names the command
 * takes ("json emulate device-target out emit-c header"). Prints a usage
 * error and returns false on anything else. */
bool opts_parse(Options *o, const char *cmd, int argc, char **argv, const char *allowed);


/* One compilation: the source, the arena, the sink, the AST, the checker. */
typedef struct {
    Arena *arena;
    Sink sink;
    Source src;
    Node *program;
    Check check;
    const char *dump;     /* --dump=WHAT: printed after the pass that makes it */
    Target *target;       /* the device target, once resolved (device.c); NULL: none */
    bool target_tried;    /* unit_target_named ran; target_ok is its answer */
    bool target_ok;
    const char *exports;  /* a library build's signatures (JSON) for the receipt, from emit */
} Unit;

/* Reads the file (false and a message on stderr when it cannot). */
bool unit_load(Unit *u, const char *path, const Options *o);
bool unit_parse(Unit *u);           /* lex + parse; false on E-PARSE */
bool unit_check(Unit *u);           /* parse + check */
bool unit_emit(Unit *u, Emit *e);   /* analysis + emit, after a check that accepted */
void unit_free(Unit *u);
/* The last line of check and explain: "FILE: accepted" or "FILE: refused (N errors)". */
void unit_verdict(const Unit *u, const char *path, bool ok);

/* The device target (device.c). unit_target_named resolves and validates the
 * target a flag or a manifest names (E-TARGET, E-TARGET-TOOLKIT) before the
 * check; unit_check_target is unit_check between that and the end, where a
 * program with device work and no named target takes nvidia-smi's GPU, and
 * the features the program needs are recorded. */
bool unit_target_named(Unit *u, const Options *o, const char *manifest_target, const char *manifest);
bool unit_check_target(Unit *u, const Options *o, const char *manifest_target, const char *manifest);

/* Processes (proc.c). argv is NULL-terminated. Returns the exit status, or
 * 128 + the signal that killed it, or -1 when it could not start. While it
 * waits, SIGINT, SIGTERM and SIGHUP sent to cairn are passed on to the child;
 * once it has ended they are pending again for cairn (see ProcDefer). */
int proc_run(char *const argv[], const char *stdout_path);

/* proc_run with more said: what to execute and what happened. */
typedef struct {
    char *const *argv;        /* argv[0] is searched on PATH unless `file` is set */
    const char *file;         /* the file to execute, argv[0] being only its name; or NULL */
    const char *stdout_path;  /* standard output to this file, or NULL: cairn's own */
    int start_errno;          /* out: why it could not start (proc_call returned -1) */
    int signal;               /* out: the signal that ended it, or 0 */
    int forwarded;            /* out: the last signal passed on to it, or 0 */
} ProcCall;
int proc_call(ProcCall *c);

/* Holding back the signals that end cairn while a build has temporaries to
 * remove: proc_defer_begin blocks them; proc_interrupted returns the one
 * pending (or 0); proc_take_pending discards them (cairn run, whose child
 * already acted on them); proc_defer_end restores the mask, and a signal
 * still pending then ends cairn. Defers nest. */
typedef struct {
    sigset_t saved;
} ProcDefer;
void proc_defer_begin(ProcDefer *d);
int proc_interrupted(void);
void proc_take_pending(void);
void proc_defer_end(ProcDefer *d);

/* "SIGSEGV" for 11. */
const char *proc_signal_name(int sig);
/* The first line of `argv[0] --version`, or "unknown" (arena string). */
const char *proc_version(Arena *a, const char *prog);

/* A build's staging directory (stage.c): outputs are written there under
 * their final names and renamed into place once the build has succeeded. */
typedef struct {
    const char *path;    /* DIR/NAME.cairn-tmp-PID-XXXXXX, or NULL once removed */
} Stage;
/* Creates it in dir, first removing stages whose owner has ended. */
bool stage_open(Arena *a, Stage *s, const char *dir, const char *name);
/* Where the output `final` (a path in dir) is written inside the stage. */
const char *stage_path(Arena *a, const Stage *s, const char *final);
/* Renames the staged output over `final`; false and a message on failure. */
bool stage_commit(Arena *a, const Stage *s, const char *final);
void stage_remove(Stage *s);

/* Where the runtime headers are: $CAIRN_HOME/runtime, else the runtime/
 * beside the bin/ that holds this executable. */
const char *cairn_runtime_dir(Arena *a);

/* The C compiler for host code: $CC, else cc. */
const char *host_cc(void);

/* A build: what was compiled and where. */
typedef struct {
    const char *name;        /* the program's name: the file's stem or the manifest's */
    const char *kind;        /* "exe" */
    const char *dir;         /* build/NAME */
    const char *c_path;      /* dir/NAME.c */
    const char *exe_path;    /* dir/NAME */
    const char *receipt;     /* dir/NAME.receipt.json */
    bool test_main;          /* an executable that runs one test fn by name */
    const char *manifest;    /* the manifest built, or NULL */
    const char *manifest_target;   /* its [build] device_target, or NULL */
    bool library;            /* --header (or kind = "lib"): NAME.h, libNAME.a and NAME.so */
    const char *header_path; /* dir/NAME.h */
    const char *so_path;     /* dir/NAME.so: the same object, shared (ctypes, Python) */
    bool for_run;            /* cairn run: keep a name for the executable it built */
    const char *run_path;    /* out (for_run): that executable, which no other build replaces */
    Stage stage;             /* out (for_run): holds run_path; the caller removes it */
    ProcDefer defer;         /* out (for_run, built): still held; the caller ends it */
} BuildPlan;

/* Emits, compiles and writes the receipt. Returns EXIT_* . */
int build_unit(Unit *u, BuildPlan *b, const Options *o);
/* Fills a plan for a file, under o->out_dir or build/STEM. */
void build_plan_for(Arena *a, BuildPlan *b, const char *path, const char *name, const Options *o);

/* A tiny TOML reader for the manifest: [table] headers and key = "string"
 * / number / true / false / ["array", "of", "strings"]. Errors name the line. */
typedef struct {
    const char *table, *key, *value;   /* value: unquoted text */
    int line;
} TomlEntry;
typedef struct {
    Vec entries;                        /* TomlEntry* */
    Vec tables;                         /* TomlEntry* (key NULL): each header, with its line */
} Toml;
bool toml_read(Arena *a, const char *path, Toml *t, char *err, size_t errlen);
const char *toml_get(const Toml *t, const char *table, const char *key);

/* A project's manifest (cairn.toml), read and held to what a manifest may
 * say: an unknown table or key is an error naming it (exit 2), [foreign]
 * under --emulate is E-EMULATE (exit 1). On false the message is printed and
 * exit_code says how to exit. */
typedef struct {
    const char *path;
    Toml toml;
    const char *kind, *name, *source, *device_target;   /* [build], or NULL */
    int exit_code;
} Manifest;
bool manifest_read(Arena *a, const char *path, bool emulate, Manifest *m);

int cmd_check(int argc, char **argv);
int cmd_expand(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_explain(int argc, char **argv);

#endif

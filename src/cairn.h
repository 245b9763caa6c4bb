/*
 * cairn.h: the one header of the CAIRN compiler.
 *
 * It holds what every stage shares: the arena, spans and the diagnostic sink,
 * tokens, the AST (a tagged union of node kinds), semantic types, symbols, and
 * the entry point of each stage. Tables that must not drift apart (tokens,
 * node kinds, diagnostic codes, built-in functions) are X-macros.
 *
 * The pipeline (the table of passes in pass.c):
 *   source -> lex -> parse -> AST -> check (resolve, effects, rules) -> analyze -> emit -> cc
 * The AST is the hub: `cairn expand` prints it back as CAIRN source.
 */
#ifndef CAIRN_H
#define CAIRN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- arena */

/* One arena per compilation; nothing is freed one by one. All allocation of
 * the compiler goes through arena_alloc (which dies on out-of-memory, or
 * fails on purpose when a test asks it to: see arena_fail_after). */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size);            /* zeroed */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...);
size_t arena_bytes(const Arena *a);                   /* bytes handed out */

/* Scoped scratch: arena_release(a, m) gives back everything allocated since
 * arena_mark(a) returned m, and the next allocations reuse that memory
 * (zeroed again, as arena_alloc promises). The rule: nothing allocated after
 * a mark may be referenced after its release (under ASan such a read is a
 * report). Marks nest: release the inner one first; an inner mark released
 * after its outer one is a compiler bug (die). */
typedef struct {
    struct ArenaChunk *head;   /* the chunk allocations came from at the mark */
    struct ArenaChunk *below;  /* the chunk after it then: own chunks may be linked in between */
    size_t used;               /* head's used bytes at the mark */
    size_t bytes;              /* arena_bytes at the mark */
} ArenaMark;
ArenaMark arena_mark(Arena *a);
void arena_release(Arena *a, ArenaMark m);

/* A growable array of pointers, backed by the arena. */
typedef struct {
    void **v;
    int n, cap;
} Vec;
void vec_push(Arena *a, Vec *v, void *item);

/* The UTF-8 character at p (never reading at or past end): its length, 1 to
 * 4, with its code point in *cp; 0 when the bytes there are not UTF-8. */
int utf8_decode(const char *p, const char *end, uint32_t *cp);

/* Our own bugs: print where, and abort. User errors never come here. */
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void die_at(const char *file, int line, const char *fmt, ...);

/* ---------------------------------------------------------- source, span */

typedef struct {
    const char *name;     /* as given on the command line */
    const char *text;     /* NUL-terminated contents */
    size_t len;
} Source;

/* Every token and node carries a span: where it starts and how long it is
 * on its first line (for the caret). */
typedef struct {
    const Source *src;
    int line, col;        /* 1-based */
    int len;              /* characters to underline, at least 1 */
} Span;

/* ----------------------------------------------------------- diagnostics */

/* Stable codes. The spec's codes first, then our own (documented in
 * docs/diagnostics.md). The test corpus keys on these strings. */
#define DIAG_CODES(X)                                                        \
    X(E_PARSE, "E-PARSE")                                                    \
    X(E_UNSUPPORTED, "E-UNSUPPORTED")                                        \
    X(E_NAME, "E-NAME")                                                      \
    X(E_TYPE_MISMATCH, "E-TYPE-MISMATCH")                                    \
    X(E_OPERATOR, "E-OPERATOR")                                              \
    X(E_CAST, "E-CAST")                                                      \
    X(E_CALL, "E-CALL")                                                      \
    X(E_EXTENT, "E-EXTENT")                                                  \
    X(E_ASSIGN, "E-ASSIGN")                                                  \
    X(E_RETURN, "E-RETURN")                                                  \
    X(E_CONST, "E-CONST")                                                    \
    X(E_LOOP, "E-LOOP")                                                      \
    X(E_MAIN, "E-MAIN")                                                      \
    X(E_ALIAS, "E-ALIAS")                                                    \
    X(E_PLACEMENT, "E-PLACEMENT")                                            \
    X(E_TARGET, "E-TARGET")                                                  \
    X(E_TARGET_TOOLKIT, "E-TARGET-TOOLKIT")                                  \
    X(E_TARGET_FEATURE, "E-TARGET-FEATURE")                                  \
    X(E_QUANTIZE, "E-QUANTIZE")                                              \
    X(E_REDUCE_ORDER, "E-REDUCE-ORDER")                                      \
    X(E_WIDE, "E-WIDE")                                                      \
    X(E_STAGE_BUSY, "E-STAGE-BUSY")                                          \
    X(E_STAGE_LOOP, "E-STAGE-LOOP")                                          \
    X(E_STAGE_UNREADY, "E-STAGE-UNREADY")                                    \
    X(E_MMA, "E-MMA")                                                        \
    X(E_LAYOUT, "E-LAYOUT")                                                  \
    X(E_LAYOUT_CONSUMER, "E-LAYOUT-CONSUMER")                                \
    X(E_FRAGMENT, "E-FRAGMENT")                                              \
    X(E_GRAD, "E-GRAD")                                                      \
    X(E_GRAD_FORM, "E-GRAD-FORM")                                            \
    X(E_GRAD_CALL, "E-GRAD-CALL")                                            \
    X(E_GRAD_RACE, "E-GRAD-RACE")                                            \
    X(E_PARALLEL_RACE, "E-PARALLEL-RACE")                                    \
    X(E_PARALLEL_WRITE, "E-PARALLEL-WRITE")                                  \
    X(E_PARALLEL_NEST, "E-PARALLEL-NEST")                                    \
    X(E_PARALLEL_CALL, "E-PARALLEL-CALL")                                    \
    X(E_ATOMIC_MIXED, "E-ATOMIC-MIXED")                                      \
    X(E_SCAN_ORDER, "E-SCAN-ORDER")                                          \
    X(E_PLAN, "E-PLAN")                                                      \
    X(E_SPAWN, "E-SPAWN")                                                    \
    X(E_TICKET, "E-TICKET")                                                  \
    X(E_EMULATE, "E-EMULATE")                                                \
    X(E_ENQUEUE, "E-ENQUEUE")                                                \
    X(E_ENCODING, "E-ENCODING")                                              \
    X(E_BOUNDS, "E-BOUNDS")                                                  \
    X(E_COOP_SHAPE, "E-COOP-SHAPE")                                          \
    X(E_COOP_SHARED, "E-COOP-SHARED")                                        \
    X(E_COOP_BARRIER, "E-COOP-BARRIER")                                      \
    X(E_COOP_WARP, "E-COOP-WARP")                                            \
    X(E_COOP_CONFLICT, "E-COOP-CONFLICT")                                    \
    X(E_COOP_UNORDERED, "E-COOP-UNORDERED")                                  \
    X(E_COOP_REUSE, "E-COOP-REUSE")                                          \
    X(E_COOP_UNWRITTEN, "E-COOP-UNWRITTEN")                                  \
    X(E_COOP_UNDECIDED, "E-COOP-UNDECIDED")                                  \
    X(E_COOP_GLOBAL, "E-COOP-GLOBAL")                                        \
    X(E_HARNESS_MAPPING, "E-HARNESS-MAPPING")                                \
    X(E_HARNESS_DTYPE, "E-HARNESS-DTYPE")                                    \
    X(E_HARNESS_SYMBOL, "E-HARNESS-SYMBOL")                                  \
    X(E_HARNESS_FORMAT, "E-HARNESS-FORMAT")                                  \
    X(E_TARGET_MISMATCH, "E-TARGET-MISMATCH")

typedef enum {
#define X(id, s) id,
    DIAG_CODES(X)
#undef X
    DIAG_NCODES
} DiagCode;
const char *diag_code_name(DiagCode c);

/* The sink counts diagnostics and prints them as they come, either in the
 * human form (file:line:col: error[CODE]: message, source line, caret,
 * help) or as one JSON object per line (--json). */
typedef struct {
    FILE *out;
    bool json;
    int errors;           /* every error reported, shown or not: stages compare it */
    int max_errors;       /* show this many, then stop (0: no limit) */
    bool stopped;         /* more than max_errors came: the lexer stops reading */
} Sink;
void sink_init(Sink *s, FILE *out, bool json);
/* At the end of a stage: a sink that stopped counts the errors it showed,
 * not those a cut-short stage reported after the stop. */
void sink_settle(Sink *s);
/* Text as diagnostics show it: control characters, invalid UTF-8 and the
 * bidirectional overrides escaped (docs/diagnostics.md, "Text that cannot
 * be shown"). diag_write_text writes n bytes of s escaped. */
void diag_write_text(FILE *f, const char *s, size_t n);
/* s (NUL-terminated) as a JSON string, quotes included; always valid JSON,
 * whatever the bytes (the diagnostics' --json and the build receipt). */
void json_write_string(FILE *f, const char *s);
/* help may be NULL. fmt is the message: say what, with the concrete witness. */
void diag_error(Sink *s, Span at, DiagCode code, const char *help, const char *fmt, ...);
void diag_note(Sink *s, Span at, const char *fmt, ...);   /* attaches to the last error */

/* ---------------------------------------------------------------- tokens */

/* Punctuation and keywords. Type names (f32, usize, ...) and built-ins are
 * identifiers: the checker resolves them, so they can be shadowed nowhere
 * but are not reserved either. */
#define TOKENS(X)                                                            \
    X(T_EOF, "end of file")                                                  \
    X(T_IDENT, "name")                                                       \
    X(T_INT, "integer")                                                      \
    X(T_FLOAT, "float")                                                      \
    X(T_STRING, "string")                                                    \
    X(T_LPAREN, "(") X(T_RPAREN, ")") X(T_LBRACE, "{") X(T_RBRACE, "}")      \
    X(T_LBRACK, "[") X(T_RBRACK, "]") X(T_COMMA, ",") X(T_SEMI, ";")         \
    X(T_COLON, ":") X(T_DOT, ".") X(T_DOTDOT, "..") X(T_ARROW, "->")         \
    X(T_AT, "@") X(T_PLUS, "+") X(T_MINUS, "-") X(T_STAR, "*")               \
    X(T_SLASH, "/") X(T_PERCENT, "%") X(T_AMP, "&") X(T_PIPE, "|")           \
    X(T_CARET, "^") X(T_BANG, "!") X(T_TILDE, "~") X(T_ASSIGN, "=")          \
    X(T_PLUSEQ, "+=") X(T_MINUSEQ, "-=") X(T_STAREQ, "*=")                   \
    X(T_SLASHEQ, "/=") X(T_PERCENTEQ, "%=") X(T_EQ, "==") X(T_NE, "!=")      \
    X(T_LT, "<") X(T_GT, ">") X(T_LE, "<=") X(T_GE, ">=")                    \
    X(T_ANDAND, "&&") X(T_OROR, "||")                                        \
    X(K_FN, "fn") X(K_KERNEL, "kernel") X(K_EXTERN, "extern")                \
    X(K_LET, "let") X(K_MUT, "mut") X(K_IF, "if") X(K_ELSE, "else")          \
    X(K_FOR, "for") X(K_IN, "in") X(K_WHILE, "while")                        \
    X(K_BREAK, "break") X(K_CONTINUE, "continue") X(K_RETURN, "return")      \
    X(K_PARALLEL, "parallel") X(K_REDUCE, "reduce") X(K_SCAN, "scan")        \
    X(K_COMPACT, "compact") X(K_YIELD, "yield") X(K_WARP, "warp")            \
    X(K_SPAWN, "spawn") X(K_AFTER, "after") X(K_BLOCKS, "blocks")            \
    X(K_THREADS, "threads") X(K_THEN, "then") X(K_SHARED, "shared")          \
    X(K_PIPELINE, "pipeline") X(K_DEPTH, "depth") X(K_BARRIER, "barrier")    \
    X(K_BUFFER, "buffer") X(K_ZEROED, "zeroed") X(K_LAYOUT, "layout")        \
    X(K_CONST, "const") X(K_DERIVE, "derive") X(K_PLAN, "plan")              \
    X(K_UNSAFE, "unsafe") X(K_ASM, "asm") X(K_EFFECTS, "effects")            \
    X(K_LAUNCH, "launch") X(K_TASK, "task") X(K_LOCK, "lock")                \
    X(K_TEST, "test") X(K_TRUE, "true") X(K_FALSE, "false")

typedef enum {
#define X(id, s) id,
    TOKENS(X)
#undef X
    T_NKINDS
} TokKind;
const char *tok_name(TokKind k);   /* "(" or "fn" or "name" */

typedef struct {
    TokKind kind;
    bool ival_overflow;   /* T_INT: literal does not fit in 64 bits */
    bool after_error;     /* a lexer error lies just before: the parser stays quiet here */
    Span span;
    const char *text;     /* the token's characters (arena copy) */
    union {               /* 48 bytes a token: a 100k-line file has millions */
        uint64_t ival;    /* T_INT: value (saturated; see ival_overflow) */
        double fval;      /* T_FLOAT: value */
        const char *sval; /* T_STRING: decoded contents */
    };
} Token;

typedef struct {
    Token *v;
    int n;
} TokenList;

/* The lexer reads one token a call, so the parser never holds the whole
 * file's tokens (48 bytes each, ten a line). Errors go to the sink (E-PARSE)
 * and lexing goes on; at the end every call gives T_EOF. */
typedef struct Lexer Lexer;
Lexer *lex_open(Arena *a, Sink *s, const Source *src);
void lex_next(Lexer *lx, Token *out);
/* Lexes a whole file into a list that ends with T_EOF (tests, tools). */
TokenList lex_source(Arena *a, Sink *s, const Source *src);

/* ------------------------------------------------------------------- AST */

typedef struct Node Node;
typedef struct Type Type;
typedef struct Sym Sym;
typedef struct EffTable EffTable;
typedef struct Analysis Analysis;

typedef enum { PLACE_HOST, PLACE_PINNED, PLACE_UNIFIED, PLACE_DEVICE } Placement;
const char *place_name(Placement p);   /* "host", ... */

/* The comment on each kind names the union member valid for it. */
#define NODE_KINDS(X)                                                        \
    /* expressions */                                                        \
    X(N_INT, lit)         /* 42, 0x3555 */                                   \
    X(N_FLOAT, lit)       /* 2.5 */                                          \
    X(N_BOOL, lit)        /* true, false */                                  \
    X(N_STRING, lit)      /* "text" (I/O only) */                            \
    X(N_NAME, name)       /* x */                                            \
    X(N_UNARY, unary)     /* -x, !c, ~x */                                   \
    X(N_BINARY, binary)   /* a + b */                                        \
    X(N_CALL, call)       /* f(a), f[targs](a), v.m(a) (callee N_FIELD) */    \
    X(N_INDEX, index)     /* x[i] */                                         \
    X(N_SLICE, slice)     /* x[i..j] */                                      \
    X(N_FIELD, field)     /* Cache.streaming, std.math.exp, TILE.cosize */   \
    X(N_COLLECT, collect) /* reduce / scan / compact */                      \
    X(N_SPAWN, spawn)     /* spawn transfer(..), spawn parallel .. after t */ \
    X(N_CLOSURE, fn)      /* fn(x:f32) -> f32 = e   (no name) */             \
    X(N_TASK, block)      /* task { ... } : a host task, joined by wait */   \
    X(N_TYPE, type)       /* a type written in source (also as a targ) */    \
    /* statements */                                                         \
    X(N_BLOCK, block)     /* { s1; s2; } */                                  \
    X(N_LET, let)         /* let [mut] x[:T] = e; */                         \
    X(N_BUFFER, buffer)   /* buffer x:T[n]@P = zeroed; */                    \
    X(N_SHARED, buffer)   /* shared s:T[N] [= zeroed]; */                    \
    X(N_PIPELINE, buffer) /* pipeline p:T[N] depth D; */                     \
    X(N_ASSIGN, assign)   /* lhs = e; lhs += e; */                           \
    X(N_EXPR_STMT, unary) /* f(x); (member a) */                             \
    X(N_IF, if_)          /* if c { } else { } */                            \
    X(N_FOR, loop)        /* for i in a..b { } */                            \
    X(N_WHILE, loop)      /* while c { } */                                  \
    X(N_BREAK, lit)       /* break; */                                       \
    X(N_CONTINUE, lit)    /* continue; */                                    \
    X(N_RETURN, unary)    /* return [e]; (member a, may be NULL) */          \
    X(N_PARALLEL, loop)   /* parallel i in n { } */                          \
    X(N_COOP, coop)       /* blocks b in G threads t in T { } [then ...] */  \
    X(N_BARRIER, lit)     /* barrier; */                                     \
    X(N_UNSAFE, block)    /* unsafe { ... } */                               \
    X(N_ASM, asm_)        /* asm ptx[sm_80] "tpl" (ins) -> (outs) effects(..); */ \
    X(N_LOCK, lock)       /* lock l { ... } */                               \
    X(N_LAUNCH, launch)   /* launch(g, t) k(args); */                        \
    /* declarations */                                                       \
    X(N_FN, fn)           /* [kernel|extern|test] fn f[D:nat](p:T) -> R {} */ \
    X(N_PARAM, param)     /* p:T, or D:nat among generics */                 \
    X(N_CONST, let)       /* const C:T = e; */                               \
    X(N_LAYOUT, let)      /* layout L = rows(16, 16); */                     \
    X(N_DERIVE, derive)   /* derive grad[p, q] for f; */                     \
    X(N_PLAN, plan)       /* plan f { vector 4; unroll 2; } */               \
    X(N_PLAN_ITEM, plan_item) /* vector 4 */                                 \
    X(N_PROGRAM, block)   /* the whole file: block.stmts are declarations */

typedef enum {
#define X(id, m) id,
    NODE_KINDS(X)
#undef X
    N_NKINDS
} NodeKind;
const char *node_kind_name(NodeKind k);

/* Operators of N_UNARY, N_BINARY and N_ASSIGN are token kinds (T_PLUS,
 * T_ANDAND, T_PLUSEQ, ...). */

typedef enum { COLLECT_REDUCE, COLLECT_SCAN, COLLECT_COMPACT } CollectKind;
typedef enum { MODE_FOR, MODE_PARALLEL, MODE_WARP } CollectMode;
typedef enum { ACC_NONE, ACC_RO, ACC_RW } Access;
typedef enum {
    CALL_UNRESOLVED,      /* before the checker */
    CALL_FN,              /* a user function, direct */
    CALL_BUILTIN,         /* min, print, quantize, ... */
    CALL_CONVERT,         /* u64(t), f32(x): the node's type is the target */
    CALL_MATH,            /* std.math.exp(x) */
    CALL_VALUE,           /* through a function value (a local, param or closure) */
    CALL_METHOD,          /* p.fill(..), L.cosize() */
    CALL_CONSTRUCT,       /* Array[f32, 4](), WmmaAcc[..](0.0), Lock() */
} CallKind;

struct Node {
    NodeKind kind;
    Span span;
    Type *ty;             /* set by the checker on every expression */
    union {
        struct {                      /* N_INT N_FLOAT N_BOOL N_STRING; stmts without members */
            const char *text;         /* as written */
            uint64_t ival;
            double fval;
            const char *sval;         /* N_STRING decoded */
            bool overflow;            /* N_INT did not fit in 64 bits */
            bool bval;                /* (the bools last: no padding between) */
        } lit;
        struct {                      /* N_NAME */
            const char *id;
            Sym *sym;                 /* set by the checker */
        } name;
        struct {                      /* N_UNARY N_EXPR_STMT N_RETURN */
            TokKind op;
            Node *a;
        } unary;
        struct {                      /* N_BINARY */
            TokKind op;
            Node *a, *b;
        } binary;
        struct {                      /* N_CALL */
            Node *callee;             /* N_NAME, N_FIELD (method or std.x.f), N_CLOSURE.. */
            Vec targs;                /* Node*: N_TYPE or expression; [..] before (..) */
            bool has_targs;
            Vec args;                 /* Node* */
            /* set by the checker: */
            CallKind ck;
            Node *target;             /* CALL_FN: the N_FN called (a generic's instance) */
            int builtin;              /* CALL_BUILTIN: a Builtin; CALL_MATH: unused */
            const char *math;         /* CALL_MATH: "exp", "log", ... (std.math) */
            bool *extent_proved;      /* per arg, set by the checker: the view argument's extent
                                         is proved equal to the parameter's (no run-time guard);
                                         NULL or false: the emitter guards */
            int stage_keep;           /* CALL_METHOD p.wait(), set by the stage checker: the fills a
                                         wait leaves in flight (cp.async.wait_group), the fewest
                                         over every way the body reaches it */
        } call;
        struct {                      /* N_INDEX */
            Node *base, *index;
            bool covered;             /* set by the analysis pass: a guard before the lane loop checks it */
            int preload;              /* set by it too: 1 + the slot a device lane's load put it in, or 0 */
            Node *adjoint_of;         /* set by grad.c: the read of f whose adjoint this element of f_grad
                                         receives (the race rule then names it: E-GRAD-RACE) */
            const char *adjoint_fn;   /* ... and f's name, for the message */
        } index;
        struct {                      /* N_SLICE */
            Node *base, *lo, *hi;
        } slice;
        struct {                      /* N_FIELD */
            Node *base;
            const char *id;
        } field;
        struct {                      /* N_COLLECT */
            CollectKind kind;
            const char *op;           /* "+", "*", "min", "max", "and", "or", "xor", "add_wrap", .. (reduce, scan) */
            Node *dest;               /* reduce: total element (may be NULL); scan/compact: the view written */
            CollectMode mode;
            const char *var;          /* index name ("_" allowed); NULL for warp */
            Node *extent;             /* n in `for i in n`; NULL for warp */
            Node *keep;               /* compact: the `if` condition */
            Node *value;              /* yield e */
            Sym *sym;                 /* set by the checker: the index binder (NULL for warp) */
            bool device;              /* set by the checker: it indexes @device views */
        } collect;
        struct {                      /* N_SPAWN */
            Node *work;               /* N_CALL of transfer, or N_PARALLEL */
            Vec after;                /* Node* (N_NAME) tickets */
        } spawn;
        struct {                      /* N_BLOCK N_UNSAFE N_PROGRAM N_TASK */
            Vec stmts;
        } block;
        struct {                      /* N_TYPE */
            const char *id;           /* "f32", "ro", "rw", "Array", "WmmaA", "fn", "Ticket", ... */
            Access access;            /* ro/rw */
            Node *elem;               /* ro<T>: T (N_TYPE) */
            Node *extent;             /* ro<T>[n]: n; NULL for a scalar rw<T> */
            Placement place;
            bool place_written;       /* @P appeared in source */
            Vec args;                 /* Array[T, K], WmmaA[..]: N_TYPE or expression; fn(A, B): N_TYPE */
            Node *ret;                /* fn(A) -> R */
        } type;
        struct {                      /* N_LET N_CONST N_LAYOUT */
            const char *id;
            bool mut;
            Node *type;               /* N_TYPE or NULL */
            Node *init;
            Sym *sym;
        } let;
        struct {                      /* N_BUFFER N_SHARED N_PIPELINE */
            const char *id;
            Node *elem;               /* N_TYPE */
            Node *size;               /* n */
            Placement place;
            bool place_written;
            bool zeroed;
            bool zero_probed;         /* set by the checker (shared, zeroed): its reads were followed */
            bool zero_seen;           /* ... and one of them may read an element no thread wrote first,
                                         so the zeroing is kept (the device skips it otherwise) */
            Node *depth;              /* pipeline */
            Sym *sym;
        } buffer;
        struct {                      /* N_ASSIGN */
            TokKind op;               /* T_ASSIGN, T_PLUSEQ, ... */
            Node *lhs, *rhs;
            int post;                 /* set by the analysis pass: 1 + the slot a wide device lane
                                         stores it through (analyze.c, "Wide lanes"), or 0 */
        } assign;
        struct {                      /* N_IF */
            Node *cond, *then, *els;  /* els: N_BLOCK, N_IF or NULL */
        } if_;
        struct {                      /* N_FOR N_WHILE N_PARALLEL */
            const char *var;          /* for/parallel binder ("_" allowed) */
            Node *lo, *hi;            /* for: lo..hi; parallel: hi is the extent */
            Node *cond;               /* while */
            Node *body;               /* N_BLOCK */
            Sym *sym;
            bool device;              /* N_PARALLEL, set by the checker: its lanes index @device
                                         views, so they run on the device */
        } loop;
        struct {                      /* N_COOP */
            Vec bvars, bext;          /* const char* / Node*: blocks b, c in G, H */
            Vec tvars, text;          /* threads t in T */
            Node *body;
            Vec fvars, fext;          /* finish: then threads t in T */
            Node *finish;             /* N_BLOCK or NULL */
            Vec bsyms, tsyms, fsyms;  /* set by the checker: Sym* of the names, in order */
            int64_t threads;          /* set by the checker: T, the product of the thread extents */
            bool device;              /* set by the checker: it indexes @device views */
        } coop;
        struct {                      /* N_ASM */
            const char *dialect;      /* "ptx" */
            const char *min_target;   /* sm_80, or NULL */
            const char *tpl;
            Vec ins;                  /* Node* expressions */
            Vec outs;                 /* Node* N_PARAM (name:type) */
            Vec effects;              /* const char* */
        } asm_;
        struct {                      /* N_LOCK */
            Node *lock;
            Node *body;
        } lock;
        struct {                      /* N_LAUNCH */
            Node *grid, *threads;
            Node *call;               /* N_CALL of an extern kernel */
        } launch;
        struct {                      /* N_FN N_CLOSURE */
            const char *id;           /* NULL for a closure */
            bool is_kernel, is_extern, is_test;
            bool derived;             /* written by derive grad (grad.c), not parsed */
            bool refused;             /* set by the checker: its body's check reported errors */
            bool on_device;           /* set by the checker: a device lane reaches it (or a kernel fn) */
            Vec generics;             /* N_PARAM, type N_TYPE "nat" */
            Vec params;               /* N_PARAM */
            Node *ret;                /* N_TYPE or NULL (no value) */
            Node *body;               /* N_BLOCK; or the expression of `= e` */
            bool expr_body;
            Sym *sym;
            /* set by the checker: */
            const char *cname;        /* name in emitted C: cn_f, cn_f__2 for f[2] */
            int64_t *gvals;           /* an instance's generic values, one per generic */
            bool is_instance;         /* a copy made for one use of a generic */
            Vec captures;             /* N_CLOSURE: Sym* of outside locals it names */
            void *effects;            /* set by effects.c: this function's FnEff */
        } fn;
        struct {                      /* N_PARAM */
            const char *id;
            Node *type;               /* N_TYPE */
            Sym *sym;
        } param;
        struct {                      /* N_DERIVE */
            const char *what;         /* "grad" */
            Vec only;                 /* const char*: the [p, q] list; empty: all */
            bool has_list;
            const char *target;
            Node *made;               /* set by the checker: the N_FN f_grad it wrote */
        } derive;
        struct {                      /* N_PLAN */
            const char *target;
            Vec items;                /* N_PLAN_ITEM */
        } plan;
        struct {                      /* N_PLAN_ITEM */
            const char *id;           /* vector, unroll, fuse, staged */
            Vec args;                 /* Node* expressions */
        } plan_item;
    };
};

/* A node of kind k has room for the union member NODE_KINDS names for k and
 * no more (node_size(k) bytes), so a name is 56 bytes, not the 168 of a
 * function: nodes were most of a large check's memory. Never change a
 * node's kind in place or copy a whole Node into one: copy node_size bytes. */
Node *node_new(Arena *a, NodeKind k, Span at);
size_t node_size(NodeKind k);

/* parse: tokens to AST. Syntax errors are E-PARSE with what was expected;
 * the parser recovers at the next `;` or `}` so several are reported. */
Node *parse_program(Arena *a, Sink *s, TokenList toks);
/* The same, pulling tokens from the lexer as it goes: what the compiler uses. */
Node *parse_source(Arena *a, Sink *s, const Source *src);

/* expand: prints a program back as CAIRN source. Parsing the output gives
 * the same AST (ast_equal). */
void expand_program(FILE *out, const Node *prog);
/* Structural equality, spans and checker annotations ignored. */
bool ast_equal(const Node *a, const Node *b);
/* A deep copy without checker annotations (for generic instances). */
Node *ast_clone(Arena *a, const Node *n);
/* Prints one expression or type as CAIRN source into an arena string. */
const char *expand_expr(Arena *a, const Node *e);
/* The same, at most max characters and then "..." (for messages: an operand
 * may be a chain of a million terms). */
const char *expand_expr_short(Arena *a, const Node *e, size_t max);

/* ----------------------------------------------------------------- types */

#define TYPE_KINDS(X)                                                        \
    X(TY_ERROR, "<error>")  /* after a reported error: silences cascades */   \
    X(TY_VOID, "()")                                                         \
    X(TY_BOOL, "bool")                                                       \
    X(TY_I8, "i8") X(TY_I16, "i16") X(TY_I32, "i32") X(TY_I64, "i64")        \
    X(TY_U8, "u8") X(TY_U16, "u16") X(TY_U32, "u32") X(TY_U64, "u64")        \
    X(TY_USIZE, "usize")                                                     \
    X(TY_F32, "f32") X(TY_F64, "f64")                                        \
    X(TY_F16, "f16") X(TY_BF16, "bf16") X(TY_F8E4M3, "f8e4m3")               \
    X(TY_F8E5M2, "f8e5m2")                                                   \
    X(TY_INT_LIT, "integer literal")  /* not yet given a type */             \
    X(TY_FLOAT_LIT, "float literal")                                         \
    X(TY_STRING, "string")                                                   \
    X(TY_VIEW, "view")      /* ro<T>[n]@P, rw<T>[n]@P, a buffer */            \
    X(TY_REF, "ref")        /* rw<T>: a scalar passed by reference */        \
    X(TY_ARRAY, "Array")    /* Array[T, K] */                                \
    X(TY_FN, "fn")          /* fn(A, B) -> R: a function value */           \
    X(TY_TICKET, "Ticket")                                                   \
    X(TY_FRAGMENT, "fragment")  /* WmmaA[f16, 16, 16, 16]: frag, elem, m, n, k (frag.h) */ \
    X(TY_LAYOUT, "Layout")  /* a layout's value (rows, swizzle, spread: check_call.c) */ \
    X(TY_OPAQUE, "opaque")  /* the namespaces std, Cache, Array */

typedef enum {
#define X(id, s) id,
    TYPE_KINDS(X)
#undef X
    TY_NKINDS
} TypeKind;

struct Type {
    TypeKind kind;
    Type *elem;           /* VIEW REF ARRAY: element type */
    Access access;        /* VIEW REF */
    Node *extent;         /* VIEW: the extent expression, in the scope of its declaration */
    Placement place;      /* VIEW */
    bool shared;          /* VIEW: a cooperative region's shared array (its block's memory, either side) */
    bool pipeline;        /* VIEW: a pipeline's readable stage (shared too; only fill writes it) */
    int64_t count;        /* ARRAY: K */
    Vec params;           /* FN: Type* */
    Type *ret;            /* FN: result (TY_VOID for none) */
    const char *name;     /* OPAQUE: "std", "Cache", "Array" */
    int frag;             /* FRAGMENT: a FragKind (frag.h); elem is its element type */
    int m, n, k;          /* FRAGMENT: its shape, M x N x K */
};

/* The scalar types are shared constants: compare with ==. */
Type *type_prim(TypeKind k);
bool type_is_int(const Type *t);
bool type_is_signed(const Type *t);
bool type_is_float(const Type *t);          /* f32 f64 (computing floats) */
bool type_is_storage_float(const Type *t);  /* f16 bf16 f8e4m3 f8e5m2 */
bool type_is_scalar(const Type *t);         /* bool, ints, floats, storage floats */
int type_bits(const Type *t);               /* 8..64 for scalars */
bool type_equal(const Type *a, const Type *b);  /* extents compared by ast_equal */
/* "ro<f32>[n]@device", "Array[u8, 16]" ... (arena string) */
const char *type_str(Arena *a, const Type *t);

/* --------------------------------------------------------------- symbols */

typedef enum {
    SYM_LOCAL,            /* let, loop binder, buffer, shared */
    SYM_PARAM,
    SYM_FN,
    SYM_CONST,
    SYM_LAYOUT,
    SYM_GENERIC,          /* D in [D:nat] */
    SYM_BUILTIN,
} SymKind;

struct Sym {
    SymKind kind;
    const char *id;       /* as written */
    const char *cname;    /* name in emitted C (never a C keyword) */
    Type *ty;
    Node *decl;
    bool mut;
    int builtin;          /* SYM_BUILTIN: a Builtin */
    bool has_value;       /* SYM_CONST, SYM_GENERIC in an instance: value known */
    int64_t value;        /* integer value (consts of integer type) */
    double fvalue;        /* float consts */
    bool captured;        /* a closure names it: lives in the closure's environment */
    const struct Layout *layout; /* SYM_LAYOUT, once evaluated (check_call.c, "layouts") */
};

/* A pipeline's operations (N_CALL with ck CALL_METHOD: its `builtin`). */
typedef enum { PIPE_NONE, PIPE_FILL, PIPE_WAIT, PIPE_RELEASE, PIPE_FILL_ROWS } PipeOp;

/* Built-in functions, by name. The checker gives each its rule. */
#define BUILTINS(X)                                                          \
    X(B_MIN, "min") X(B_MAX, "max") X(B_ABS, "abs") X(B_SQRT, "sqrt")        \
    X(B_FLOOR, "floor") X(B_CEIL, "ceil") X(B_TRUNC, "trunc")                \
    X(B_SHL, "shl") X(B_SHR, "shr")                                          \
    X(B_ADD_WRAP, "add_wrap") X(B_SUB_WRAP, "sub_wrap")                      \
    X(B_MUL_WRAP, "mul_wrap") X(B_NEG_WRAP, "neg_wrap")                      \
    X(B_PRINT, "print") X(B_PRINTLN, "println") X(B_ASSERT, "assert")        \
    X(B_LEN, "len")                                                          \
    X(B_TRANSFER, "transfer") X(B_WAIT, "wait")                              \
    X(B_QUANTIZE, "quantize") X(B_QUANTIZE_STOCHASTIC, "quantize_stochastic") \
    X(B_TO_BITS, "to_bits") X(B_FROM_BITS, "from_bits")                      \
    X(B_LOAD_WIDE, "load_wide") X(B_STORE_WIDE, "store_wide")                \
    X(B_MMA_UNORDERED, "mma_unordered") X(B_MMA_LOAD, "mma_load")            \
    X(B_MMA_STORE, "mma_store") X(B_MMA_GET, "mma_get") X(B_MMA_SET, "mma_set") \
    X(B_MMA_FILL, "fragment fill") /* WmmaAcc[..](v): a call of a fragment kind, not a name */ \
    X(B_SHUFFLE, "shuffle") X(B_SHUFFLE_XOR, "shuffle_xor")                  \
    X(B_SHUFFLE_DOWN, "shuffle_down") X(B_SHUFFLE_UP, "shuffle_up")          \
    X(B_WARP_BALLOT, "warp_ballot") X(B_WARP_ANY, "warp_any")                \
    X(B_WARP_ALL, "warp_all") X(B_WARP_MATCH, "warp_match")                  \
    X(B_ATOMIC_ADD_WRAP, "atomic_add_wrap") X(B_ATOMIC_MIN, "atomic_min")    \
    X(B_ATOMIC_MAX, "atomic_max") X(B_ATOMIC_AND, "atomic_and")              \
    X(B_ATOMIC_OR, "atomic_or") X(B_ATOMIC_XOR, "atomic_xor")                \
    X(B_ATOMIC_CAS, "atomic_cas") X(B_ATOMIC_ADD_UNORDERED, "atomic_add_unordered") \
    X(B_FIRST, "first") X(B_ROWS, "rows") X(B_SWIZZLE, "swizzle")            \
    X(B_SPREAD, "spread") X(B_LOCK_NEW, "Lock")

typedef enum {
#define X(id, s) id,
    BUILTINS(X)
#undef X
    B_NBUILTINS
} Builtin;
const char *builtin_name(Builtin b);
bool mma_on_device(const Node *call);   /* mma_unordered(m, n, k, c, a, b): a @device view among them */
bool builtin_is_atomic(int b);       /* atomic_add_wrap .. atomic_add_unordered */
int builtin_lookup(const char *id);   /* -1 if not a built-in */

/* ---------------------------------------------------------------- checker */

/* check: resolves names, gives every expression a type, and applies the base
 * language's rules. Anything whose rules belong to a later stage of the
 * project is refused with E-UNSUPPORTED naming the construct: we never
 * accept what we do not yet check.
 * Requires: a program the parser accepted without errors.
 * Guarantees (when it reports no error): every N_NAME has a sym, every
 * expression a type other than TY_ERROR or a literal type, every generic
 * call names an instance in `instances`. */
typedef struct {
    Arena *arena;
    Sink *sink;
    Node *program;
    Vec fns;              /* N_FN to emit, generic instances included */
    bool emulate;         /* --emulate */
    const struct Target *target;   /* the device target (target.h), set before checking; NULL: none named */
    int device_work;      /* set by the checker: @device elements indexed (device work needs a target) */
    Vec numerics;         /* const char*: JSON objects, one per rounding kind */
    struct EffTable *effects;   /* set by the effects pass (par.h): every function's row, once */
    Vec local_storage;    /* const char*: JSON objects, one per cooperative body's shared arrays (receipt) */
    Analysis *analysis;   /* set by the analysis pass (analyze.c): fusion and hoisted guards */
    struct Ctx *ctx;      /* the checker's state, from resolution to its last rule (check.h) */
} Check;

bool check_program(Check *c);

/* ------------------------------------------------------------------ emit */

/* emit: writes the program as C (the common subset of C17 and C++17) that
 * includes runtime/cairn_rt.h. Statements carry their CAIRN line in a
 * comment and a #line directive. Requires a program check accepted. */
typedef struct {
    Arena *arena;
    FILE *out;
    const Check *check;
    const char *runtime_dir;   /* where cairn_rt.h lives, for the #include */
    bool with_main;            /* emit a C main() calling main() */
    bool test_main;            /* emit a C main(argc, argv) running the test fn named argv[1]
                                  (exit 0 when it passes; `--list` prints the test names) */
    FILE *header;              /* a library build: the C entries' header goes here (emit_lib.c) */
    const char *lib_name;      /* ... and the library's name (cairn_NAME_device_stream) */
    const char *exports;       /* set by a library build: its entries' signatures, a JSON array
                                  (the receipt's `exports`, emit_lib.c) */
} Emit;

void emit_program(Emit *e);

#endif

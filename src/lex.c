/*
 * lex.c: source text to tokens.
 *
 * The lexer makes one pass over the text with a cursor and never backs up
 * more than one character. It keeps the start of the current line, so a
 * token's column is a subtraction, not a count.
 *
 * Speed matters (the front end must check well over a million lines a
 * second), so: tokens are made one at a time as the parser asks for them
 * (lex_next; no array of the whole file), names and integer texts are
 * interned (one copy per distinct text, see intern), and a keyword is found
 * by a switch on the name's length and first letter and one memcmp, not by
 * a search through the table.
 *
 * Numbers follow notes/SYNTAX.md 21: decimal or hex integers with `_`
 * separators, and floats with a digit on both sides of the point or an
 * exponent. A point followed by another point is a range (`0..3`), and a
 * point followed by a letter is a field, so neither starts a fraction.
 *
 * Errors (a stray character, an unterminated string, a bad escape) are
 * E-PARSE: the lexer reports them, skips what it cannot read and goes on,
 * so that one run shows every error, up to the sink's limit, where it stops
 * reading. A string that is not UTF-8 is E-ENCODING, and so is a file that
 * is not text at all (see lex_not_text). At the end lex_next gives T_EOF,
 * again on every call.
 */
#include "cairn.h"

#include <stdlib.h>
#include <string.h>

static const char *const tok_names[] = {
#define X(id, s) s,
    TOKENS(X)
#undef X
};

const char *tok_name(TokKind k)
{
    if ((int)k < 0 || k >= T_NKINDS)
        return "?";
    return tok_names[k];
}

typedef struct {
    const char *s;            /* NULL: an empty slot */
    uint32_t hash, len;
} Interned;

struct Lexer {
    Arena *arena;
    Sink *sink;
    const Source *src;
    const char *p;            /* cursor */
    const char *end;
    const char *line_start;
    int line;
    Token *out;               /* where the token being read goes (lex_next's argument) */
    bool produced;            /* lex_one wrote *out (a bad character writes nothing) */
    bool pending_error;       /* an error since the last token: mark the next */
    bool at_eof;              /* eof holds the T_EOF token, handed out again on every call */
    Token eof;
    Interned *names;          /* the names seen: open addressing, a power of two */
    uint32_t names_cap, names_n;
};

/* Every lexer error marks the next token, so the parser does not report the
 * gap the bad character left (`let a = 3 # 4;` is one error, not two). */
static void lex_error(Lexer *lx, Span at, const char *help, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(lx->sink, at, E_PARSE, help, "%s", msg);
    lx->pending_error = true;
}

/* Character classes by table: one load a character in the hot loops. */
enum { C_ALPHA = 1, C_DIGIT = 2 };
static const unsigned char char_class[256] = {
    ['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT, ['4'] = C_DIGIT,
    ['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT, ['8'] = C_DIGIT, ['9'] = C_DIGIT,
    ['_'] = C_ALPHA,
    ['a'] = C_ALPHA, ['b'] = C_ALPHA, ['c'] = C_ALPHA, ['d'] = C_ALPHA, ['e'] = C_ALPHA,
    ['f'] = C_ALPHA, ['g'] = C_ALPHA, ['h'] = C_ALPHA, ['i'] = C_ALPHA, ['j'] = C_ALPHA,
    ['k'] = C_ALPHA, ['l'] = C_ALPHA, ['m'] = C_ALPHA, ['n'] = C_ALPHA, ['o'] = C_ALPHA,
    ['p'] = C_ALPHA, ['q'] = C_ALPHA, ['r'] = C_ALPHA, ['s'] = C_ALPHA, ['t'] = C_ALPHA,
    ['u'] = C_ALPHA, ['v'] = C_ALPHA, ['w'] = C_ALPHA, ['x'] = C_ALPHA, ['y'] = C_ALPHA,
    ['z'] = C_ALPHA,
    ['A'] = C_ALPHA, ['B'] = C_ALPHA, ['C'] = C_ALPHA, ['D'] = C_ALPHA, ['E'] = C_ALPHA,
    ['F'] = C_ALPHA, ['G'] = C_ALPHA, ['H'] = C_ALPHA, ['I'] = C_ALPHA, ['J'] = C_ALPHA,
    ['K'] = C_ALPHA, ['L'] = C_ALPHA, ['M'] = C_ALPHA, ['N'] = C_ALPHA, ['O'] = C_ALPHA,
    ['P'] = C_ALPHA, ['Q'] = C_ALPHA, ['R'] = C_ALPHA, ['S'] = C_ALPHA, ['T'] = C_ALPHA,
    ['U'] = C_ALPHA, ['V'] = C_ALPHA, ['W'] = C_ALPHA, ['X'] = C_ALPHA, ['Y'] = C_ALPHA,
    ['Z'] = C_ALPHA,
};
static bool is_alpha(int c) { return char_class[(unsigned char)c] & C_ALPHA; }
static bool is_digit(int c) { return char_class[(unsigned char)c] & C_DIGIT; }
static bool is_alnum(int c) { return char_class[(unsigned char)c] != 0; }

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static Span span_at(Lexer *lx, const char *start, int len)
{
    Span s = {lx->src, lx->line, (int)(start - lx->line_start) + 1, len > 0 ? len : 1};
    return s;
}

/* Starts the token of kind k that began at start and ends at the cursor. */
static Token *push(Lexer *lx, TokKind k, const char *start)
{
    Token *t = lx->out;
    *t = (Token){.kind = k, .span = span_at(lx, start, (int)(lx->p - start)),
                 .after_error = lx->pending_error};
    lx->pending_error = false;
    lx->produced = true;
    return t;
}

/* A keyword, or T_IDENT. The switch on length and first letter leaves at
 * most two candidates, each checked with one memcmp. */
static TokKind keyword(const char *s, size_t n)
{
#define KW(word, kind)                                                       \
    if (n == sizeof word - 1 && !memcmp(s, word, n))                         \
        return kind;
    switch (s[0]) {
    case 'a': KW("after", K_AFTER) KW("asm", K_ASM) break;
    case 'b': KW("break", K_BREAK) KW("blocks", K_BLOCKS) KW("barrier", K_BARRIER)
              KW("buffer", K_BUFFER) break;
    case 'c': KW("const", K_CONST) KW("continue", K_CONTINUE) KW("compact", K_COMPACT) break;
    case 'd': KW("depth", K_DEPTH) KW("derive", K_DERIVE) break;
    case 'e': KW("else", K_ELSE) KW("extern", K_EXTERN) KW("effects", K_EFFECTS) break;
    case 'f': KW("fn", K_FN) KW("for", K_FOR) KW("false", K_FALSE) break;
    case 'i': KW("if", K_IF) KW("in", K_IN) break;
    case 'k': KW("kernel", K_KERNEL) break;
    case 'l': KW("let", K_LET) KW("layout", K_LAYOUT) KW("launch", K_LAUNCH) KW("lock", K_LOCK) break;
    case 'm': KW("mut", K_MUT) break;
    case 'p': KW("parallel", K_PARALLEL) KW("pipeline", K_PIPELINE) KW("plan", K_PLAN) break;
    case 'r': KW("return", K_RETURN) KW("reduce", K_REDUCE) break;
    case 's': KW("scan", K_SCAN) KW("spawn", K_SPAWN) KW("shared", K_SHARED) break;
    case 't': KW("threads", K_THREADS) KW("then", K_THEN) KW("task", K_TASK) KW("test", K_TEST)
              KW("true", K_TRUE) break;
    case 'u': KW("unsafe", K_UNSAFE) break;
    case 'w': KW("while", K_WHILE) KW("warp", K_WARP) break;
    case 'y': KW("yield", K_YIELD) break;
    case 'z': KW("zeroed", K_ZEROED) break;
    default: break;
    }
#undef KW
    return T_IDENT;
}

static void intern_grow(Lexer *lx)
{
    uint32_t cap = lx->names_cap ? lx->names_cap * 2 : 1024;
    Interned *t = arena_alloc(lx->arena, cap * sizeof *t);
    for (uint32_t i = 0; i < lx->names_cap; i++) {
        Interned e = lx->names[i];
        if (!e.s)
            continue;
        uint32_t j = e.hash & (cap - 1);
        while (t[j].s)
            j = (j + 1) & (cap - 1);
        t[j] = e;
    }
    lx->names = t;
    lx->names_cap = cap;
}

/* Names are interned: each distinct name is stored once, and every token
 * of it points at that copy. A large file uses a few thousand names a
 * million times, so this saves a copy a use, and equal names are equal
 * pointers (the checker's scope lookup compares pointers first). */
static const char *intern(Lexer *lx, const char *s, size_t n)
{
    uint32_t h = 2166136261u;   /* FNV-1a, as the checker's scopes */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    if ((lx->names_n + 1) * 4 > lx->names_cap * 3)
        intern_grow(lx);
    uint32_t mask = lx->names_cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        Interned *e = &lx->names[i];
        if (!e->s) {
            *e = (Interned){arena_strndup(lx->arena, s, n), h, (uint32_t)n};
            lx->names_n++;
            return e->s;
        }
        if (e->hash == h && e->len == n && !memcmp(e->s, s, n))
            return e->s;
    }
}

static void lex_name(Lexer *lx)
{
    /* A local cursor: through lx->p the compiler would store every step. */
    const char *start = lx->p, *q = start, *end = lx->end;
    while (q < end && is_alnum(*q))
        q++;
    lx->p = q;
    size_t n = (size_t)(lx->p - start);
    TokKind k = keyword(start, n);
    Token *t = push(lx, k, start);
    t->text = k == T_IDENT ? intern(lx, start, n) : tok_names[k];
}

/* digits [_ digits]* in base 10 or 16: value, saturating, with overflow. */
static void scan_int_digits(Lexer *lx, int base, uint64_t *v, bool *overflow)
{
    for (; lx->p < lx->end; lx->p++) {
        int c = *lx->p;
        if (c == '_')
            continue;
        int d = base == 16 ? hex_value(c) : (is_digit(c) ? c - '0' : -1);
        if (d < 0)
            break;
        if (*v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            *overflow = true;
        else
            *v = *v * (uint64_t)base + (uint64_t)d;
    }
    if (*overflow)
        *v = UINT64_MAX;
}

static void skip_digits(Lexer *lx)
{
    while (lx->p < lx->end && (is_digit(*lx->p) || *lx->p == '_'))
        lx->p++;
}

/* The exponent `e[+-]d+` at the cursor, or nothing (then the cursor stays). */
static bool scan_exponent(Lexer *lx)
{
    const char *q = lx->p;
    if (q >= lx->end || (*q != 'e' && *q != 'E'))
        return false;
    q++;
    if (q < lx->end && (*q == '+' || *q == '-'))
        q++;
    if (q >= lx->end || !is_digit(*q))
        return false;
    lx->p = q;
    skip_digits(lx);
    return true;
}

static double float_value(Lexer *lx, const char *start, size_t n)
{
    char buf[128];
    char *heap = NULL, *b = buf;
    if (n + 1 > sizeof buf)
        b = heap = arena_alloc(lx->arena, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (start[i] != '_')
            b[k++] = start[i];
    b[k] = '\0';
    (void)heap;
    return strtod(b, NULL);
}

/* A letter straight after a number (`12ab`, `0x`) is an error, not two tokens. */
static void check_number_end(Lexer *lx, const char *start)
{
    if (lx->p >= lx->end || !is_alpha(*lx->p))
        return;
    const char *bad = lx->p;
    while (lx->p < lx->end && is_alnum(*lx->p))
        lx->p++;
    lex_error(lx, span_at(lx, start, (int)(lx->p - start)),
               "a number is digits (decimal or 0x hex, `_` between them), a point and digits, "
               "or an exponent such as e-9",
               "invalid character `%c` in number `%.*s`", *bad, (int)(lx->p - start), start);
}

static void lex_number(Lexer *lx)
{
    const char *start = lx->p;
    uint64_t v = 0;
    bool overflow = false;
    if (lx->p + 1 < lx->end && lx->p[0] == '0' && (lx->p[1] == 'x' || lx->p[1] == 'X')) {
        lx->p += 2;
        if (lx->p >= lx->end || hex_value(*lx->p) < 0) {
            check_number_end(lx, start);
            if (lx->p == start + 2)
                lex_error(lx, span_at(lx, start, 2), NULL,
                           "expected hex digits after `0x`");
        }
        scan_int_digits(lx, 16, &v, &overflow);
    } else {
        const char *digits = lx->p;
        skip_digits(lx);
        bool is_float = false;
        if (lx->p + 1 < lx->end && lx->p[0] == '.' && is_digit(lx->p[1])) {
            lx->p++;
            skip_digits(lx);
            scan_exponent(lx);
            is_float = true;
        } else if (scan_exponent(lx)) {
            is_float = true;
        }
        if (is_float) {
            size_t n = (size_t)(lx->p - start);
            Token *t = push(lx, T_FLOAT, start);
            t->text = arena_strndup(lx->arena, start, n);
            t->fval = float_value(lx, start, n);
            check_number_end(lx, start);
            return;
        }
        const char *save = lx->p;
        lx->p = digits;
        scan_int_digits(lx, 10, &v, &overflow);
        lx->p = save;
    }
    Token *t = push(lx, T_INT, start);
    t->text = intern(lx, start, (size_t)(lx->p - start));   /* small numbers repeat like names */
    t->ival = v;
    t->ival_overflow = overflow;
    check_number_end(lx, start);
}

/* One escape after a backslash; returns the character it stands for. */
static char lex_escape(Lexer *lx, const char *bs)
{
    char c = *lx->p++;
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case '\\': return '\\';
    case '"': return '"';
    case '0': return '\0';
    default:
        lex_error(lx, span_at(lx, bs, 2),
                   "the escapes are \\n \\t \\\\ \\\" and \\0", "unknown escape `\\%c` in string", c);
        return c;
    }
}

/* A string holds UTF-8 text (the emitted C and the runtime print it as
 * bytes, and a terminal reads them as UTF-8), so a byte of a string literal
 * that is not UTF-8 is refused, once a literal, at the byte: E-ENCODING. */
static void check_string_utf8(Lexer *lx, const char *bad)
{
    diag_error(lx->sink, span_at(lx, bad, 1), E_ENCODING,
               "a string holds UTF-8 text: save the file as UTF-8 (from Latin-1: `iconv -f LATIN1 -t UTF-8`)",
               "string literal is not valid UTF-8: byte 0x%02x", (unsigned char)*bad);
}

/* "..." on one line. The decoded text is never longer than the source. */
static void lex_string(Lexer *lx)
{
    const char *start = lx->p++;
    size_t cap = 0;
    const char *q = lx->p;
    while (q < lx->end && *q != '"' && *q != '\n') {
        if (*q == '\\' && q + 1 < lx->end && q[1] != '\n')
            q++;
        q++;
        cap++;
    }
    char *buf = arena_alloc(lx->arena, cap + 1);
    size_t n = 0;
    const char *not_utf8 = NULL;
    while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
        const char *c = lx->p;
        if (*c == '\\' && c + 1 < lx->end && c[1] != '\n') {
            lx->p++;
            buf[n++] = lex_escape(lx, c);
            continue;
        }
        uint32_t cp;
        int k = (unsigned char)*c < 0x80 ? 1 : utf8_decode(c, lx->end, &cp);
        if (!k) {
            not_utf8 = not_utf8 ? not_utf8 : c;
            k = 1;
        }
        memcpy(buf + n, c, (size_t)k);
        n += (size_t)k;
        lx->p += k;
    }
    bool closed = lx->p < lx->end && *lx->p == '"';
    if (closed)
        lx->p++;
    else
        lex_error(lx, span_at(lx, start, 1),
                   "a string ends with `\"` on the line where it starts", "unterminated string");
    buf[n] = '\0';
    Token *t = push(lx, T_STRING, start);
    t->text = arena_strndup(lx->arena, start, (size_t)(lx->p - start));
    t->sval = buf;
    if (!closed)
        lx->pending_error = true;   /* what the string swallowed is missing */
    if (not_utf8)
        check_string_utf8(lx, not_utf8);
}

/* Two-character punctuation first, then one-character. */
static TokKind punct(const char *p, const char *end, int *len)
{
    char c = p[0], d = p + 1 < end ? p[1] : '\0';
    *len = 2;
    switch (c) {
    case '.': if (d == '.') return T_DOTDOT; break;
    case '-': if (d == '>') return T_ARROW; if (d == '=') return T_MINUSEQ; break;
    case '+': if (d == '=') return T_PLUSEQ; break;
    case '*': if (d == '=') return T_STAREQ; break;
    case '/': if (d == '=') return T_SLASHEQ; break;
    case '%': if (d == '=') return T_PERCENTEQ; break;
    case '=': if (d == '=') return T_EQ; break;
    case '!': if (d == '=') return T_NE; break;
    case '<': if (d == '=') return T_LE; break;
    case '>': if (d == '=') return T_GE; break;
    case '&': if (d == '&') return T_ANDAND; break;
    case '|': if (d == '|') return T_OROR; break;
    default: break;
    }
    *len = 1;
    switch (c) {
    case '(': return T_LPAREN; case ')': return T_RPAREN;
    case '{': return T_LBRACE; case '}': return T_RBRACE;
    case '[': return T_LBRACK; case ']': return T_RBRACK;
    case ',': return T_COMMA; case ';': return T_SEMI; case ':': return T_COLON;
    case '.': return T_DOT; case '@': return T_AT;
    case '+': return T_PLUS; case '-': return T_MINUS; case '*': return T_STAR;
    case '/': return T_SLASH; case '%': return T_PERCENT;
    case '&': return T_AMP; case '|': return T_PIPE; case '^': return T_CARET;
    case '!': return T_BANG; case '~': return T_TILDE; case '=': return T_ASSIGN;
    case '<': return T_LT; case '>': return T_GT;
    default: *len = 0; return T_EOF;
    }
}

static void lex_bad_char(Lexer *lx)
{
    const char *start = lx->p;
    unsigned char c = (unsigned char)*lx->p;
    /* Skip a whole UTF-8 sequence (or a broken one) so the error names one
     * character once. The sink shows a control or a byte that is not UTF-8
     * escaped (`\x1b`), never raw. */
    lx->p++;
    if (c >= 0x80)
        while (lx->p < lx->end && ((unsigned char)*lx->p & 0xC0) == 0x80)
            lx->p++;
    if (c < 0x20 || c == 0x7f)      /* escaped here: %s would stop at a NUL */
        lex_error(lx, span_at(lx, start, 1),
                   "a control character (shown escaped) has no place in CAIRN source: delete it",
                   "unexpected character `\\x%02x`", c);
    else
        lex_error(lx, span_at(lx, start, 1), c >= 0x80 ? "CAIRN source is ASCII outside strings and comments" : NULL,
                   "unexpected character `%.*s`", (int)(lx->p - start), start);
}

/* Whitespace and // comments, with a local cursor (see lex_name). */
static void skip_space(Lexer *lx)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end) {
        char c = *p;
        if (c == '\n') {
            p++;
            lx->line++;
            lx->line_start = p;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            p++;
        } else if (c == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n')
                p++;
        } else {
            break;
        }
    }
    lx->p = p;
}

static void lex_one(Lexer *lx)
{
    char c = *lx->p;
    if (is_alpha(c)) {
        lex_name(lx);
    } else if (is_digit(c)) {
        lex_number(lx);
    } else if (c == '"') {
        lex_string(lx);
    } else {
        int len;
        TokKind k = punct(lx->p, lx->end, &len);
        if (!len) {
            lex_bad_char(lx);
            return;
        }
        const char *start = lx->p;
        lx->p += len;
        push(lx, k, start)->text = tok_names[k];
    }
}

/* A file that is not text (an object file, an image, UTF-16) would give an
 * error every few bytes, each quoting junk, so it is said once, as one
 * E-ENCODING, and the lexer reads none of it. Not text: a NUL among the
 * first SNIFF_BYTES bytes, or more than one in eight of them a control byte
 * (a C0 other than whitespace, or DEL) or a byte that is not UTF-8. A
 * source with a stray control or a Latin-1 comment is text, and gets its
 * errors where they are. */
enum { SNIFF_BYTES = 8192 };

static bool is_control_byte(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') || c == 0x7f;
}

/* The span of the byte at p, counting lines from the start of the text. */
static Span span_of_byte(const Source *src, const char *p)
{
    int line = 1;
    const char *line_start = src->text;
    for (const char *q = src->text; q < p; q++)
        if (*q == '\n') {
            line++;
            line_start = q + 1;
        }
    return (Span){src, line, (int)(p - line_start) + 1, 1};
}

/* How many bytes of [p, end) are control bytes or not UTF-8 (a broken
 * sequence counts each of its bytes), and the first of them. */
static size_t count_not_text(const char *p, const char *end, const char *text_end, const char **first)
{
    size_t bad = 0;
    while (p < end) {
        uint32_t cp;
        int k = (unsigned char)*p < 0x80 ? 1 : utf8_decode(p, text_end, &cp);
        if (!k || is_control_byte((unsigned char)*p)) {
            *first = *first ? *first : p;
            bad++;
        }
        p += k ? k : 1;
    }
    return bad;
}

static bool lex_not_text(Lexer *lx)
{
    const Source *src = lx->src;
    size_t n = src->len < SNIFF_BYTES ? src->len : SNIFF_BYTES;
    const char *nul = memchr(src->text, '\0', n), *first = NULL;
    size_t bad = nul ? 0 : count_not_text(src->text, src->text + n, src->text + src->len, &first);
    const char *help = "cairn reads CAIRN source, which is UTF-8 text: is this the file you meant?";
    if (nul)
        diag_error(lx->sink, span_of_byte(src, nul), E_ENCODING, help,
                   "not a text file: byte 0x00 at offset %zu", (size_t)(nul - src->text));
    else if (bad * 8 > n)
        diag_error(lx->sink, span_of_byte(src, first), E_ENCODING, help,
                   "not UTF-8 text: %zu of its first %zu bytes are control bytes or not UTF-8 "
                   "(the first: byte 0x%02x at offset %zu)",
                   bad, n, (unsigned char)*first, (size_t)(first - src->text));
    return nul || bad * 8 > n;
}

/* The end of the input: from here on every call gives T_EOF. */
static void lex_eof(Lexer *lx)
{
    push(lx, T_EOF, lx->p)->text = tok_names[T_EOF];
    lx->eof = *lx->out;
    lx->at_eof = true;
}

Lexer *lex_open(Arena *a, Sink *s, const Source *src)
{
    Lexer *lx = arena_alloc(a, sizeof *lx);
    *lx = (Lexer){.arena = a, .sink = s, .src = src, .p = src->text, .end = src->text + src->len,
                  .line_start = src->text, .line = 1};
    if (lex_not_text(lx)) {
        lx->p = lx->end;           /* nothing of it is read as tokens */
        lx->line_start = lx->end;
    }
    return lx;
}

/* The next token into *out. Once the sink has stopped (too many errors),
 * the rest of the file is not read: the lexer ends the input there, so a
 * megabyte of junk costs 50 errors, not a million. */
void lex_next(Lexer *lx, Token *out)
{
    if (lx->at_eof) {
        *out = lx->eof;
        return;
    }
    lx->out = out;
    lx->produced = false;
    while (!lx->produced) {
        skip_space(lx);
        if (lx->p >= lx->end || lx->sink->stopped) {
            lex_eof(lx);
            return;
        }
        lex_one(lx);
    }
}

/* The whole file at once, for tests and tools that want the list (the
 * compiler itself streams: see parse_source). */
TokenList lex_source(Arena *a, Sink *s, const Source *src)
{
    Lexer *lx = lex_open(a, s, src);
    TokenList tl = {arena_alloc(a, 64 * sizeof(Token)), 0};
    int cap = 64;
    for (;;) {
        if (tl.n == cap) {
            Token *nt = arena_alloc(a, 2 * (size_t)cap * sizeof *nt);
            memcpy(nt, tl.v, (size_t)tl.n * sizeof *nt);
            tl.v = nt;
            cap *= 2;
        }
        lex_next(lx, &tl.v[tl.n]);
        if (tl.v[tl.n++].kind == T_EOF)
            return tl;
    }
}

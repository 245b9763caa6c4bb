/*
 * diag.c: the diagnostic sink.
 *
 * A refusal is what a CAIRN user sees most, so every one has the same shape:
 *
 *   file.cairn:5:13: error[E-COOP-UNORDERED]: what is wrong, with the witness
 *       5 |     let v = s[255 - t];
 *         |             ^^^^^^^^^^
 *     help: what to write instead
 *
 * or, with --json, one JSON object per line carrying the same fields. Stages
 * report into the sink and go on; the driver runs a stage only when the
 * earlier ones reported no error.
 */
#include "cairn.h"

#include <string.h>

static const char *const code_names[] = {
#define X(id, s) s,
    DIAG_CODES(X)
#undef X
};

const char *diag_code_name(DiagCode c)
{
    if ((int)c < 0 || c >= DIAG_NCODES)
        die("bad diagnostic code %d", (int)c);
    return code_names[c];
}

void sink_init(Sink *s, FILE *out, bool json)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->json = json;
    s->max_errors = 50;    /* a screenful or two: past that, the first ones are what help */
}

void sink_settle(Sink *s)
{
    if (s->stopped)
        s->errors = s->max_errors;
}

/* ------------------------------------------------------- text as shown */

/* Source text reaches diagnostics (the excerpt, a quoted name or token),
 * and it can hold bytes a terminal would act on: ESC starts a colour or
 * moves the cursor, a C1 control (U+009B is a CSI) does the same, and the
 * bidirectional overrides make a line read other than it is. Those, and
 * bytes that are not UTF-8, are shown escaped:
 *   a byte (a C0 control other than tab, DEL, or not UTF-8)   \x1b  \xff
 *   a code point (a C1 control, a bidirectional control)      \u{9b} \u{202e}
 * Everything else, tabs and printable UTF-8, is shown as it is. */
typedef struct {
    int bytes;            /* source bytes it takes */
    int cols;             /* columns it takes on screen (a tab: 1, shown as a tab) */
    char shown[16];       /* what is printed */
} Glyph;

static bool hidden_code_point(uint32_t c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

static Glyph glyph_at(const char *p, const char *end)
{
    Glyph g = {1, 1, {0}};
    unsigned char b = (unsigned char)*p;
    if (b == '\t' || (b >= 0x20 && b < 0x7f)) {
        g.shown[0] = (char)b;
        return g;
    }
    uint32_t c = 0;
    int n = b >= 0x80 ? utf8_decode(p, end, &c) : 0;
    if (n && !hidden_code_point(c)) {
        memcpy(g.shown, p, (size_t)n);
        g.bytes = n;
    } else if (n) {
        g.bytes = n;
        g.cols = snprintf(g.shown, sizeof g.shown, "\\u{%x}", (unsigned)c);
    } else {
        g.cols = snprintf(g.shown, sizeof g.shown, "\\x%02x", b);
    }
    return g;
}

void diag_write_text(FILE *f, const char *s, size_t n)
{
    for (const char *p = s, *end = s + n; p < end;) {
        Glyph g = glyph_at(p, end);
        fputs(g.shown, f);
        p += g.bytes;
    }
}

/* s escaped into dst (at most cap bytes with the NUL), cut at a glyph. */
static void text_escape(char *dst, size_t cap, const char *s)
{
    size_t n = 0;
    for (const char *p = s, *end = s + strlen(s); p < end;) {
        Glyph g = glyph_at(p, end);
        size_t k = strlen(g.shown);
        if (n + k + 1 > cap)
            break;
        memcpy(dst + n, g.shown, k);
        n += k;
        p += g.bytes;
    }
    dst[n] = '\0';
}

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *p = s, *end = s + strlen(s); p < end;) {
        unsigned char c = (unsigned char)*p;
        uint32_t cp;
        int n = utf8_decode(p, end, &cp);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else if (!n)
            fprintf(f, "\\\\x%02x", c);    /* no JSON string holds this byte: its escape, as text */
        else if (cp >= 0x80 && cp <= 0x9f)
            fprintf(f, "\\u%04x", (unsigned)cp);
        else
            fwrite(p, 1, (size_t)n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

/* ------------------------------------------------------------ printing */

/* The text of the 1-based line `line` of src: start and length (without its
 * `\r\n` or `\n`; a lone `\r` is no line break to the lexer, so none here). */
static const char *line_text(const Source *src, int line, int *len)
{
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e)
        e = end;
    if (e > p && e[-1] == '\r')
        e--;
    *len = (int)(e - p);
    return p;
}

static void print_json(Sink *s, Span at, const char *severity, const char *code, const char *help,
                       const char *msg)
{
    fprintf(s->out, "{\"severity\": \"%s\", \"code\": ", severity);
    json_write_string(s->out, code ? code : "");
    fprintf(s->out, ", \"file\": ");
    json_write_string(s->out, at.src ? at.src->name : "");
    fprintf(s->out, ", \"line\": %d, \"column\": %d, \"length\": %d, \"message\": ", at.line, at.col,
            at.len);
    json_write_string(s->out, msg);
    fprintf(s->out, ", \"help\": ");
    if (help)
        json_write_string(s->out, help);
    else
        fputs("null", s->out);
    fputs("}\n", s->out);
}

/* A long line (minified, generated, or a binary file's) is shown as a
 * window around the caret: at most EXCERPT_LEFT columns before it and
 * EXCERPT_COLS in all, with `...` where it is cut. */
enum { EXCERPT_COLS = 100, EXCERPT_LEFT = 40 };

static int text_cols(const char *p, const char *end)
{
    int cols = 0;
    while (p < end) {
        Glyph g = glyph_at(p, end);
        cols += g.cols;
        p += g.bytes;
    }
    return cols;
}

/* Where the shown part of [text, end) starts, for a caret at cs. */
static const char *excerpt_start(const char *text, const char *end, const char *cs)
{
    if (end - text <= 4 * EXCERPT_COLS && text_cols(text, end) <= EXCERPT_COLS)
        return text;
    const char *ws = cs - text > 4 * EXCERPT_LEFT ? cs - 4 * EXCERPT_LEFT : text;
    for (int i = 0; i < 3 && ws > text && ws < cs && ((unsigned char)*ws & 0xC0) == 0x80; i++)
        ws++;                          /* not in the middle of a character */
    int cols = text_cols(ws, cs);
    while (cols > EXCERPT_LEFT) {
        Glyph g = glyph_at(ws, end);
        cols -= g.cols;
        ws += g.bytes;
    }
    return ws;
}

/* Where the shown part that starts at ws ends: EXCERPT_COLS columns on, but
 * never before the caret's first character. */
static const char *excerpt_end(const char *ws, const char *end, const char *cs)
{
    int cols = 0;
    const char *p = ws;
    while (p < end && (cols < EXCERPT_COLS || p <= cs)) {
        Glyph g = glyph_at(p, end);
        cols += g.cols;
        p += g.bytes;
    }
    return p;
}

/* The caret line under the shown part [ws, we): blanks (a tab under a tab)
 * up to cs, then a caret a column up to ce; `past` more blanks when the
 * place is past the line's end (its end of file). */
static void print_carets(Sink *s, const char *ws, const char *we, const char *cs, const char *ce, int past)
{
    int carets = 0;
    for (const char *p = ws; p < we && p < ce;) {
        Glyph g = glyph_at(p, we);
        for (int i = 0; i < g.cols; i++)
            fputc(p >= cs ? '^' : g.shown[0] == '\t' ? '\t' : ' ', s->out);
        carets += p >= cs ? g.cols : 0;
        p += g.bytes;
    }
    for (int i = 0; i < past && i < EXCERPT_COLS; i++)
        fputc(' ', s->out);
    fputs(carets ? "\n" : "^\n", s->out);
}

/* The source line and the caret under the span, both escaped alike, so the
 * caret stays under the text it points at. */
static void print_excerpt(Sink *s, Span at)
{
    if (!at.src || at.line < 1)
        return;
    int len;
    const char *text = line_text(at.src, at.line, &len), *end = text + len;
    int col = at.col < 1 ? 0 : at.col - 1 > len ? len : at.col - 1, n = at.len > 0 ? at.len : 1;
    const char *cs = text + col, *ce = end - cs > n ? cs + n : end;
    const char *ws = excerpt_start(text, end, cs), *we = excerpt_end(ws, end, cs);
    fprintf(s->out, "%5d | %s", at.line, ws > text ? "..." : "");
    diag_write_text(s->out, ws, (size_t)(we - ws));
    fprintf(s->out, "%s\n      | %s", we < end ? "..." : "", ws > text ? "   " : "");
    print_carets(s, ws, we, cs, ce, at.col - 1 - len);
}

static void print_human(Sink *s, Span at, const char *severity, const char *code, const char *help,
                        const char *msg)
{
    if (at.src) {
        diag_write_text(s->out, at.src->name, strlen(at.src->name));
        fprintf(s->out, ":%d:%d: ", at.line, at.col);
    }
    if (code)
        fprintf(s->out, "%s[%s]: %s\n", severity, code, msg);
    else
        fprintf(s->out, "%s: %s\n", severity, msg);
    print_excerpt(s, at);
    if (help)
        fprintf(s->out, "  help: %s\n", help);
}

/* Message and help are escaped as the excerpt is: they may quote source. */
static void report(Sink *s, Span at, const char *severity, const char *code, const char *help,
                   const char *fmt, va_list ap)
{
    char raw[2048], msg[4 * sizeof raw], shown_help[4 * sizeof raw];
    vsnprintf(raw, sizeof raw, fmt, ap);
    text_escape(msg, sizeof msg, raw);
    if (help)
        text_escape(shown_help, sizeof shown_help, help);
    if (s->json)
        print_json(s, at, severity, code, help ? shown_help : NULL, msg);
    else
        print_human(s, at, severity, code, help ? shown_help : NULL, msg);
}

/* The line that ends a list cut short. In --json it is a note object, so
 * that every line of the stream stays one JSON object. */
static void report_stop(Sink *s)
{
    if (s->json)
        fprintf(s->out, "{\"severity\": \"note\", \"code\": \"\", \"file\": \"\", \"line\": 0, \"column\": 0, "
                        "\"length\": 0, \"message\": \"too many errors; stopping after %d\", \"help\": null}\n",
                s->max_errors);
    else
        fprintf(s->out, "cairn: too many errors; stopping after %d\n", s->max_errors);
}

void diag_error(Sink *s, Span at, DiagCode code, const char *help, const char *fmt, ...)
{
    s->errors++;
    if (s->stopped)
        return;
    if (s->max_errors && s->errors > s->max_errors) {
        s->stopped = true;
        report_stop(s);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(s, at, "error", diag_code_name(code), help, fmt, ap);
    va_end(ap);
}

void diag_note(Sink *s, Span at, const char *fmt, ...)
{
    if (s->stopped)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(s, at, "note", NULL, NULL, fmt, ap);
    va_end(ap);
}

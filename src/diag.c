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
    s->max_errors = 100;
}

/* The text of the 1-based line `line` of src: start and length. */
static const char *line_text(const Source *src, int line, int *len)
{
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    *len = (int)(e - p);
    return p;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void print_json(Sink *s, Span at, const char *severity, const char *code, const char *help,
                       const char *msg)
{
    fprintf(s->out, "{\"severity\": \"%s\", \"code\": ", severity);
    json_string(s->out, code ? code : "");
    fprintf(s->out, ", \"file\": ");
    json_string(s->out, at.src ? at.src->name : "");
    fprintf(s->out, ", \"line\": %d, \"column\": %d, \"length\": %d, \"message\": ", at.line, at.col,
            at.len);
    json_string(s->out, msg);
    fprintf(s->out, ", \"help\": ");
    if (help)
        json_string(s->out, help);
    else
        fputs("null", s->out);
    fputs("}\n", s->out);
}

/* Source line and caret, tabs kept as tabs so the caret lines up. */
static void print_excerpt(Sink *s, Span at)
{
    if (!at.src || at.line < 1)
        return;
    int len;
    const char *text = line_text(at.src, at.line, &len);
    fprintf(s->out, "%5d | %.*s\n      | ", at.line, len, text);
    for (int i = 0; i < at.col - 1 && i < len; i++)
        fputc(text[i] == '\t' ? '\t' : ' ', s->out);
    int n = at.len > 0 ? at.len : 1;
    if (at.col - 1 + n > len && len >= at.col)
        n = len - (at.col - 1);
    for (int i = 0; i < (n > 0 ? n : 1); i++)
        fputc('^', s->out);
    fputc('\n', s->out);
}

static void print_human(Sink *s, Span at, const char *severity, const char *code, const char *help,
                        const char *msg)
{
    if (at.src)
        fprintf(s->out, "%s:%d:%d: ", at.src->name, at.line, at.col);
    if (code)
        fprintf(s->out, "%s[%s]: %s\n", severity, code, msg);
    else
        fprintf(s->out, "%s: %s\n", severity, msg);
    print_excerpt(s, at);
    if (help)
        fprintf(s->out, "  help: %s\n", help);
}

static void report(Sink *s, Span at, const char *severity, const char *code, const char *help,
                   const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (s->json)
        print_json(s, at, severity, code, help, msg);
    else
        print_human(s, at, severity, code, help, msg);
}

void diag_error(Sink *s, Span at, DiagCode code, const char *help, const char *fmt, ...)
{
    s->errors++;
    if (s->max_errors && s->errors > s->max_errors) {
        if (s->errors == s->max_errors + 1 && !s->json)
            fprintf(s->out, "cairn: too many errors; stopping after %d\n", s->max_errors);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    report(s, at, "error", diag_code_name(code), help, fmt, ap);
    va_end(ap);
}

void diag_note(Sink *s, Span at, const char *fmt, ...)
{
    if (s->max_errors && s->errors > s->max_errors)
        return;
    va_list ap;
    va_start(ap, fmt);
    report(s, at, "note", NULL, NULL, fmt, ap);
    va_end(ap);
}

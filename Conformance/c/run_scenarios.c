/*
 * The conformance scenarios (Conformance/scenarios.jsonl) through the C door: include/smartstack.h
 * called as a host in C calls it (Conformance/README.md). CI runs it against libSmartStackC.so and
 * under AddressSanitizer and LeakSanitizer (.ci/bindings.sh).
 *
 *     cc -std=c11 -Wall -Wextra -Werror -pedantic -pthread -I include Conformance/c/run_scenarios.c \
 *        -L .build/debug -lSmartStackC -Wl,-rpath,$PWD/.build/debug -o run_scenarios
 *     ./run_scenarios Conformance/scenarios.jsonl
 *
 * A step whose input C cannot express (a value of the wrong type, which the compiler refuses; a
 * name holding a NUL, where a C string ends; an instant no int64 of nanoseconds holds) is skipped
 * and named. Exit status 0 when every other step gives what the scenario expects.
 */
#define _POSIX_C_SOURCE 200809L
#include "smartstack.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- A small JSON reader: the scenarios, and the library's answers ------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } json_type;

typedef struct json {
    json_type type;
    int boolean;
    char *text;          /* J_STRING: the decoded bytes (NUL-terminated, may hold NULs); J_NUMBER: as written */
    size_t length;       /* bytes of `text` */
    struct json *items;  /* J_ARRAY: the values; J_OBJECT: the values, with `keys` */
    char **keys;
    size_t count;
} json;

typedef struct {
    const char *at, *end;
    const char *error;
} json_reader;

static void *checked(void *pointer) {
    if (!pointer) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return pointer;
}

static void skip_space(json_reader *r) {
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r')) r->at++;
}

static int parse_value(json_reader *r, json *out);

static void append_byte(char **buffer, size_t *length, size_t *capacity, char byte) {
    if (*length + 2 > *capacity) {
        *capacity = *capacity ? *capacity * 2 : 32;
        *buffer = checked(realloc(*buffer, *capacity));
    }
    (*buffer)[(*length)++] = byte;
}

static void append_utf8(char **buffer, size_t *length, size_t *capacity, unsigned long c) {
    if (c < 0x80) {
        append_byte(buffer, length, capacity, (char)c);
    } else if (c < 0x800) {
        append_byte(buffer, length, capacity, (char)(0xC0 | (c >> 6)));
        append_byte(buffer, length, capacity, (char)(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        append_byte(buffer, length, capacity, (char)(0xE0 | (c >> 12)));
        append_byte(buffer, length, capacity, (char)(0x80 | ((c >> 6) & 0x3F)));
        append_byte(buffer, length, capacity, (char)(0x80 | (c & 0x3F)));
    } else {
        append_byte(buffer, length, capacity, (char)(0xF0 | (c >> 18)));
        append_byte(buffer, length, capacity, (char)(0x80 | ((c >> 12) & 0x3F)));
        append_byte(buffer, length, capacity, (char)(0x80 | ((c >> 6) & 0x3F)));
        append_byte(buffer, length, capacity, (char)(0x80 | (c & 0x3F)));
    }
}

static int hex4(json_reader *r, unsigned long *value) {
    if (r->end - r->at < 4) return 0;
    *value = 0;
    for (int i = 0; i < 4; i++) {
        char c = *r->at++;
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return 0;
        *value = *value * 16 + (unsigned long)digit;
    }
    return 1;
}

static int parse_string(json_reader *r, char **text, size_t *length) {
    size_t capacity = 0;
    *text = NULL;
    *length = 0;
    r->at++; /* the opening quote */
    while (r->at < r->end && *r->at != '"') {
        char c = *r->at++;
        if (c != '\\') {
            append_byte(text, length, &capacity, c);
            continue;
        }
        if (r->at >= r->end) break;
        char e = *r->at++;
        unsigned long code;
        switch (e) {
        case 'n': append_byte(text, length, &capacity, '\n'); break;
        case 't': append_byte(text, length, &capacity, '\t'); break;
        case 'r': append_byte(text, length, &capacity, '\r'); break;
        case 'b': append_byte(text, length, &capacity, '\b'); break;
        case 'f': append_byte(text, length, &capacity, '\f'); break;
        case 'u':
            if (!hex4(r, &code)) goto bad;
            if (code >= 0xD800 && code < 0xDC00 && r->end - r->at >= 6 && r->at[0] == '\\' && r->at[1] == 'u') {
                unsigned long low;
                r->at += 2;
                if (!hex4(r, &low)) goto bad;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(text, length, &capacity, code);
            break;
        default: append_byte(text, length, &capacity, e); break;
        }
    }
    if (r->at >= r->end) goto bad;
    r->at++;
    append_byte(text, length, &capacity, '\0');
    (*length)--;
    return 1;
bad:
    free(*text);
    *text = NULL;
    r->error = "bad string";
    return 0;
}

static void json_free(json *value) {
    free(value->text);
    for (size_t i = 0; i < value->count; i++) {
        json_free(&value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    memset(value, 0, sizeof *value);
}

static int parse_value(json_reader *r, json *out) {
    memset(out, 0, sizeof *out);
    skip_space(r);
    if (r->at >= r->end) {
        r->error = "unexpected end";
        return 0;
    }
    char c = *r->at;
    if (c == '"') {
        out->type = J_STRING;
        return parse_string(r, &out->text, &out->length);
    }
    if (c == '{' || c == '[') {
        int object = c == '{';
        out->type = object ? J_OBJECT : J_ARRAY;
        r->at++;
        size_t capacity = 0;
        skip_space(r);
        if (r->at < r->end && *r->at == (object ? '}' : ']')) {
            r->at++;
            return 1;
        }
        for (;;) {
            if (out->count == capacity) {
                capacity = capacity ? capacity * 2 : 4;
                out->items = checked(realloc(out->items, capacity * sizeof *out->items));
                if (object) out->keys = checked(realloc(out->keys, capacity * sizeof *out->keys));
            }
            if (object) {
                skip_space(r);
                size_t key_length;
                if (r->at >= r->end || *r->at != '"' || !parse_string(r, &out->keys[out->count], &key_length)) {
                    r->error = "bad key";
                    return 0;
                }
                skip_space(r);
                if (r->at >= r->end || *r->at != ':') {
                    free(out->keys[out->count]);
                    r->error = "no colon";
                    return 0;
                }
                r->at++;
            }
            if (!parse_value(r, &out->items[out->count])) {
                if (object) free(out->keys[out->count]);
                return 0;
            }
            out->count++;
            skip_space(r);
            if (r->at < r->end && *r->at == ',') {
                r->at++;
                continue;
            }
            if (r->at < r->end && *r->at == (object ? '}' : ']')) {
                r->at++;
                return 1;
            }
            r->error = "bad separator";
            return 0;
        }
    }
    if (r->end - r->at >= 4 && !strncmp(r->at, "null", 4)) {
        r->at += 4;
        out->type = J_NULL;
        return 1;
    }
    if (r->end - r->at >= 4 && !strncmp(r->at, "true", 4)) {
        r->at += 4;
        out->type = J_BOOL;
        out->boolean = 1;
        return 1;
    }
    if (r->end - r->at >= 5 && !strncmp(r->at, "false", 5)) {
        r->at += 5;
        out->type = J_BOOL;
        return 1;
    }
    const char *start = r->at;
    while (r->at < r->end && strchr("+-0123456789.eE", *r->at)) r->at++;
    if (r->at == start) {
        r->error = "unexpected character";
        return 0;
    }
    out->type = J_NUMBER;
    out->length = (size_t)(r->at - start);
    out->text = checked(malloc(out->length + 1));
    memcpy(out->text, start, out->length);
    out->text[out->length] = '\0';
    return 1;
}

static int json_parse(const char *text, size_t length, json *out) {
    json_reader r = {text, text + length, NULL};
    if (!parse_value(&r, out)) {
        json_free(out);
        return 0;
    }
    return 1;
}

static const json *field(const json *object, const char *key) {
    if (!object || object->type != J_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (!strcmp(object->keys[i], key)) return &object->items[i];
    return NULL;
}

static const char *string_field(const json *object, const char *key) {
    const json *value = field(object, key);
    return value && value->type == J_STRING ? value->text : NULL;
}

/* ---- Failures, skipped steps ---------------------------------------------------------------- */

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures, steps_run, steps_skipped;
static char where[512];

static void fail(const char *format, ...) {
    pthread_mutex_lock(&report_lock);
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "FAIL %s: ", where);
    vfprintf(stderr, format, arguments);
    fputc('\n', stderr);
    va_end(arguments);
    failures++;
    pthread_mutex_unlock(&report_lock);
}

/* Why a step cannot be written in C, or NULL. */
typedef const char *inexpressible;

/* ---- Values as a C host holds them ------------------------------------------------------------ */

typedef struct {
    char *bytes;   /* NULL for a NULL argument */
    size_t length;
} buffer;

static void substitute(buffer *b, long index) {
    if (index < 0 || !b->bytes) return;
    char digits[24];
    int width = snprintf(digits, sizeof digits, "%ld", index);
    for (char *at = strstr(b->bytes, "{i}"); at; at = strstr(at + width, "{i}")) {
        size_t before = (size_t)(at - b->bytes), after = b->length - before - 3;
        char *grown = checked(malloc(b->length - 3 + (size_t)width + 1));
        memcpy(grown, b->bytes, before);
        memcpy(grown + before, digits, (size_t)width);
        memcpy(grown + before + (size_t)width, at + 3, after + 1);
        free(b->bytes);
        b->bytes = grown;
        b->length = b->length - 3 + (size_t)width;
        at = b->bytes + before;
    }
}

/* A text value: a string, {"hex"}, {"repeat","count"}, {"concat":[...]}; NULL for null. */
static inexpressible text_value(const json *value, buffer *out, long index) {
    out->bytes = NULL;
    out->length = 0;
    if (!value || value->type == J_NULL) return NULL;
    if (value->type == J_STRING) {
        out->bytes = checked(malloc(value->length + 1));
        memcpy(out->bytes, value->text, value->length + 1);
        out->length = value->length;
        substitute(out, index);
        return NULL;
    }
    if (field(value, "wrong_type")) return "a value of another type: C's compiler refuses it";
    const char *hex = string_field(value, "hex");
    if (hex) {
        out->length = strlen(hex) / 2;
        out->bytes = checked(malloc(out->length + 1));
        for (size_t i = 0; i < out->length; i++) {
            unsigned int byte;
            sscanf(hex + 2 * i, "%2x", &byte);
            out->bytes[i] = (char)byte;
        }
        out->bytes[out->length] = '\0';
        return NULL;
    }
    const json *repeat = field(value, "repeat");
    if (repeat) {
        size_t count = (size_t)strtoull(field(value, "count")->text, NULL, 10);
        out->length = repeat->length * count;
        out->bytes = checked(malloc(out->length + 1));
        for (size_t i = 0; i < count; i++) memcpy(out->bytes + i * repeat->length, repeat->text, repeat->length);
        out->bytes[out->length] = '\0';
        return NULL;
    }
    const json *parts = field(value, "concat");
    if (parts) {
        out->bytes = checked(calloc(1, 1));
        for (size_t i = 0; i < parts->count; i++) {
            buffer part;
            inexpressible why = text_value(&parts->items[i], &part, index);
            if (why) return why;
            out->bytes = checked(realloc(out->bytes, out->length + part.length + 1));
            memcpy(out->bytes + out->length, part.bytes, part.length + 1);
            out->length += part.length;
            free(part.bytes);
        }
        return NULL;
    }
    return "an unknown kind of value";
}

/* A name: a text that must fit a C string. */
static inexpressible name_value(const json *value, buffer *out) {
    inexpressible why = text_value(value, out, -1);
    if (!why && out->bytes && strlen(out->bytes) != out->length) {
        free(out->bytes);
        out->bytes = NULL;
        return "a name holding a NUL character: a C string ends there";
    }
    return why;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static long long days_from_civil(long long y, long long m, long long d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* An instant: RFC 3339 text, or {"unix_ns": "...", "offset": n}. */
static inexpressible instant_value(const json *value, int64_t *at, int32_t *offset) {
    if (value && value->type == J_STRING) {
        const char *t = value->text;
        long long y, mo, d, h, mi, s;
        if (sscanf(t, "%4lld-%2lld-%2lldT%2lld:%2lld:%2lld", &y, &mo, &d, &h, &mi, &s) != 6) return "an unreadable instant";
        const char *rest = t + 19;
        long long fraction = 0;
        int digits = 0;
        if (*rest == '.') {
            for (rest++; *rest >= '0' && *rest <= '9'; rest++, digits++) fraction = fraction * 10 + (*rest - '0');
            for (; digits < 9; digits++) fraction *= 10;
        }
        long long off = 0;
        if (*rest == '+' || *rest == '-') {
            long long oh, om;
            if (sscanf(rest + 1, "%2lld:%2lld", &oh, &om) != 2) return "an unreadable offset";
            off = (*rest == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        }
        long long seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off, ns;
        if (__builtin_mul_overflow(seconds, 1000000000LL, &ns) || __builtin_add_overflow(ns, fraction, &ns))
            return "an instant no int64 of nanoseconds holds (years 1677-2262)";
        *at = (int64_t)ns;
        *offset = (int32_t)off;
        return NULL;
    }
    if (value && field(value, "wrong_type")) return "a value of another type: C's compiler refuses it";
    const char *ns = string_field(value, "unix_ns");
    if (!ns) return "an unknown kind of instant";
    errno = 0;
    *at = (int64_t)strtoll(ns, NULL, 10);
    *offset = (int32_t)strtol(field(value, "offset")->text, NULL, 10);
    return NULL;
}

/* An event object as a JSONL line: {"float": "nan"} is written as the token JSON lacks. */
static void write_json(FILE *out, const json *value) {
    switch (value->type) {
    case J_NULL: fputs("null", out); break;
    case J_BOOL: fputs(value->boolean ? "true" : "false", out); break;
    case J_NUMBER: fputs(value->text, out); break;
    case J_STRING:
        fputc('"', out);
        for (size_t i = 0; i < value->length; i++) {
            unsigned char c = (unsigned char)value->text[i];
            if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
            else if (c < 0x20) fprintf(out, "\\u%04x", c);
            else fputc(c, out);
        }
        fputc('"', out);
        break;
    case J_ARRAY:
        fputc('[', out);
        for (size_t i = 0; i < value->count; i++) {
            if (i) fputc(',', out);
            write_json(out, &value->items[i]);
        }
        fputc(']', out);
        break;
    case J_OBJECT: {
        const char *special = string_field(value, "float");
        if (special) {
            fputs(!strcmp(special, "nan") ? "NaN" : !strcmp(special, "-inf") ? "-Infinity" : "Infinity", out);
            break;
        }
        fputc('{', out);
        for (size_t i = 0; i < value->count; i++) {
            if (i) fputc(',', out);
            json key = {J_STRING, 0, value->keys[i], strlen(value->keys[i]), NULL, NULL, 0};
            write_json(out, &key);
            fputc(':', out);
            write_json(out, &value->items[i]);
        }
        fputc('}', out);
        break;
    }
    }
}

static inexpressible events_value(const json *value, buffer *out, long index) {
    if (value->type != J_ARRAY) return "a value of another type: C's compiler refuses it";
    for (size_t i = 0; i < value->count; i++)
        if (value->items[i].type != J_OBJECT || field(&value->items[i], "wrong_type")) return "a value of another type: C's compiler refuses it";
    FILE *stream = open_memstream(&out->bytes, &out->length);
    for (size_t i = 0; i < value->count; i++) {
        write_json(stream, &value->items[i]);
        fputc('\n', stream);
    }
    fclose(stream);
    substitute(out, index);
    return NULL;
}

/* ---- Steps ------------------------------------------------------------------------------------ */

static const char *status_names[] = {"OK", "NULL_ARGUMENT", "INVALID_UTF8", "INVALID_ARGUMENT", "CLOSED", "INVALID_EVENT",
                                     "UNKNOWN_STACK", "UNKNOWN_USER", "INVALID_POLICY", "STORAGE", "BUSY", "INTERNAL"};

typedef struct {
    const json *scenario;
    smartstack_engine *engine;
    char path[256];
    const char *policy, *rotation;
    uint64_t seed;
    pthread_mutex_t totals_lock;
    uint64_t inserted, duplicates;
} run;

/* The widget names of a ranking (JSON) and whether they match the expectation. */
static void check_answer(const char *answer, const json *expect, int is_decision) {
    json result;
    if (!json_parse(answer, strlen(answer), &result)) {
        fail("the library's answer is not JSON: %.200s", answer);
        return;
    }
    const json *ranking = field(&result, "ranking");
    const json *top = is_decision ? field(&result, "top") : ranking && ranking->count ? field(&ranking->items[0], "widget") : NULL;
    const json *expected = field(expect, "top");
    if (expected) {
        int same = expected->type == J_NULL ? !top || top->type == J_NULL
                                            : top && top->type == J_STRING && !strcmp(top->text, expected->text);
        if (!same) fail("top %s, expected %s", top && top->type == J_STRING ? top->text : "null",
                        expected->type == J_STRING ? expected->text : "null");
    }
    expected = field(expect, "order");
    if (expected) {
        int same = ranking && ranking->count == expected->count;
        for (size_t i = 0; same && i < expected->count; i++)
            same = !strcmp(string_field(&ranking->items[i], "widget"), expected->items[i].text);
        if (!same) fail("the order is not the one expected (%zu widgets): %.300s", ranking ? ranking->count : 0, answer);
    }
    expected = field(expect, "count");
    if (expected && (!ranking || ranking->count != (size_t)strtoull(expected->text, NULL, 10)))
        fail("%zu widgets, expected %s", ranking ? ranking->count : 0, expected->text);
    expected = field(expect, "rotated");
    const json *rotated = field(&result, "rotated");
    if (expected && (!rotated || rotated->boolean != expected->boolean))
        fail("rotated %s, expected %s", rotated && rotated->boolean ? "true" : "false", expected->boolean ? "true" : "false");
    json_free(&result);
}

static smartstack_status open_engine(run *r) {
    return smartstack_open(r->path, r->policy, r->rotation, r->seed, &r->engine);
}

/* Runs one step; returns 0 when it was skipped as inexpressible (the reason in *why). */
static int step(run *r, const json *s, long index, inexpressible *why, uint64_t *inserted, uint64_t *duplicates) {
    const char *call = string_field(s, "call");
    const json *expect = field(s, "expect");
    smartstack_status status = SMARTSTACK_OK;
    char *answer = NULL;
    uint64_t count_a = 0, count_b = 0;
    buffer a = {0}, b = {0};
    *why = NULL;
    int is_decision = 0;
    if (!strcmp(call, "configure")) {
        const json *widgets = field(s, "widgets");
        int64_t at = 0;
        int32_t offset = 0;
        if ((*why = name_value(field(s, "user"), &a)) || (*why = name_value(field(s, "stack"), &b))) goto skip;
        if (widgets->type != J_ARRAY) {
            *why = "a value of another type: C's compiler refuses it";
            goto skip;
        }
        size_t n = widgets->count;
        buffer *ids = checked(calloc(n + 1, sizeof *ids)), *apps = checked(calloc(n + 1, sizeof *apps));
        const char **id_texts = checked(calloc(n + 1, sizeof *id_texts)), **app_texts = checked(calloc(n + 1, sizeof *app_texts));
        for (size_t i = 0; i < n && !*why; i++) {
            if (!(*why = name_value(field(&widgets->items[i], "id"), &ids[i]))) *why = name_value(field(&widgets->items[i], "app"), &apps[i]);
            id_texts[i] = ids[i].bytes;
            app_texts[i] = apps[i].bytes;
        }
        if (!*why) *why = instant_value(field(s, "at"), &at, &offset);
        if (!*why) status = smartstack_configure(r->engine, a.bytes, b.bytes, id_texts, app_texts, n, at, offset);
        for (size_t i = 0; i < n; i++) {
            free(ids[i].bytes);
            free(apps[i].bytes);
        }
        free(ids);
        free(apps);
        free(id_texts);
        free(app_texts);
        if (*why) goto skip;
    } else if (!strcmp(call, "record") || !strcmp(call, "pin") || !strcmp(call, "unpin")) {
        if (field(s, "jsonl")) {
            if ((*why = text_value(field(s, "jsonl"), &a, index))) goto skip;
        } else if (field(s, "events")) {
            if ((*why = events_value(field(s, "events"), &a, index))) goto skip;
        } else {
            FILE *stream = open_memstream(&a.bytes, &a.length);
            fprintf(stream, "{\"time\":\"%s\",\"type\":\"widget_%s\",\"user\":\"%s\",\"stack\":\"%s\",\"widget\":\"%s\"}\n",
                    string_field(s, "at"), call, string_field(s, "user"), string_field(s, "stack"), string_field(s, "widget"));
            fclose(stream);
        }
        status = smartstack_record(r->engine, a.bytes ? a.bytes : "", a.length, &count_a, &count_b);
        if (status == SMARTSTACK_OK) {
            *inserted += count_a;
            *duplicates += count_b;
        }
    } else if (!strcmp(call, "decide") || !strcmp(call, "rank")) {
        int64_t at = 0;
        int32_t offset = 0;
        if ((*why = name_value(field(s, "stack"), &a)) || (*why = name_value(field(s, "user"), &b)) ||
            (*why = instant_value(field(s, "at"), &at, &offset)))
            goto skip;
        const json *explain = field(s, "explain");
        is_decision = !strcmp(call, "decide");
        status = is_decision ? smartstack_decide(r->engine, a.bytes, b.bytes, at, offset, explain ? explain->boolean : 1, &answer, NULL)
                             : explain ? smartstack_rank_explained(r->engine, a.bytes, b.bytes, at, offset, explain->boolean, &answer, NULL)
                                       : smartstack_rank(r->engine, a.bytes, b.bytes, at, offset, &answer, NULL);
    } else if (!strcmp(call, "forget") || !strcmp(call, "erase")) {
        int user = !strcmp(call, "forget");
        if ((*why = name_value(field(s, user ? "user" : "app"), &a))) goto skip;
        status = user ? smartstack_erase_user(r->engine, a.bytes, &count_a) : smartstack_erase_app(r->engine, a.bytes, &count_a);
    } else if (!strcmp(call, "flush")) {
        status = smartstack_flush(r->engine);
    } else if (!strcmp(call, "close")) {
        status = smartstack_close(r->engine);
    } else if (!strcmp(call, "reopen")) {
        smartstack_close(r->engine);
        status = open_engine(r);
    } else if (!strcmp(call, "open")) {
        smartstack_engine *other = NULL;
        const json *seed = field(s, "seed");
        status = smartstack_open(":memory:", string_field(s, "policy"), string_field(s, "rotation"),
                                 seed ? strtoull(seed->text, NULL, 10) : 0, &other);
        if (status == SMARTSTACK_OK) smartstack_close(other);   /* a failure's message is under no handle */
    } else {
        fail("unknown call %s", call);
        return 1;
    }

    const char *kind = field(expect, "error") ? string_field(expect, "error") : NULL;
    const char *message = smartstack_last_error(!strcmp(call, "open") ? NULL : r->engine);
    if (status != SMARTSTACK_OK) {
        const char *name = (unsigned)status < sizeof status_names / sizeof *status_names ? status_names[status] : "?";
        if (!kind) fail("expected success, got %s: %.300s", name, message);
        else if (strcmp(kind, name)) fail("expected %s, got %s: %.300s", kind, name, message);
        const json *fragments = field(expect, "message");
        for (size_t i = 0; kind && fragments && i < fragments->count; i++)
            if (!strstr(message, fragments->items[i].text)) fail("the message lacks '%s': %.300s", fragments->items[i].text, message);
    } else if (kind) {
        fail("expected %s, but the call succeeded", kind);
    } else if (answer) {
        check_answer(answer, expect, is_decision);
    }
    if (status == SMARTSTACK_OK && !kind) {
        const json *e = field(expect, "inserted");
        if (e && index < 0 && (count_a != strtoull(e->text, NULL, 10) || count_b != strtoull(field(expect, "duplicates")->text, NULL, 10)))
            fail("recorded %llu and %llu duplicates, expected %s and %s", (unsigned long long)count_a,
                 (unsigned long long)count_b, e->text, field(expect, "duplicates")->text);
        e = field(expect, "deleted");
        if (e && count_a != strtoull(e->text, NULL, 10)) fail("deleted %llu, expected %s", (unsigned long long)count_a, e->text);
    }
    smartstack_free(answer);
    free(a.bytes);
    free(b.bytes);
    steps_run++;
    return 1;
skip:
    free(a.bytes);
    free(b.bytes);
    return 0;
}

/* ---- Threads, scenarios, main ----------------------------------------------------------------- */

typedef struct {
    run *r;
    const json *step;
} thread_work;

static void *thread_main(void *argument) {
    thread_work *work = argument;
    const json *steps = field(work->step, "steps");
    long repeat = strtol(field(work->step, "repeat")->text, NULL, 10);
    uint64_t inserted = 0, duplicates = 0;
    for (long i = 0; i < repeat; i++) {
        for (size_t k = 0; k < steps->count; k++) {
            inexpressible why;
            if (!step(work->r, &steps->items[k], i, &why, &inserted, &duplicates)) fail("a thread step is not expressible: %s", why);
        }
    }
    pthread_mutex_lock(&work->r->totals_lock);
    work->r->inserted += inserted;
    work->r->duplicates += duplicates;
    pthread_mutex_unlock(&work->r->totals_lock);
    return NULL;
}

static void threads(run *r, const json *s) {
    long count = strtol(field(s, "count")->text, NULL, 10);
    pthread_t *ids = checked(calloc((size_t)count, sizeof *ids));
    thread_work work = {r, s};
    r->inserted = r->duplicates = 0;
    for (long t = 0; t < count; t++) pthread_create(&ids[t], NULL, thread_main, &work);
    for (long t = 0; t < count; t++) pthread_join(ids[t], NULL);
    free(ids);
    const json *expect = field(s, "expect");
    const json *e = field(expect, "inserted");
    if (e && (r->inserted != strtoull(e->text, NULL, 10) || r->duplicates != strtoull(field(expect, "duplicates")->text, NULL, 10)))
        fail("the threads recorded %llu and %llu duplicates, expected %s and %s", (unsigned long long)r->inserted,
             (unsigned long long)r->duplicates, e->text, field(expect, "duplicates")->text);
    steps_run++;
}

static void scenario(const json *sc, const char *directory) {
    const char *name = string_field(sc, "name");
    const json *options = field(sc, "open");
    const json *file = field(options, "file"), *seed = field(options, "seed");
    run r = {sc, NULL, "", string_field(options, "policy"), string_field(options, "rotation"),
             seed ? strtoull(seed->text, NULL, 10) : 0, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    if (file && file->boolean) {
        snprintf(r.path, sizeof r.path, "%s/%s.sqlite", directory, name);
        unlink(r.path);
    } else {
        strcpy(r.path, ":memory:");
    }
    snprintf(where, sizeof where, "%s (open)", name);
    if (open_engine(&r) != SMARTSTACK_OK) {
        fail("cannot open: %s", smartstack_last_error(NULL));
        return;
    }
    const json *steps = field(sc, "steps");
    for (size_t i = 0; i < steps->count; i++) {
        const json *s = &steps->items[i];
        snprintf(where, sizeof where, "%s step %zu (%s)", name, i + 1, string_field(s, "call"));
        if (!strcmp(string_field(s, "call"), "threads")) {
            threads(&r, s);
            continue;
        }
        inexpressible why;
        uint64_t inserted = 0, duplicates = 0;
        if (step(&r, s, -1, &why, &inserted, &duplicates)) continue;
        steps_skipped++;
        printf("skipped %s: %s\n", where, why);
        if (field(field(s, "expect"), "error") == NULL) {
            printf("skipped %s: the rest of the scenario (it builds on this step)\n", name);
            break;
        }
    }
    smartstack_close(r.engine);
    if (file && file->boolean) {
        char other[300];
        unlink(r.path);
        snprintf(other, sizeof other, "%s-wal", r.path);
        unlink(other);
        snprintf(other, sizeof other, "%s-shm", r.path);
        unlink(other);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s Conformance/scenarios.jsonl [name ...]\n", argv[0]);
        return 64;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    char directory[] = "/tmp/smartstack-conformance-XXXXXX";
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        return 1;
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int scenarios = 0, line_number = 0;
    while ((length = getline(&line, &capacity, in)) > 0) {
        line_number++;
        if (length <= 1) continue;
        json sc;
        if (!json_parse(line, (size_t)length, &sc)) {
            fprintf(stderr, "%s:%d: not a JSON scenario\n", argv[1], line_number);
            return 1;
        }
        int selected = argc == 2;
        for (int i = 2; i < argc; i++) selected |= !strcmp(argv[i], string_field(&sc, "name"));
        if (selected) {
            int before = failures;
            scenario(&sc, directory);
            scenarios++;
            printf("%s %s\n", failures == before ? "ok  " : "FAIL", string_field(&sc, "name"));
        }
        json_free(&sc);
    }
    free(line);
    fclose(in);
    rmdir(directory);
    printf("conformance (C door): %d scenarios, %d steps run, %d steps not expressible in C, %d failed checks\n", scenarios,
           steps_run, steps_skipped, failures);
    return failures ? 1 : 0;
}

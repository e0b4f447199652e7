/*
 * libFuzzer target: sequences of calls through the C API (include/smartstack.h), as a host in C
 * makes them, checking the contract (docs/contract.md) after each. Built and run by
 * .ci/bindings.sh (FUZZ_SECONDS each target), seeds in Fuzz/Corpus/capi-sequence.
 *
 * The input is a program: each operation is one byte (its low 4 bits pick the call, its high 4
 * bits a small argument), followed by what that call reads from the input (names up to a NUL,
 * any bytes, so invalid UTF-8 too; raw instants; a JSONL chunk with its length). Calls: open a new
 * engine (closing the current one), configure, record, decide (JSON), decide (packed), rank,
 * flush, erase a user, erase an app, close, and a call on a closed or never-opened handle.
 *
 * Invariants, any failure aborts (a crash for libFuzzer):
 *  - every status is one of the header's, never INTERNAL, and a failure has a message;
 *  - outputs are NULL or 0 on failure, well formed on success (JSON object, packed pointers
 *    inside their block, the top one of the ranking's eligible widgets);
 *  - an instant outside 1678...2261 (or an offset that is not whole minutes within +-23:59) is
 *    INVALID_ARGUMENT, whatever else is wrong, unless the handle is closed (CLOSED comes first);
 *  - a rank changes nothing: ranking twice at the same instant gives the same bytes;
 *  - a past answer leaves the live rotation alone: decide at t, decide at an earlier instant,
 *    decide at t again gives the same top as deciding at t twice;
 *  - after close, every call on the handle is CLOSED.
 */
#define _POSIX_C_SOURCE 200809L
#include "smartstack.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void require(int condition, const char *what) {
    if (!condition) {
        fprintf(stderr, "fuzz check failed: %s\n", what);
        abort();
    }
}

static void check_status(smartstack_status status, const smartstack_engine *engine) {
    require(status >= SMARTSTACK_OK && status <= SMARTSTACK_ERROR_INTERNAL, "a status outside the enum");
    if (status == SMARTSTACK_ERROR_INTERNAL) fprintf(stderr, "internal: %s\n", smartstack_last_error(engine));
    require(status != SMARTSTACK_ERROR_INTERNAL, "an internal error (a bug)");
    require(status == SMARTSTACK_OK || smartstack_last_error(engine)[0] != '\0', "a failure without a message");
}

/* The input, read as it is consumed. */
typedef struct {
    const uint8_t *data;
    size_t size;
} input;

static uint8_t take_byte(input *in) {
    if (!in->size) return 0;
    in->size--;
    return *in->data++;
}

static uint64_t take_u64(input *in) {
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value = value << 8 | take_byte(in);
    return value;
}

/* A name: bytes up to a NUL (at most 48), or one of a few usual names. */
static char *take_name(input *in, uint8_t pick) {
    static const char *usual[] = {"home", "me", "calendar", "weather", "music", "com.apple.mobilecal", "", "you"};
    if (pick < 8) {
        char *copy = malloc(strlen(usual[pick]) + 1);
        strcpy(copy, usual[pick]);
        return copy;
    }
    size_t n = 0;
    while (n < in->size && n < 48 && in->data[n] != 0) n++;
    char *name = malloc(n + 1);
    memcpy(name, in->data, n);
    name[n] = 0;
    size_t used = n < in->size ? n + 1 : n;
    in->data += used;
    in->size -= used;
    return name;
}

static const int64_t T0 = 1772456400LL * 1000000000LL; /* 2026-03-02T13:00:00Z */
static const int64_t MINUTE = 60LL * 1000000000LL;

/* An instant: mostly minutes after T0 with a real offset, sometimes raw. */
static void take_instant(input *in, uint8_t pick, int64_t *at, int32_t *offset) {
    if (pick & 8) {
        *at = (int64_t)take_u64(in);
        *offset = (int32_t)(take_u64(in) & 0xFFFFFFFF);
    } else {
        *at = T0 + (int64_t)take_byte(in) * 20 * MINUTE + (int64_t)(pick & 7) * MINUTE;
        *offset = (int32_t)((int)take_byte(in) % 48 - 24) * 3600 / 2;
    }
}

/* Whether the contract refuses the instant itself (docs/contract.md, "Time"). */
static int instant_is_refused(int64_t at, int32_t offset) {
    if (offset % 60 != 0 || offset > 86340 || offset < -86340) return 1;
    int64_t local;
    if (__builtin_add_overflow(at, (int64_t)offset * 1000000000LL, &local)) return 1;
    /* 1678-01-01T00:00:00 and 2262-01-01T00:00:00 local, in nanoseconds since 1970. */
    return local < -9214560000LL * 1000000000LL || local >= 9214646400LL * 1000000000LL;
}

typedef struct {
    smartstack_engine *engine;
    int closed;           /* the handle was closed: every call must be CLOSED */
    int explores;         /* the policy draws at random (bandit): two decisions may differ */
} state;

static void answer(state *s, const char *stack, const char *user, int64_t at, int32_t offset, int rank, char **out) {
    char *json = NULL;
    size_t length = 0;
    smartstack_status status = rank ? smartstack_rank(s->engine, stack, user, at, offset, &json, &length)
                                    : smartstack_decide(s->engine, stack, user, at, offset, 1, &json, &length);
    check_status(status, s->engine);
    if (s->closed) require(status == SMARTSTACK_ERROR_CLOSED, "a call on a closed handle was not CLOSED");
    else if (instant_is_refused(at, offset)) {
        /* The names are checked first (the order of the parameters): a name that is not UTF-8 wins. */
        require(status == SMARTSTACK_ERROR_INVALID_ARGUMENT || status == SMARTSTACK_ERROR_INVALID_UTF8,
                "an unsupported instant was not INVALID_ARGUMENT");
    }
    if (status == SMARTSTACK_OK) {
        require(json != NULL && strlen(json) == length && json[0] == '{' && json[length - 1] == '}', "malformed JSON");
    } else {
        require(json == NULL && length == 0, "outputs set on failure");
    }
    if (out) *out = json;
    else smartstack_free(json);
}

static void check_text(smartstack_text text, const char *block, size_t size) {
    require(text.bytes >= block && text.bytes + text.length < block + size && text.bytes[text.length] == '\0',
            "a packed text outside its block or without its NUL");
}

static void decide_packed(state *s, const char *stack, const char *user, int64_t at, int32_t offset, int explain) {
    smartstack_decision *d = NULL;
    smartstack_status status = smartstack_decide_packed(s->engine, stack, user, at, offset, explain, &d);
    check_status(status, s->engine);
    if (s->closed) require(status == SMARTSTACK_ERROR_CLOSED, "a call on a closed handle was not CLOSED");
    if (status != SMARTSTACK_OK) {
        require(d == NULL, "out_decision set on failure");
        return;
    }
    const char *block = (const char *)d;
    require(d->size >= sizeof *d, "no packed decision");
    check_text(d->stack, block, d->size);
    check_text(d->user, block, d->size);
    check_text(d->policy, block, d->size);
    int top_found = d->top.bytes == NULL;
    size_t reasons = 0;
    for (size_t i = 0; i < d->widget_count; i++) {
        const smartstack_ranked_widget *w = &d->widgets[i];
        require((const char *)(w + 1) <= block + d->size, "a widget outside the block");
        check_text(w->widget, block, d->size);
        require(explain || w->reason_count == 0, "reasons without explain");
        for (size_t k = 0; k < w->reason_count; k++) check_text(w->reasons[k].text, block, d->size);
        reasons += w->reason_count;
        if (d->top.bytes && w->widget.length == d->top.length && !memcmp(w->widget.bytes, d->top.bytes, d->top.length)) {
            require(w->eligible, "the top is not eligible");
            top_found = 1;
        }
    }
    require(top_found, "the top is not in the ranking");
    require(reasons == d->reason_count, "reason counts disagree");
    require(d->propensity > 0 && d->propensity <= 1, "a propensity outside (0, 1]");
    smartstack_free_decision(d);
}

/* The "top" of a decision's JSON (a copy), or NULL. */
static char *top_of(const char *json) {
    const char *at = json ? strstr(json, "\"top\":") : NULL;
    if (!at || at[6] != '"') return NULL;
    const char *end = strstr(at + 7, "\",\"rotated\"");
    if (!end) return NULL;
    size_t n = (size_t)(end - (at + 7));
    char *top = malloc(n + 1);
    memcpy(top, at + 7, n);
    top[n] = 0;
    return top;
}

static void open_engine(state *s, uint8_t pick) {
    if (s->engine && !s->closed) check_status(smartstack_close(s->engine), s->engine);
    static const char *policies[] = {NULL, "bandit", "frecency", "mru"};
    smartstack_status status = smartstack_open(":memory:", policies[pick & 3], pick & 4 ? "margin=0,dwell=0s" : NULL, pick, &s->engine);
    require(status == SMARTSTACK_OK && s->engine, "cannot open an in-memory engine");
    s->closed = 0;
    s->explores = (pick & 3) == 1;
    const char *ids[] = {"calendar", "weather", "music"};
    const char *apps[] = {"com.apple.mobilecal", "com.apple.weather", NULL};
    check_status(smartstack_configure(s->engine, "me", "home", ids, apps, 3, T0 - 60 * MINUTE, -18000), s->engine);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size};
    state s = {NULL, 0, 0};
    open_engine(&s, 0);
    for (int steps = 0; in.size && steps < 64; steps++) {
        uint8_t op = take_byte(&in), call = op & 15, pick = op >> 4;
        int64_t at;
        int32_t offset;
        uint64_t a = 0, b = 0;
        switch (call) {
        case 0:
            open_engine(&s, pick);
            break;
        case 1: { /* configure */
            char *user = take_name(&in, pick & 7), *stack = take_name(&in, take_byte(&in) & 15);
            char *w1 = take_name(&in, take_byte(&in) & 15), *w2 = take_name(&in, take_byte(&in) & 15);
            const char *ids[] = {w1, w2};
            take_instant(&in, pick, &at, &offset);
            smartstack_status status = smartstack_configure(s.engine, user, stack, ids, NULL, pick & 1 ? 2 : 1, at, offset);
            check_status(status, s.engine);
            if (s.closed) require(status == SMARTSTACK_ERROR_CLOSED, "configure on a closed handle was not CLOSED");
            free(user), free(stack), free(w1), free(w2);
            break;
        }
        case 2: { /* record a chunk of JSONL */
            size_t n = take_byte(&in) * 4u;
            if (n > in.size) n = in.size;
            smartstack_status status = smartstack_record(s.engine, (const char *)in.data, n, &a, &b);
            in.data += n;
            in.size -= n;
            check_status(status, s.engine);
            if (s.closed) require(status == SMARTSTACK_ERROR_CLOSED, "record on a closed handle was not CLOSED");
            require(status == SMARTSTACK_OK || (a == 0 && b == 0), "counts set on failure");
            break;
        }
        case 3:
        case 4: { /* decide (JSON) or rank, on names from the input or the usual ones */
            char *stack = take_name(&in, pick & 1 ? 8 : 0), *user = take_name(&in, pick & 2 ? 8 : 1);
            take_instant(&in, pick & 12, &at, &offset);
            answer(&s, stack, user, at, offset, call == 4, NULL);
            free(stack), free(user);
            break;
        }
        case 5: /* packed */
            take_instant(&in, pick, &at, &offset);
            decide_packed(&s, "home", "me", at, offset, pick & 1);
            break;
        case 6: {
            smartstack_status status = smartstack_flush(s.engine);
            check_status(status, s.engine);
            require(!s.closed || status == SMARTSTACK_ERROR_CLOSED, "flush on a closed handle was not CLOSED");
            break;
        }
        case 7:
        case 8: { /* erase a user or an app */
            char *name = take_name(&in, pick & 15);
            smartstack_status status = call == 7 ? smartstack_erase_user(s.engine, name, &a) : smartstack_erase_app(s.engine, name, &a);
            check_status(status, s.engine);
            if (s.closed) require(status == SMARTSTACK_ERROR_CLOSED, "erase on a closed handle was not CLOSED");
            if (name[0] == 0 && !s.closed) require(status == SMARTSTACK_ERROR_INVALID_ARGUMENT, "an empty name was not INVALID_ARGUMENT");
            free(name);
            break;
        }
        case 9: /* close (once, then every call is CLOSED) */
            if (!s.closed) {
                check_status(smartstack_close(s.engine), s.engine);
                s.closed = 1;
            }
            require(smartstack_close(s.engine) == SMARTSTACK_ERROR_CLOSED, "a second close was not CLOSED");
            break;
        case 10: { /* a rank changes nothing: twice the same bytes */
            take_instant(&in, pick & 7, &at, &offset);
            char *first = NULL, *second = NULL;
            answer(&s, "home", "me", at, offset, 1, &first);
            answer(&s, "home", "me", at, offset, 1, &second);
            require((first == NULL) == (second == NULL) && (!first || !strcmp(first, second)), "two rankings at one instant differ");
            smartstack_free(first), smartstack_free(second);
            break;
        }
        case 11: { /* a past decision leaves the live rotation alone */
            int64_t t = T0 + (int64_t)take_byte(&in) * 20 * MINUTE;
            int64_t earlier = t - (1 + (int64_t)take_byte(&in)) * MINUTE;
            time_t seconds = (time_t)(t / 1000000000LL);
            struct tm utc;
            gmtime_r(&seconds, &utc);
            char line[160];
            int n = snprintf(line, sizeof line, "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02dZ\",\"type\":\"screen_on\",\"user\":\"me\"}",
                             utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
            check_status(smartstack_record(s.engine, line, (size_t)n, &a, &b), s.engine);
            char *again = NULL, *after = NULL;
            answer(&s, "home", "me", t + MINUTE, 0, 0, NULL);
            answer(&s, "home", "me", t + MINUTE, 0, 0, &again);
            answer(&s, "home", "me", earlier, 0, 0, NULL);   /* at or before the event at t: a past instant */
            answer(&s, "home", "me", t + MINUTE, 0, 0, &after);
            if (!s.explores) {
                char *t1 = top_of(again), *t2 = top_of(after);
                require((again == NULL) == (after == NULL), "a past decision changed whether the live one succeeds");
                require((t1 == NULL) == (t2 == NULL) && (!t1 || !strcmp(t1, t2)), "a past decision changed the live top");
                free(t1), free(t2);
            }
            smartstack_free(again), smartstack_free(after);
            break;
        }
        case 12: { /* a handle never returned by open */
            smartstack_engine *bogus = (smartstack_engine *)(uintptr_t)(0x100000 + take_byte(&in));
            require(smartstack_flush(bogus) == SMARTSTACK_ERROR_CLOSED, "a bogus handle was not CLOSED");
            break;
        }
        default: /* an instant out of range beside other bad arguments: still INVALID_ARGUMENT, or CLOSED */
            answer(&s, "", pick & 1 ? "" : "me", INT64_MAX - (int64_t)pick, 0, pick & 2, NULL);
            break;
        }
    }
    if (!s.closed) check_status(smartstack_close(s.engine), s.engine);
    return 0;
}

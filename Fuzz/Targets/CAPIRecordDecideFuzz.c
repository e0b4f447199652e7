/*
 * libFuzzer target: arbitrary bytes through the C API's record and decide entry points
 * (include/smartstack.h: JSON and packed decisions), as a host in C would call them. Built and run by .ci/bindings.sh.
 *
 * Input: byte 0 picks the instant and UTC offset (valid ones mostly, raw ones sometimes), bytes
 * 1..12 are the raw instant and offset (little-endian int64, int32), then a stack and a user name
 * (each up to a NUL byte, any bytes, so invalid UTF-8 too), then JSONL for smartstack_record.
 * Every call must end in a status with a message — never a crash, a leak or a status outside the
 * header's enum — and every success must hand back well-formed output.
 */
#include "smartstack.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int condition, const char *what) {
    if (!condition) {
        fprintf(stderr, "fuzz check failed: %s\n", what);
        abort();
    }
}

static void check_status(smartstack_status status, smartstack_engine *engine) {
    require(status >= SMARTSTACK_OK && status <= SMARTSTACK_ERROR_INTERNAL, "a status outside the enum");
    require(status != SMARTSTACK_ERROR_INTERNAL, "an internal error (a bug)");
    require(status == SMARTSTACK_OK || smartstack_last_error(engine)[0] != '\0', "a failure without a message");
}

/* Copies bytes up to a NUL (or the end) into a new NUL-terminated string; advances. */
static char *take_name(const uint8_t **data, size_t *size) {
    size_t n = 0;
    while (n < *size && n < 64 && (*data)[n] != 0) n++;
    char *name = malloc(n + 1);
    memcpy(name, *data, n);
    name[n] = 0;
    size_t used = n < *size ? n + 1 : n;
    *data += used;
    *size -= used;
    return name;
}

static void answer(smartstack_engine *engine, const char *stack, const char *user, int64_t at, int32_t offset, int rank) {
    char *json = NULL;
    size_t length = 0;
    /* Reasons or not: bit 0 of the instant; a ranking through smartstack_rank_explained: bit 1. */
    smartstack_status status =
        !rank      ? smartstack_decide(engine, stack, user, at, offset, (int)(at & 1), &json, &length)
        : (at & 2) ? smartstack_rank_explained(engine, stack, user, at, offset, (int)(at & 1), &json, &length)
                   : smartstack_rank(engine, stack, user, at, offset, &json, &length);
    check_status(status, engine);
    if (status == SMARTSTACK_OK) {
        require(json != NULL && strlen(json) == length && json[0] == '{' && json[length - 1] == '}', "malformed JSON");
    } else {
        require(json == NULL && length == 0, "outputs set on failure");
    }
    smartstack_free(json);
}

static void check_text(smartstack_text text, const char *block, size_t size) {
    require(text.bytes >= block && text.bytes + text.length < block + size && text.bytes[text.length] == '\0',
            "a packed text outside its block or without its NUL");
}

/* smartstack_decide_packed: on success a block whose every pointer stays inside it. */
static void decide_packed(smartstack_engine *engine, const char *stack, const char *user, int64_t at, int32_t offset, int explain) {
    smartstack_decision *d = NULL;
    smartstack_status status = smartstack_decide_packed(engine, stack, user, at, offset, explain, &d);
    check_status(status, engine);
    if (status != SMARTSTACK_OK) {
        require(d == NULL, "out_decision set on failure");
        return;
    }
    require(d != NULL && d->size >= sizeof *d, "no packed decision");
    const char *block = (const char *)d;
    check_text(d->stack, block, d->size);
    check_text(d->user, block, d->size);
    check_text(d->policy, block, d->size);
    require(strcmp(d->stack.bytes, stack) == 0 && strcmp(d->user.bytes, user) == 0, "stack or user not given back");
    if (d->top.bytes) check_text(d->top, block, d->size);
    size_t reasons = 0;
    for (size_t i = 0; i < d->widget_count; i++) {
        const smartstack_ranked_widget *w = &d->widgets[i];
        require((const char *)(w + 1) <= block + d->size, "a widget outside the block");
        check_text(w->widget, block, d->size);
        require(explain || w->reason_count == 0, "reasons without explain");
        require(w->reason_count == 0 || w->reasons == d->reasons + reasons, "a widget's reasons out of place");
        for (size_t k = 0; k < w->reason_count; k++) check_text(w->reasons[k].text, block, d->size);
        reasons += w->reason_count;
    }
    require(reasons == d->reason_count, "reason counts disagree");
    smartstack_free_decision(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 13) return 0;
    uint8_t mode = data[0];
    int64_t raw_at;
    int32_t raw_offset;
    memcpy(&raw_at, data + 1, sizeof raw_at);
    memcpy(&raw_offset, data + 9, sizeof raw_offset);
    data += 13;
    size -= 13;
    /* Mostly instants within a few years of 2026 and real offsets, so decisions happen. */
    int64_t at = mode & 1 ? raw_at : 1772456700LL * 1000000000LL + raw_at % (4LL * 365 * 86400 * 1000000000LL);
    int32_t offset = mode & 2 ? raw_offset : (int32_t)((raw_offset % 1439) * 60);
    char *stack = take_name(&data, &size);
    char *user = take_name(&data, &size);

    smartstack_engine *engine = NULL;
    smartstack_status status = smartstack_open(":memory:", mode & 4 ? "bandit" : NULL, NULL, raw_at & 0xFFFF, &engine);
    require(status == SMARTSTACK_OK && engine != NULL, "cannot open an in-memory engine");
    const char *ids[] = {"calendar", "weather", "music"};
    const char *apps[] = {"com.apple.mobilecal", "com.apple.weather", NULL};
    check_status(smartstack_configure(engine, "default", "home", ids, apps, 3, 1772456700LL * 1000000000LL, -18000), engine);

    uint64_t inserted = 0, duplicates = 0;
    status = smartstack_record(engine, (const char *)data, size, &inserted, &duplicates);
    check_status(status, engine);
    require(status == SMARTSTACK_OK || (inserted == 0 && duplicates == 0), "counts set on failure");

    answer(engine, stack, user, at, offset, 0);
    answer(engine, "home", "default", at, offset, mode & 8);
    answer(engine, stack, "default", at, offset, 1);
    decide_packed(engine, stack, user, at, offset, mode & 16);
    decide_packed(engine, "home", "default", (int64_t)((uint64_t)at + 60000000000ULL), offset, !(mode & 16));
    check_status(smartstack_close(engine), engine);
    require(smartstack_close(engine) == SMARTSTACK_ERROR_CLOSED, "double close is not SMARTSTACK_ERROR_CLOSED");
    free(stack);
    free(user);
    return 0;
}

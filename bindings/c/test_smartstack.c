/*
 * Tests of the C API (include/smartstack.h) from C: every status a host can meet, the results,
 * persistence, and calls from many threads at once. CI also runs it under AddressSanitizer and
 * LeakSanitizer (.ci/bindings.sh). Prints one line per failed check; exits 1 if any failed.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -pthread -I include bindings/c/test_smartstack.c \
 *      -L .build/debug -lSmartStackC -Wl,-rpath,.build/debug -o test_smartstack && ./test_smartstack
 */
#define _POSIX_C_SOURCE 200809L
#include "smartstack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int checks, failures;

#define CHECK(condition, ...)                                                  \
    do {                                                                       \
        checks++;                                                              \
        if (!(condition)) {                                                    \
            failures++;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* The status is `want` and the calling thread's last error on `engine` contains `text`. */
#define EXPECT(call, want, engine, text)                                                         \
    do {                                                                                         \
        smartstack_status got_ = (call);                                                         \
        const char *message_ = smartstack_last_error(engine);                                    \
        CHECK(got_ == (want), "%s returned %d, expected %d (%s); last error: %s", #call,        \
              (int)got_, (int)(want), #want, message_);                                          \
        CHECK(strstr(message_, (text)) != NULL, "%s: last error '%s' does not contain '%s'",    \
              #call, message_, (text));                                                          \
    } while (0)

#define OK(call, engine) \
    do { smartstack_status s_ = (call); CHECK(s_ == SMARTSTACK_OK, "%s failed (%d): %s", #call, (int)s_, smartstack_last_error(engine)); } while (0)

/* 2026-03-02T08:05:00-05:00, a Monday morning in Boston. */
static const int64_t T0 = 1772456700LL * 1000000000LL;
static const int32_t EST = -5 * 3600;
static const int64_t MINUTE = 60LL * 1000000000LL;

static const char *IDS[] = {"calendar", "weather", "music"};
static const char *APPS[] = {"com.apple.mobilecal", "com.apple.weather", NULL};

static smartstack_engine *open_memory(void) {
    smartstack_engine *engine = NULL;
    OK(smartstack_open(":memory:", NULL, NULL, 0, &engine), NULL);
    return engine;
}

static char *decide(smartstack_engine *engine, const char *stack, const char *user, int64_t at, int explain) {
    char *json = NULL;
    size_t length = 0;
    OK(smartstack_decide(engine, stack, user, at, EST, explain, &json, &length), engine);
    CHECK(json == NULL || strlen(json) == length, "out_length %zu is not the JSON's length", length);
    return json;
}

static void test_version(void) {
    CHECK(strcmp(smartstack_version(), SMARTSTACK_VERSION) == 0, "smartstack_version() is %s, the header says %s",
          smartstack_version(), SMARTSTACK_VERSION);
}

static void test_open_errors(void) {
    smartstack_engine *engine = (smartstack_engine *)&engine;  /* must be reset to NULL on failure */
    EXPECT(smartstack_open(NULL, NULL, NULL, 0, &engine), SMARTSTACK_ERROR_NULL_ARGUMENT, NULL, "path is NULL");
    CHECK(engine == NULL, "out_engine not reset on failure");
    EXPECT(smartstack_open(":memory:", NULL, NULL, 0, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, NULL, "out_engine is NULL");
    EXPECT(smartstack_open(":memory:", "nope", NULL, 0, &engine), SMARTSTACK_ERROR_INVALID_POLICY, NULL, "unknown policy 'nope'");
    EXPECT(smartstack_open(":memory:", "contextual:half_life=-3d", NULL, 0, &engine), SMARTSTACK_ERROR_INVALID_POLICY, NULL,
           "half_life");
    EXPECT(smartstack_open(":memory:", NULL, "margin=0.1,wobble=2", 0, &engine), SMARTSTACK_ERROR_INVALID_POLICY, NULL,
           "wobble");
    EXPECT(smartstack_open("bad\xff.sqlite", NULL, NULL, 0, &engine), SMARTSTACK_ERROR_INVALID_UTF8, NULL,
           "path is not valid UTF-8: byte 0xFF at offset 3");
    EXPECT(smartstack_open("/", NULL, NULL, 0, &engine), SMARTSTACK_ERROR_STORAGE, NULL, "/");
    EXPECT(smartstack_open("/nonexistent-dir/x.sqlite", NULL, NULL, 0, &engine), SMARTSTACK_ERROR_STORAGE, NULL,
           "/nonexistent-dir/x.sqlite");
    CHECK(engine == NULL, "out_engine not NULL after a failed open");
}

static void test_handles(void) {
    smartstack_engine *engine = open_memory();
    OK(smartstack_close(engine), engine);
    EXPECT(smartstack_close(engine), SMARTSTACK_ERROR_CLOSED, engine, "is closed");
    CHECK(strstr(smartstack_last_error(NULL), "is closed") != NULL, "a closed handle's error is not under NULL too");
    EXPECT(smartstack_flush(engine), SMARTSTACK_ERROR_CLOSED, engine, "is closed");
    char *json = (char *)"untouched";
    size_t length = 99;
    EXPECT(smartstack_decide(engine, "home", "me", T0, EST, 1, &json, &length), SMARTSTACK_ERROR_CLOSED, engine, "is closed");
    CHECK(json == NULL && length == 0, "outputs not reset when the handle is closed");
    smartstack_engine *bogus = (smartstack_engine *)(uintptr_t)0x7fff1234;
    EXPECT(smartstack_flush(bogus), SMARTSTACK_ERROR_CLOSED, bogus, "is not an engine handle");
    EXPECT(smartstack_close(NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, NULL, "engine is NULL");
    EXPECT(smartstack_record(NULL, "", 0, NULL, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, NULL, "engine is NULL");
    smartstack_free(NULL);
}

static void configure_home(smartstack_engine *engine, const char *user) {
    OK(smartstack_configure(engine, user, "home", IDS, APPS, 3, T0, EST), engine);
}

static void test_configure(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    const char *twice[] = {"a", "a"};
    EXPECT(smartstack_configure(engine, "me", "work", twice, NULL, 2, T0, EST), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "listed twice");
    EXPECT(smartstack_configure(engine, "me", "", IDS, NULL, 3, T0, EST), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "stack id is empty");
    EXPECT(smartstack_configure(engine, "me", "work", NULL, NULL, 2, T0, EST), SMARTSTACK_ERROR_NULL_ARGUMENT, engine,
           "widget_ids is NULL");
    EXPECT(smartstack_configure(engine, "me", "work", IDS, NULL, (size_t)-3, T0, EST), SMARTSTACK_ERROR_INVALID_ARGUMENT,
           engine, "widget_count");
    const char *holes[] = {"a", NULL};
    EXPECT(smartstack_configure(engine, "me", "work", holes, NULL, 2, T0, EST), SMARTSTACK_ERROR_NULL_ARGUMENT, engine,
           "widget_ids[1] is NULL");
    const char *bad_app[] = {"x", "bad\xc3"};
    EXPECT(smartstack_configure(engine, "me", "work", IDS, bad_app, 2, T0, EST), SMARTSTACK_ERROR_INVALID_UTF8, engine,
           "widget_apps[1] is not valid UTF-8");
    EXPECT(smartstack_configure(engine, "me", "work", IDS, NULL, 2, T0, 90), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "utc_offset_seconds 90");
    EXPECT(smartstack_configure(engine, "me", "work", IDS, NULL, 2, T0, 24 * 3600), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "-23:59...+23:59");
    EXPECT(smartstack_configure(engine, "me", "work", IDS, NULL, 2, INT64_MAX, 3600), SMARTSTACK_ERROR_INVALID_ARGUMENT,
           engine, "outside the years 1678...2261");
    /* An empty stack is a configuration too (it empties the stack). */
    OK(smartstack_configure(engine, "me", "empty", NULL, NULL, 0, T0, EST), engine);
    OK(smartstack_close(engine), engine);
}

static void test_record(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    uint64_t inserted = 99, duplicates = 99;
    const char *good =
        "{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"id\":\"e1\",\"app\":\"com.apple.mobilecal\"}\n"
        "\n"
        "{\"time\":\"2026-03-02T08:07:00-05:00\",\"type\":\"place\",\"user\":\"me\",\"id\":\"e2\",\"place\":\"work\"}";
    OK(smartstack_record(engine, good, strlen(good), &inserted, &duplicates), engine);
    CHECK(inserted == 2 && duplicates == 0, "recorded %llu, %llu duplicates; expected 2, 0", (unsigned long long)inserted,
          (unsigned long long)duplicates);
    OK(smartstack_record(engine, good, strlen(good), &inserted, &duplicates), engine);
    CHECK(inserted == 0 && duplicates == 2, "re-recording events with ids: %llu inserted, %llu duplicates",
          (unsigned long long)inserted, (unsigned long long)duplicates);

    /* All or nothing: a bad third line records none of the batch, and says where. */
    const char *bad =
        "{\"time\":\"2026-03-02T08:08:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"id\":\"e3\",\"app\":\"com.x\"}\n"
        "{\"time\":\"2026-03-02T08:09:00-05:00\",\"type\":\"screen_on\",\"user\":\"me\",\"id\":\"e4\"}\n"
        "{\"time\":\"2026-03-02T08:10:00\",\"type\":\"screen_on\",\"user\":\"me\",\"id\":\"e5\"}\n";
    EXPECT(smartstack_record(engine, bad, strlen(bad), &inserted, &duplicates), SMARTSTACK_ERROR_INVALID_EVENT, engine,
           "<events>:3:29: field 'time': time has no UTC offset");
    CHECK(inserted == 0 && duplicates == 0, "counts not reset on failure");
    size_t two_lines = (size_t)(strchr(strchr(bad, '\n') + 1, '\n') + 1 - bad);
    OK(smartstack_record(engine, bad, two_lines, &inserted, NULL), engine);
    CHECK(inserted == 2, "after the failed batch, its first two lines were already stored (%llu new)",
          (unsigned long long)inserted);

    EXPECT(smartstack_record(engine, "{\"time\":", 8, NULL, NULL), SMARTSTACK_ERROR_INVALID_EVENT, engine, "<events>:1:");
    EXPECT(smartstack_record(engine, "{\"type\":\"\xff\"}", 13, NULL, NULL), SMARTSTACK_ERROR_INVALID_EVENT, engine,
           "UTF-8");
    EXPECT(smartstack_record(engine, NULL, 5, NULL, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, engine, "jsonl is NULL");
    EXPECT(smartstack_record(engine, good, (size_t)-1, NULL, NULL), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "is larger than any array can be");
    OK(smartstack_record(engine, " \n\r\n", 4, &inserted, NULL), engine);
    CHECK(inserted == 0, "blank input recorded %llu events", (unsigned long long)inserted);
    OK(smartstack_record(engine, "", 0, NULL, NULL), engine);

    /* A stack_config line configures a stack. */
    const char *config =
        "{\"time\":\"2026-03-02T08:00:00-05:00\",\"type\":\"stack_config\",\"user\":\"me\",\"stack\":\"work\","
        "\"widgets\":[{\"id\":\"mail\",\"app\":\"com.mail\"},{\"id\":\"notes\"}]}\n";
    OK(smartstack_record(engine, config, strlen(config), NULL, NULL), engine);
    char *json = decide(engine, "work", "me", T0 + 10 * MINUTE, 1);
    CHECK(json && strstr(json, "\"stack\":\"work\"") && strstr(json, "\"widget\":\"mail\"") && strstr(json, "\"widget\":\"notes\""),
          "the stack configured by a JSONL line is not decided: %s", json ? json : "(null)");
    smartstack_free(json);
    OK(smartstack_close(engine), engine);
}

/* A batch large enough to be parsed in pieces while earlier pieces are stored: all stored, or the first bad line named. */
static void test_large_batch(void) {
    enum { LINES = 3000 };
    size_t capacity = (size_t)LINES * 160, length = 0;
    char *batch = malloc(capacity);
    for (int i = 1; i <= LINES; i++) {
        length += (size_t)snprintf(batch + length, capacity - length,
                                   "{\"time\":\"2026-03-02T%02d:%02d:00-05:00\",\"type\":\"app_launch\",\"user\":\"u%d\","
                                   "\"id\":\"%d\",\"app\":\"com.example.application.number%d\"}\n",
                                   i / 60 % 24, i % 60, i % 7, i, i % 13);
    }
    CHECK(length > 256 * 1024, "the batch is %zu bytes, too small to be cut into pieces", length);
    smartstack_engine *engine = open_memory();
    uint64_t inserted = 0;
    OK(smartstack_record(engine, batch, length, &inserted, NULL), engine);
    CHECK(inserted == LINES, "a large batch stored %llu of %d events", (unsigned long long)inserted, LINES);
    /* Line 2900 (in a late piece) loses its offset: nothing of a second batch is stored. */
    char *line = batch;
    for (int i = 1; i < 2900; i++) line = strchr(line, '\n') + 1;
    memcpy(strstr(line, "-05:00\""), "\"      ", 7);
    const char *id = strstr(batch, "\"id\":\"1\"");
    memcpy((char *)id, "\"id\":\"x\"", 8);  /* a new id on line 1, so the batch is not all duplicates */
    EXPECT(smartstack_record(engine, batch, length, &inserted, NULL), SMARTSTACK_ERROR_INVALID_EVENT, engine,
           "<events>:2900:");
    CHECK(inserted == 0, "a failed large batch stored %llu events", (unsigned long long)inserted);
    free(batch);
    OK(smartstack_close(engine), engine);
}

static void test_decide_and_rank(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    const char *events =
        "{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"com.apple.mobilecal\"}\n"
        "{\"time\":\"2026-03-02T08:07:00-05:00\",\"type\":\"relevance\",\"user\":\"me\",\"widget\":\"music\",\"score\":0}\n";
    OK(smartstack_record(engine, events, strlen(events), NULL, NULL), engine);

    char *json = decide(engine, "home", "me", T0 + 5 * MINUTE, 1);
    CHECK(json != NULL, "no decision");
    if (json) {
        const char *head = "{\"stack\":\"home\",\"user\":\"me\",\"at\":\"2026-03-02T08:10:00-05:00\",\"policy\":\"contextual\","
                           "\"top\":\"calendar\",\"rotated\":true,\"propensity\":1,\"ranking\":[{\"widget\":\"calendar\",\"score\":";
        CHECK(strncmp(json, head, strlen(head)) == 0, "decision starts\n  %s\nexpected\n  %s", json, head);
        CHECK(strstr(json, "\"reasons\":[{\"text\":\"") != NULL, "explained decision without reasons: %s", json);
        /* A relevance hint of 0 makes music ineligible: last in the ranking. */
        const char *music = strstr(json, "{\"widget\":\"music\"");
        CHECK(music && strstr(music, "\"eligible\":false") && !strstr(music + 1, "{\"widget\":"),
              "music should be last and ineligible: %s", json);
        CHECK(json[strlen(json) - 1] == '}', "decision JSON is cut: %s", json);
    }
    smartstack_free(json);

    json = decide(engine, "home", "me", T0 + 6 * MINUTE, 0);
    CHECK(json && strstr(json, "\"top\":\"calendar\",\"rotated\":false") && !strstr(json, "reasons"),
          "decision without reasons: %s", json ? json : "(null)");
    smartstack_free(json);

    char *ranking = NULL;
    OK(smartstack_rank(engine, "home", "me", T0 + 5 * MINUTE, EST, &ranking, NULL), engine);
    const char *ranking_head = "{\"stack\":\"home\",\"user\":\"me\",\"at\":\"2026-03-02T08:10:00-05:00\","
                               "\"policy\":\"contextual\",\"ranking\":[{\"widget\":\"calendar\"";
    CHECK(ranking && strncmp(ranking, ranking_head, strlen(ranking_head)) == 0 && strstr(ranking, "\"reasons\":[")
              && !strstr(ranking, "\"top\""),
          "ranking: %s", ranking ? ranking : "(null)");
    /* With explain 0: the same ranking up to the reasons, which are left out. */
    char *explained = NULL, *bare = NULL;
    OK(smartstack_rank_explained(engine, "home", "me", T0 + 5 * MINUTE, EST, 1, &explained, NULL), engine);
    CHECK(explained && ranking && strcmp(explained, ranking) == 0, "rank_explained with explain 1 differs from rank: %s",
          explained ? explained : "(null)");
    size_t bare_length = 0;
    OK(smartstack_rank_explained(engine, "home", "me", T0 + 5 * MINUTE, EST, 0, &bare, &bare_length), engine);
    CHECK(bare && strncmp(bare, ranking_head, strlen(ranking_head)) == 0 && !strstr(bare, "reasons")
              && bare_length == strlen(bare) && bare_length < strlen(ranking),
          "ranking without reasons: %s", bare ? bare : "(null)");
    smartstack_free(bare);
    smartstack_free(explained);
    smartstack_free(ranking);

    json = (char *)"untouched";
    EXPECT(smartstack_decide(engine, "gym", "me", T0, EST, 1, &json, NULL), SMARTSTACK_ERROR_UNKNOWN_STACK, engine,
           "unknown stack 'gym'");
    CHECK(json == NULL, "out_json not reset on failure");
    EXPECT(smartstack_rank(engine, "home", "you", T0, EST, &json, NULL), SMARTSTACK_ERROR_UNKNOWN_USER, engine,
           "unknown user 'you'");
    EXPECT(smartstack_decide(engine, "home\xe2\x82", "me", T0, EST, 1, &json, NULL), SMARTSTACK_ERROR_INVALID_UTF8, engine,
           "stack is not valid UTF-8: byte 0xE2 at offset 4");
    EXPECT(smartstack_decide(engine, "home", NULL, T0, EST, 1, &json, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, engine,
           "user is NULL");
    EXPECT(smartstack_decide(engine, "home", "me", T0, EST, 1, NULL, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, engine,
           "out_json is NULL");
    EXPECT(smartstack_rank(engine, "home", "me", INT64_MIN, 0, &json, NULL), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "at_unix_ns");
    OK(smartstack_close(engine), engine);
}

static void test_erase(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    configure_home(engine, "you");
    const char *events =
        "{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"you\",\"app\":\"com.apple.weather\"}\n"
        "{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"com.apple.weather\"}\n";
    OK(smartstack_record(engine, events, strlen(events), NULL, NULL), engine);
    uint64_t deleted = 0;
    OK(smartstack_erase_user(engine, "you", &deleted), engine);
    CHECK(deleted == 2, "erasing 'you' deleted %llu events, expected 2 (config and launch)", (unsigned long long)deleted);
    char *json = NULL;
    EXPECT(smartstack_decide(engine, "home", "you", T0 + MINUTE, EST, 1, &json, NULL), SMARTSTACK_ERROR_UNKNOWN_USER, engine,
           "unknown user 'you'");
    OK(smartstack_erase_app(engine, "com.apple.weather", &deleted), engine);
    CHECK(deleted == 1, "erasing the weather app deleted %llu events, expected 1 launch", (unsigned long long)deleted);
    json = decide(engine, "home", "me", T0 + 2 * MINUTE, 1);
    CHECK(json && !strstr(json, "weather") && strstr(json, "calendar"), "the erased app's widget is still ranked: %s",
          json ? json : "(null)");
    smartstack_free(json);
    EXPECT(smartstack_erase_user(engine, NULL, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, engine, "user is NULL");
    EXPECT(smartstack_erase_app(engine, "\xc0\xaf", NULL), SMARTSTACK_ERROR_INVALID_UTF8, engine, "app is not valid UTF-8");
    OK(smartstack_erase_user(engine, "me", NULL), engine);  /* erases without anywhere to put the count */
    EXPECT(smartstack_rank(engine, "home", "me", T0, EST, &json, NULL), SMARTSTACK_ERROR_UNKNOWN_USER, engine, "unknown user 'me'");
    OK(smartstack_close(engine), engine);
}

static void test_persistence(const char *directory) {
    char path[512];
    snprintf(path, sizeof path, "%s/persist.sqlite", directory);
    smartstack_engine *engine = NULL;
    OK(smartstack_open(path, "contextual", "margin=0.2,dwell=15m", 7, &engine), NULL);
    configure_home(engine, "me");
    const char *events =
        "{\"time\":\"2026-03-02T08:06:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"com.apple.weather\"}\n";
    OK(smartstack_record(engine, events, strlen(events), NULL, NULL), engine);
    char *before = NULL;
    OK(smartstack_rank(engine, "home", "me", T0 + 10 * MINUTE, EST, &before, NULL), engine);
    OK(smartstack_flush(engine), engine);
    OK(smartstack_close(engine), engine);
    OK(smartstack_open(path, "contextual", "margin=0.2,dwell=15m", 7, &engine), NULL);
    char *after = NULL;
    OK(smartstack_rank(engine, "home", "me", T0 + 10 * MINUTE, EST, &after, NULL), engine);
    CHECK(before && after && strcmp(before, after) == 0, "ranking after reopening differs:\n  %s\n  %s",
          before ? before : "(null)", after ? after : "(null)");
    smartstack_free(before);
    smartstack_free(after);
    OK(smartstack_close(engine), engine);
    struct stat info;
    CHECK(stat(path, &info) == 0 && (info.st_mode & 0777) == 0600, "the database is not mode 0600");
    unlink(path);
}

/* Threads: several recorders and deciders on one engine, each reading its own errors. */
enum { THREADS = 4, EVENTS_PER_THREAD = 300 };

struct worker {
    smartstack_engine *engine;
    int index;
    uint64_t inserted;
    int errors;
};

static void *record_and_decide(void *argument) {
    struct worker *w = argument;
    char user[32], line[256];
    snprintf(user, sizeof user, "user%d", w->index);
    OK(smartstack_configure(w->engine, user, "home", IDS, APPS, 3, T0, EST), w->engine);
    for (int i = 0; i < EVENTS_PER_THREAD; i++) {
        int minute = 1 + i;
        int length = snprintf(line, sizeof line,
                              "{\"time\":\"2026-03-02T%02d:%02d:00-05:00\",\"type\":\"app_launch\",\"user\":\"%s\","
                              "\"id\":\"%d\",\"app\":\"%s\"}\n",
                              8 + minute / 60, minute % 60, user, i, APPS[i % 2]);
        uint64_t inserted = 0;
        if (smartstack_record(w->engine, line, (size_t)length, &inserted, NULL) != SMARTSTACK_OK) w->errors++;
        w->inserted += inserted;
        char *json = NULL;
        if (smartstack_decide(w->engine, "home", user, T0 + (int64_t)minute * MINUTE, EST, i % 2, &json, NULL) != SMARTSTACK_OK
            || !json || !strstr(json, "\"top\":"))
            w->errors++;
        smartstack_free(json);
        /* An error of this thread's own, which no other thread's error may replace. */
        char stack[32];
        snprintf(stack, sizeof stack, "missing-%d", w->index);
        if (smartstack_decide(w->engine, stack, user, T0, EST, 1, &json, NULL) != SMARTSTACK_ERROR_UNKNOWN_STACK) w->errors++;
        const char *message = smartstack_last_error(w->engine);
        if (!strstr(message, stack)) {
            w->errors++;
            fprintf(stderr, "thread %d read another thread's error: %s\n", w->index, message);
        }
    }
    return NULL;
}

static void test_threads(void) {
    smartstack_engine *engine = open_memory();
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){engine, i, 0, 0};
        CHECK(pthread_create(&threads[i], NULL, record_and_decide, &workers[i]) == 0, "pthread_create");
    }
    uint64_t total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].errors == 0, "thread %d saw %d failures", i, workers[i].errors);
        total += workers[i].inserted;
    }
    CHECK(total == THREADS * EVENTS_PER_THREAD, "threads stored %llu events, expected %d", (unsigned long long)total,
          THREADS * EVENTS_PER_THREAD);
    OK(smartstack_close(engine), engine);
}

/* Closing while other threads call: they see OK, then SMARTSTACK_ERROR_CLOSED, never a crash. */
struct closer_worker {
    smartstack_engine *engine;
    int unexpected;
    int closed_seen;
};

static void *decide_until_closed(void *argument) {
    struct closer_worker *w = argument;
    for (int i = 0; i < 100000 && !w->closed_seen; i++) {
        char *json = NULL;
        smartstack_status status = smartstack_decide(w->engine, "home", "me", T0 + (int64_t)(i + 1) * MINUTE, EST, 1, &json, NULL);
        smartstack_free(json);
        if (status == SMARTSTACK_ERROR_CLOSED) w->closed_seen = 1;
        else if (status != SMARTSTACK_OK) w->unexpected++;
    }
    return NULL;
}

static void test_close_while_calling(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    pthread_t threads[2];
    struct closer_worker workers[2] = {{engine, 0, 0}, {engine, 0, 0}};
    for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, decide_until_closed, &workers[i]);
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    OK(smartstack_close(engine), engine);
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].unexpected == 0, "a decision during close failed with another status than CLOSED");
        CHECK(workers[i].closed_seen, "thread %d never saw the engine closed", i);
    }
}

/* Packed decisions (smartstack_decide_packed) against the JSON of smartstack_decide: a reader
   for exactly what the library writes, the JSON of one decision, field after field. */
struct json_reader {
    const char *at;
    int ok;
};

static void json_literal(struct json_reader *r, const char *literal) {
    size_t n = strlen(literal);
    if (r->ok && strncmp(r->at, literal, n) == 0) r->at += n;
    else r->ok = 0;
}

static int json_peek(struct json_reader *r, const char *literal) {
    return r->ok && strncmp(r->at, literal, strlen(literal)) == 0;
}

static void put_utf8(char *out, size_t *n, unsigned long c) {
    if (c < 0x80) out[(*n)++] = (char)c;
    else if (c < 0x800) { out[(*n)++] = (char)(0xC0 | c >> 6); out[(*n)++] = (char)(0x80 | (c & 0x3F)); }
    else if (c < 0x10000) {
        out[(*n)++] = (char)(0xE0 | c >> 12); out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3F)); out[(*n)++] = (char)(0x80 | (c & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | c >> 18); out[(*n)++] = (char)(0x80 | (c >> 12 & 0x3F));
        out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3F)); out[(*n)++] = (char)(0x80 | (c & 0x3F));
    }
}

/* A JSON string compared with a packed text, byte for byte after unescaping. */
static void json_text(struct json_reader *r, smartstack_text text) {
    char out[1024];
    size_t n = 0;
    json_literal(r, "\"");
    while (r->ok && *r->at != '"' && n + 4 < sizeof out) {
        if (*r->at != '\\') { out[n++] = *r->at++; continue; }
        char e = r->at[1];
        r->at += 2;
        switch (e) {
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'r': out[n++] = '\r'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'u': {
            char hex[5] = {0};
            memcpy(hex, r->at, 4);
            r->at += 4;
            unsigned long c = strtoul(hex, NULL, 16);
            if (c >= 0xD800 && c < 0xDC00 && r->at[0] == '\\' && r->at[1] == 'u') {
                memcpy(hex, r->at + 2, 4);
                r->at += 6;
                c = 0x10000 + ((c - 0xD800) << 10) + (strtoul(hex, NULL, 16) - 0xDC00);
            }
            put_utf8(out, &n, c);
            break;
        }
        default: out[n++] = e;
        }
    }
    json_literal(r, "\"");
    if (r->ok && (text.bytes == NULL || text.length != n || memcmp(text.bytes, out, n) != 0 || text.bytes[n] != '\0')) {
        r->ok = 0;
        fprintf(stderr, "packed text '%.*s' (%zu bytes) differs from the JSON's '%.*s'\n", (int)text.length,
                text.bytes ? text.bytes : "", text.length, (int)n, out);
    }
}

/* A JSON number (or null) compared with a packed double: the same bits (null: not finite). */
static void json_number(struct json_reader *r, double value) {
    if (json_peek(r, "null")) {
        json_literal(r, "null");
        if (value - value == 0) r->ok = 0;
        return;
    }
    char *end = NULL;
    double parsed = strtod(r->at, &end);
    if (!r->ok || end == r->at || memcmp(&parsed, &value, sizeof value) != 0) {
        if (r->ok) fprintf(stderr, "packed %.17g differs from the JSON's %.30s\n", value, r->at);
        r->ok = 0;
        return;
    }
    r->at = end;
}

static void json_flag(struct json_reader *r, int value) { json_literal(r, value ? "true" : "false"); }

/* The packed decision reads as the JSON one: every field, text and number, and the block's layout. */
static int packed_matches_json(const smartstack_decision *d, const char *json, int explain) {
    struct json_reader r = {json, 1};
    json_literal(&r, "{\"stack\":"); json_text(&r, d->stack);
    json_literal(&r, ",\"user\":"); json_text(&r, d->user);
    json_literal(&r, ",\"at\":\"");
    while (r.ok && *r.at && *r.at != '"') r.at++;
    json_literal(&r, "\",\"policy\":"); json_text(&r, d->policy);
    json_literal(&r, ",\"top\":");
    if (json_peek(&r, "null")) {
        json_literal(&r, "null");
        if (d->top.bytes != NULL || d->top.length != 0) r.ok = 0;
    } else {
        json_text(&r, d->top);
    }
    json_literal(&r, ",\"rotated\":"); json_flag(&r, d->rotated);
    json_literal(&r, ",\"propensity\":"); json_number(&r, d->propensity);
    json_literal(&r, ",\"ranking\":[");
    const char *base = (const char *)d;
    size_t reasons = 0;
    const char *next_text = d->stack.bytes;
    for (size_t i = 0; i < d->widget_count && r.ok; i++) {
        const smartstack_ranked_widget *w = &d->widgets[i];
        json_literal(&r, i == 0 ? "{\"widget\":" : ",{\"widget\":"); json_text(&r, w->widget);
        json_literal(&r, ",\"score\":"); json_number(&r, w->score);
        json_literal(&r, ",\"eligible\":"); json_flag(&r, w->eligible);
        if (w->reason_count > 0 && w->reasons != d->reasons + reasons) r.ok = 0;
        if ((w->reason_count == 0) != (w->reasons == NULL)) r.ok = 0;
        if (explain) {
            json_literal(&r, ",\"reasons\":[");
            for (size_t k = 0; k < w->reason_count && r.ok; k++) {
                json_literal(&r, k == 0 ? "{\"text\":" : ",{\"text\":"); json_text(&r, w->reasons[k].text);
                json_literal(&r, ",\"contribution\":"); json_number(&r, w->reasons[k].contribution);
                json_literal(&r, "}");
            }
            json_literal(&r, "]");
        }
        json_literal(&r, "}");
        reasons += w->reason_count;
    }
    json_literal(&r, "]}");
    if (r.ok && *r.at != '\0') r.ok = 0;
    if (reasons != d->reason_count || (d->reason_count == 0) != (d->reasons == NULL)
        || (d->widget_count == 0) != (d->widgets == NULL))
        r.ok = 0;
    /* The texts follow each other in the order the header gives, and end where the block does. */
    smartstack_text order[4] = {d->stack, d->user, d->policy, d->top};
    for (int k = 0; k < 4 && r.ok; k++) {
        if (order[k].bytes == NULL) continue;
        if (order[k].bytes != next_text) r.ok = 0;
        next_text = order[k].bytes + order[k].length + 1;
    }
    for (size_t i = 0; i < d->widget_count && r.ok; i++) {
        if (d->widgets[i].widget.bytes != next_text) r.ok = 0;
        next_text += d->widgets[i].widget.length + 1;
        for (size_t k = 0; k < d->widgets[i].reason_count; k++) {
            if (d->widgets[i].reasons[k].text.bytes != next_text) r.ok = 0;
            next_text += d->widgets[i].reasons[k].text.length + 1;
        }
    }
    if (r.ok && next_text != base + d->size) r.ok = 0;
    return r.ok;
}

/* Two engines with the same history decide at the same instants, one packed, one in JSON:
   1, 3 and 14 widgets, a pinned one, an ineligible one, ids that JSON escapes (and a NUL), apps
   with non-ASCII names in the reasons, with and without explanations, rotations and all. */
static void test_packed_decisions(void) {
    const char *history =
        "{\"time\":\"2026-03-02T07:00:00-05:00\",\"type\":\"stack_config\",\"user\":\"me\",\"stack\":\"one\","
        "\"widgets\":[{\"id\":\"solo\",\"app\":\"com.solo\"}]}\n"
        "{\"time\":\"2026-03-02T07:00:00-05:00\",\"type\":\"stack_config\",\"user\":\"me\",\"stack\":\"big\",\"widgets\":["
        "{\"id\":\"w0\",\"app\":\"com.caf\\u00e9\"},{\"id\":\"say \\\"hi\\\"\",\"app\":\"com.\\u6587\"},{\"id\":\"back\\\\slash\"},"
        "{\"id\":\"tab\\there\\nnl\\u0001\"},{\"id\":\"\\ud83c\\udfe0 home\",\"app\":\"com.\\ud83c\\udfe0\"},{\"id\":\"nul\\u0000in\"},"
        "{\"id\":\"w6\",\"app\":\"com.six\"},{\"id\":\"w7\"},{\"id\":\"w8\",\"app\":\"com.eight\"},{\"id\":\"w9\"},"
        "{\"id\":\"w10\"},{\"id\":\"w11\",\"app\":\"com.eleven\"},{\"id\":\"w12\"},{\"id\":\"w13\",\"app\":\"com.solo\"}]}\n"
        "{\"time\":\"2026-03-02T07:30:00-05:00\",\"type\":\"widget_pin\",\"user\":\"me\",\"stack\":\"home\",\"widget\":\"music\"}\n"
        "{\"time\":\"2026-03-02T07:40:00-05:00\",\"type\":\"relevance\",\"user\":\"me\",\"widget\":\"w7\",\"score\":0}\n"
        "{\"time\":\"2026-03-02T07:41:00-05:00\",\"type\":\"relevance\",\"user\":\"me\",\"widget\":\"w9\",\"score\":0.9,\"duration\":3600}\n";
    const char *apps[] = {"com.caf\xc3\xa9", "com.\xe6\x96\x87", "com.\xf0\x9f\x8f\xa0", "com.solo", "com.six", "com.eight",
                          "com.apple.mobilecal", "com.eleven"};
    smartstack_engine *packed = open_memory(), *json = open_memory();
    smartstack_engine *engines[2] = {packed, json};
    for (int e = 0; e < 2; e++) {
        configure_home(engines[e], "me");
        OK(smartstack_record(engines[e], history, strlen(history), NULL, NULL), engines[e]);
    }
    const char *stacks[] = {"one", "home", "big"};
    int compared = 0, matched = 0, rotations = 0, pinned = 0, ineligible = 0, unicode = 0, sizes[15] = {0};
    for (int step = 0; step < 240; step++) {
        int64_t at = T0 + (int64_t)step * 7 * MINUTE;
        char line[256];
        int minutes = 8 * 60 + 5 + step * 7 - 1;  /* a launch a minute before each decision */
        int length = snprintf(line, sizeof line,
                              "{\"time\":\"2026-03-%02dT%02d:%02d:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"%s\"}\n",
                              2 + minutes / 1440, minutes % 1440 / 60, minutes % 60, apps[step % 8]);
        for (int e = 0; e < 2; e++) OK(smartstack_record(engines[e], line, (size_t)length, NULL, NULL), engines[e]);
        const char *stack = stacks[step % 3];
        int explain = step % 4 != 3;
        smartstack_decision *d = NULL;
        OK(smartstack_decide_packed(packed, stack, "me", at, EST, explain, &d), packed);
        char *text = decide(json, stack, "me", at, explain);
        if (!d || !text) { smartstack_free_decision(d); smartstack_free(text); continue; }
        compared++;
        if (packed_matches_json(d, text, explain)) matched++;
        else if (compared - matched <= 3) fprintf(stderr, "packed decision differs from\n  %s\n", text);
        rotations += d->rotated != 0;
        pinned += strcmp(stack, "home") == 0 && d->widget_count == 3 && d->widgets[0].widget.length == 5
                  && memcmp(d->widgets[0].widget.bytes, "music", 5) == 0;
        for (size_t i = 0; i < d->widget_count; i++) ineligible += !d->widgets[i].eligible;
        for (size_t k = 0; k < d->reason_count; k++)
            for (size_t b = 0; b < d->reasons[k].text.length; b++) unicode += (unsigned char)d->reasons[k].text.bytes[b] >= 0x80;
        if (d->widget_count < 15) sizes[d->widget_count]++;
        smartstack_free_decision(d);
        smartstack_free(text);
    }
    CHECK(compared == 240 && matched == compared, "%d of %d packed decisions read as their JSON", matched, compared);
    CHECK(rotations > 0 && pinned > 0 && ineligible > 0 && unicode > 0 && sizes[1] > 0 && sizes[3] > 0 && sizes[14] > 0,
          "the comparison lacks a case: %d rotations, %d pinned, %d ineligible, %d non-ASCII reason bytes, %d/%d/%d of 1/3/14 widgets",
          rotations, pinned, ineligible, unicode, sizes[1], sizes[3], sizes[14]);
    for (int e = 0; e < 2; e++) OK(smartstack_close(engines[e]), engines[e]);
}

/* Every failure of smartstack_decide_packed: the status and message of smartstack_decide, and no block. */
static void test_packed_errors(void) {
    smartstack_engine *engine = open_memory();
    configure_home(engine, "me");
    smartstack_decision *d = (smartstack_decision *)&d;
    EXPECT(smartstack_decide_packed(engine, "gym", "me", T0, EST, 1, &d), SMARTSTACK_ERROR_UNKNOWN_STACK, engine,
           "unknown stack 'gym'");
    CHECK(d == NULL, "out_decision not reset on failure");
    EXPECT(smartstack_decide_packed(engine, "home", "you", T0, EST, 1, &d), SMARTSTACK_ERROR_UNKNOWN_USER, engine,
           "unknown user 'you'");
    EXPECT(smartstack_decide_packed(engine, "home\xe2\x82", "me", T0, EST, 1, &d), SMARTSTACK_ERROR_INVALID_UTF8, engine,
           "stack is not valid UTF-8: byte 0xE2 at offset 4");
    EXPECT(smartstack_decide_packed(engine, NULL, "me", T0, EST, 1, &d), SMARTSTACK_ERROR_NULL_ARGUMENT, engine, "stack is NULL");
    EXPECT(smartstack_decide_packed(engine, "home", NULL, T0, EST, 1, &d), SMARTSTACK_ERROR_NULL_ARGUMENT, engine, "user is NULL");
    EXPECT(smartstack_decide_packed(engine, "home", "me", T0, EST, 1, NULL), SMARTSTACK_ERROR_NULL_ARGUMENT, engine,
           "out_decision is NULL");
    EXPECT(smartstack_decide_packed(engine, "home", "me", T0, 90, 1, &d), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "utc_offset_seconds 90");
    EXPECT(smartstack_decide_packed(engine, "home", "me", INT64_MIN, 0, 1, &d), SMARTSTACK_ERROR_INVALID_ARGUMENT, engine,
           "at_unix_ns");
    CHECK(d == NULL, "out_decision set by a failed call");
    /* An empty stack decides nothing on top, with no widgets. */
    OK(smartstack_configure(engine, "me", "empty", NULL, NULL, 0, T0, EST), engine);
    OK(smartstack_decide_packed(engine, "empty", "me", T0 + MINUTE, EST, 1, &d), engine);
    CHECK(d && d->top.bytes == NULL && d->top.length == 0 && d->widget_count == 0 && d->widgets == NULL && d->reasons == NULL
              && d->at_unix_ns == T0 + MINUTE && d->utc_offset_seconds == EST,
          "an empty stack's packed decision");
    smartstack_free_decision(d);
    smartstack_free_decision(NULL);
    OK(smartstack_close(engine), engine);
    d = (smartstack_decision *)&d;
    EXPECT(smartstack_decide_packed(engine, "home", "me", T0, EST, 1, &d), SMARTSTACK_ERROR_CLOSED, engine, "is closed");
    CHECK(d == NULL, "out_decision not reset when the handle is closed");
    EXPECT(smartstack_decide_packed(NULL, "home", "me", T0, EST, 1, &d), SMARTSTACK_ERROR_NULL_ARGUMENT, NULL, "engine is NULL");
}

/* Writes a population prior (Datasets/PRIOR-FORMAT.md) naming two widgets: weather, with a lift of
   `lift` between 08:00 and 09:00 on weekdays, and calendar, used as the average engagement at every
   hour, to `path`. */
static void write_prior(const char *path, const char *lift) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    const char *flat = "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]";
    fputs("{\"format\":\"smartstack-prior\",\"version\":1,\"min_people\":5,\"people\":20,\"shrinkage\":5,"
          "\"place_kinds\":[],\"widgets\":2,\"apps\":0}\n", f);
    fprintf(f, "{\"widget\":\"calendar\",\"app\":null,\"people\":20,\"rate\":3,\"days\":[1,1],"
               "\"parts\":[[1,1,1,1],[1,1,1,1]],\"hours\":[%s,%s],\"places\":{}}\n", flat, flat);
    fprintf(f, "{\"widget\":\"weather\",\"app\":null,\"people\":20,\"rate\":3,\"days\":[1,1],"
               "\"parts\":[[1,1,1,1],[1,1,1,1]],\"hours\":[[1,1,1,1,1,1,1,1,%s,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
               "%s],\"places\":{}}\n", lift, flat);
    fputs("{\"end\":\"smartstack-prior\",\"widgets\":2,\"apps\":0}\n", f);
    fclose(f);
}

/* A population prior decides a cold stack and the reason says so; without one (NULL) the engine
   is smartstack_open's; a bad prior file is refused naming the file and the field. */
static void test_prior(const char *directory) {
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/prior.jsonl", directory);
    snprintf(bad, sizeof bad, "%s/bad-prior.jsonl", directory);
    write_prior(path, "50");
    write_prior(bad, "-1");
    const char *tops[2] = {"\"top\":\"weather\"", "\"top\":\"calendar\""};
    for (int k = 0; k < 2; k++) {
        smartstack_engine *engine = NULL;
        OK(smartstack_open_with_prior(":memory:", NULL, NULL, 0, k == 0 ? path : NULL, &engine), NULL);
        if (!engine) continue;
        configure_home(engine, "me");
        /* A minute after the configuration: at its instant the stack does not exist yet. */
        char *json = decide(engine, "home", "me", T0 + 60 * 1000000000LL, 1);
        CHECK(json && strstr(json, tops[k]), "with%s the prior: %s", k == 0 ? "" : "out", json ? json : "(null)");
        CHECK(json && (strstr(json, "people like you") != NULL) == (k == 0), "reasons: %s", json ? json : "(null)");
        smartstack_free(json);
        OK(smartstack_close(engine), engine);
    }
    smartstack_engine *engine = (smartstack_engine *)&engine;
    EXPECT(smartstack_open_with_prior(":memory:", NULL, NULL, 0, bad, &engine), SMARTSTACK_ERROR_INVALID_ARGUMENT, NULL,
           "bad-prior.jsonl:3:");
    CHECK(engine == NULL, "out_engine not reset on failure");
    EXPECT(smartstack_open_with_prior(":memory:", NULL, NULL, 0, bad, &engine), SMARTSTACK_ERROR_INVALID_ARGUMENT, NULL,
           "field 'hours[0]'");
    EXPECT(smartstack_open_with_prior(":memory:", NULL, NULL, 0, "/nonexistent/prior.jsonl", &engine),
           SMARTSTACK_ERROR_INVALID_ARGUMENT, NULL, "no such file");
    remove(path);
    remove(bad);
}

int main(void) {
    char directory[] = "/tmp/smartstack-c-test-XXXXXX";
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        return 1;
    }
    test_version();
    test_open_errors();
    test_handles();
    test_configure();
    test_record();
    test_large_batch();
    test_decide_and_rank();
    test_packed_decisions();
    test_packed_errors();
    test_erase();
    test_persistence(directory);
    test_prior(directory);
    test_threads();
    test_close_while_calling();
    rmdir(directory);
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}

/*
 * smartstack.h: the C interface of the SmartStack relevance engine (libSmartStackC).
 *
 * This header is the contract of the C door. The Swift implementation (Sources/SmartStackC) is
 * compiled against it with `@c @implementation`, so the compiler rejects any function whose Swift
 * signature differs from its declaration here, and the C API tests check that the library exports
 * exactly the functions declared here. What every door (Swift, C, Python, Java, the command line)
 * promises alike — what an answer at an instant sees, the time range, what each error kind means,
 * idempotent recording, threads, what survives a crash — is docs/contract.md; the scenarios of
 * Conformance/scenarios.jsonl check it through this header (Conformance/c/run_scenarios.c).
 *
 *     smartstack_engine *engine = NULL;
 *     if (smartstack_open("smartstack.sqlite", NULL, NULL, 0, &engine) != SMARTSTACK_OK) {
 *         fprintf(stderr, "%s\n", smartstack_last_error(NULL));
 *         return 1;
 *     }
 *     const char *line = "{\"time\":\"2026-03-02T08:00:00-05:00\",\"type\":\"app_launch\",\"user\":\"me\",\"app\":\"com.x\"}\n";
 *     smartstack_record(engine, line, strlen(line), NULL, NULL);
 *     char *json = NULL;
 *     if (smartstack_decide(engine, "home", "me", at_ns, -5 * 3600, 1, &json, NULL) == SMARTSTACK_OK) {
 *         puts(json);
 *         smartstack_free(json);
 *     }
 *     smartstack_close(engine);
 *
 * Conventions
 *  - Every function that can fail returns a smartstack_status. On failure the message (what went
 *    wrong and where: the argument, the event line and column, the database file) is read with
 *    smartstack_last_error(). Nothing throws, aborts or longjmps across this interface.
 *  - Strings are NUL-terminated UTF-8. Invalid UTF-8 is SMARTSTACK_ERROR_INVALID_UTF8.
 *  - Output pointers are set on every call (to NULL or 0 on failure) when they are not NULL.
 *  - Results that carry text (rankings, decisions) are JSON in a buffer the library allocates and
 *    the caller releases with smartstack_free(). JSON rather than structs because a ranking holds
 *    variable-length strings (widget ids, ~40 reasons): one buffer and one free is simpler and
 *    safer for every host (C, ctypes, JNI) than a tree of structs with their own lifetimes. The
 *    reasons are most of a decision's cost (computing and writing them), so the hot path of a
 *    launcher at screen-on, smartstack_decide with `explain` 0, goes without (figures:
 *    Benchmarks/README.md, "Through the C API, Python and Java").
 *    A decision also comes packed (smartstack_decide_packed): the same values as plain structs
 *    in one block the caller releases with smartstack_free_decision(). Which to use:
 *      JSON    self-describing and a stable wire format: to store, log or forward a decision, or
 *              when the host has a JSON reader at hand anyway (JNI, scripting languages).
 *      packed  the hot path of a host that reads the ranking itself (C, ctypes): scores and
 *              contributions are the doubles themselves, so nothing formats ~45 numbers as
 *              shortest round-trip text and nothing parses them back (~1 us in the library and
 *              ~7 us in Python's json per decision with reasons); texts are not escaped.
 *              One allocation and one free, like the JSON, so it is as safe across threads.
 *    Counts come back as plain integers.
 *  - Time is an input: the engine never reads the clock or the time zone. An instant is given as
 *    nanoseconds since 1970-01-01T00:00:00Z (`at_unix_ns`) plus the UTC offset in force on the
 *    phone at that instant in seconds, east positive (`utc_offset_seconds`, -05:00 is -18000),
 *    which sets local time of day and weekday. The offset is a whole number of minutes within
 *    +-23:59 and the local date lies in the years 1678-2261, as in the JSONL v1 event format;
 *    anything else is SMARTSTACK_ERROR_INVALID_ARGUMENT (never wrapped: those years fit an
 *    int64_t of nanoseconds; an instant beyond them cannot be written in one).
 *  - An answer at an instant (smartstack_rank, smartstack_decide) reflects exactly the user's
 *    events with a time strictly before it, as `smartstack rank --at` and the evaluator's replay.
 *    A stack is unknown (SMARTSTACK_ERROR_UNKNOWN_STACK) at and before its stack_config's
 *    instant. An instant at or before an event already recorded for the user is answered from a
 *    state rebuilt from the log (cost: the user's events before it are replayed) and leaves the
 *    live rotation state untouched. At screen-on, decide first, then record that instant's events.
 *  - Checks come in one order, as in every door: the handle, then the arguments in the order of
 *    the parameters, then the user, then the stack. A name that is empty is
 *    SMARTSTACK_ERROR_INVALID_ARGUMENT.
 *  - Threads: every function may be called from any thread, concurrently, on the same handle or
 *    different ones (rankings of different users run in parallel; recording is serialised).
 *  - Handles are opaque tokens, never dereferenced: a handle that was closed, closed twice, or
 *    never returned by smartstack_open is SMARTSTACK_ERROR_CLOSED, not a crash.
 *  - Recording is idempotent for events with an `id` (per user); a batch is all or nothing. A
 *    smartstack_record that returned OK is committed to the log and survives a crash of the host.
 */
#ifndef SMARTSTACK_H
#define SMARTSTACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; smartstack_version() returns the same text at run time. */
#define SMARTSTACK_VERSION "0.1.0"

/* An open engine: an event log (one SQLite file) and each user's learned state. */
typedef struct smartstack_engine smartstack_engine;

/* What a call did. The values are stable: bindings mirror them. */
typedef enum smartstack_status {
    SMARTSTACK_OK = 0,
    /* A required pointer argument is NULL (the message names it). */
    SMARTSTACK_ERROR_NULL_ARGUMENT = 1,
    /* A string argument is not valid UTF-8 (the message names it and the byte). */
    SMARTSTACK_ERROR_INVALID_UTF8 = 2,
    /* An argument is out of range: an empty name, a widget listed twice, an empty app, a
       configuration whose stack_config line would pass 1 MiB, a UTC offset or instant outside
       what the event format allows. */
    SMARTSTACK_ERROR_INVALID_ARGUMENT = 3,
    /* The handle is closed (or was never opened): smartstack_close was called on it. */
    SMARTSTACK_ERROR_CLOSED = 4,
    /* An event line is not valid JSONL v1; the message reads `<events>:LINE:COLUMN: ...`
       naming the field. Nothing of the batch was recorded. */
    SMARTSTACK_ERROR_INVALID_EVENT = 5,
    /* The user has no stack of that name at that instant: never configured, or configured at or
       after the instant (the message lists the known ones). */
    SMARTSTACK_ERROR_UNKNOWN_STACK = 6,
    /* No event was ever recorded for the user. */
    SMARTSTACK_ERROR_UNKNOWN_USER = 7,
    /* The policy or rotation text of smartstack_open is not valid: an unknown policy, or a
       parameter that is unknown, repeated, malformed or out of range (`smartstack policies`). */
    SMARTSTACK_ERROR_INVALID_POLICY = 8,
    /* The event log failed: it cannot be opened or written (permissions, read-only, full disk,
       corrupt or foreign file, newer schema). Nothing of the failed call was stored. */
    SMARTSTACK_ERROR_STORAGE = 9,
    /* Another connection held the database lock past the busy timeout: retry later. */
    SMARTSTACK_ERROR_BUSY = 10,
    /* A failure the categories above do not describe (a bug: please report the message). */
    SMARTSTACK_ERROR_INTERNAL = 11
} smartstack_status;

/* The library's version, e.g. "0.1.0": a static string, never freed. */
const char *smartstack_version(void);

/*
 * The message of the calling thread's most recent failed call on `engine` ("" when there was
 * none); with `engine` NULL, of the most recent failed call that had no valid handle (a failed
 * smartstack_open, a NULL or closed handle). Thread-safe: each thread reads its own messages.
 * The text stays valid until the same thread's next call into the library; copy it to keep it.
 */
const char *smartstack_last_error(const smartstack_engine *engine);

/*
 * Opens (or creates) the event log at `path` (":memory:" for a private in-memory log).
 *   policy   the scoring policy and its parameters, e.g. "contextual:half_life=7d"; NULL for the
 *            default ("contextual").
 *   rotation the rotation parameters, e.g. "margin=0.2,dwell=15m"; NULL for the defaults.
 *   seed     the seed of every user's random generator (exploring policies); 0 is fine.
 * On success *out_engine is the handle; release it with smartstack_close. On failure it is NULL
 * and smartstack_last_error(NULL) says why.
 */
smartstack_status smartstack_open(const char *path, const char *policy, const char *rotation, uint64_t seed,
                                  smartstack_engine **out_engine);

/*
 * smartstack_open with a population prior: `prior_path` names a prior file learnt from many
 * people (`smartstack prior learn`, format Datasets/PRIOR-FORMAT.md; NULL for none, as
 * smartstack_open). The policies that take one (contextual, bandit; "contextual:population=0"
 * ignores it) start each person from it, and the person's own evidence takes over after a
 * handful of engagements; reasons say "people like you ..." where it counts. Users' saved
 * states are kept apart per prior. A prior file that cannot be read, is too large, cut short, of
 * a newer version, or holds a negative or non-finite value is SMARTSTACK_ERROR_INVALID_ARGUMENT,
 * the message naming the file, line and field; nothing is opened then.
 */
smartstack_status smartstack_open_with_prior(const char *path, const char *policy, const char *rotation, uint64_t seed,
                                             const char *prior_path, smartstack_engine **out_engine);

/*
 * Saves every user's state and closes the engine. The handle is invalid afterwards, even when
 * this fails: a non-OK status (SMARTSTACK_ERROR_STORAGE) means the final save failed; the events
 * recorded are safe in the log and the state is rebuilt from it at the next open.
 */
smartstack_status smartstack_close(smartstack_engine *engine);

/*
 * Configures `user`'s stack `stack` from `at` on: `widget_count` widgets in the person's order.
 * `widget_apps` may be NULL (no widget has an app) or hold NULL entries (that widget has none).
 * Records a `stack_config` event, exactly as a JSONL `stack_config` line would.
 */
smartstack_status smartstack_configure(smartstack_engine *engine, const char *user, const char *stack,
                                       const char *const *widget_ids, const char *const *widget_apps,
                                       size_t widget_count, int64_t at_unix_ns, int32_t utc_offset_seconds);

/*
 * Records events given as SmartStack JSONL v1 (Datasets/FORMAT.md): `length` bytes holding one
 * event per line, one or many lines (a final newline is optional). The batch is all or nothing:
 * a bad line records nothing (SMARTSTACK_ERROR_INVALID_EVENT, naming line, column and field).
 * Events whose (user, id) is already stored are skipped. A `stack_config` line configures a
 * stack. *out_inserted and *out_duplicates (each may be NULL) receive the counts. Blank input
 * records nothing and succeeds.
 */
smartstack_status smartstack_record(smartstack_engine *engine, const char *jsonl, size_t length,
                                    uint64_t *out_inserted, uint64_t *out_duplicates);

/*
 * At a decision point (screen on): applies the rotation policy to `user`'s `stack` at the instant
 * and returns what is shown on top. Changes the rotation state (what is on top, dwell).
 * *out_json (release with smartstack_free) is one object, keys in this order:
 *   {"stack":"home","user":"me","at":"2026-03-02T08:10:00-05:00","policy":"contextual",
 *    "top":"calendar","rotated":true,"propensity":1,
 *    "ranking":[{"widget":"calendar","score":1.25,"eligible":true,
 *                "reasons":[{"text":"at work","contribution":0.8},...]},...]}
 * `top` is null when no widget is eligible; `ranking` is the scorer's order (pinned widget first,
 * then eligible widgets by score, then ineligible ones); a score is null when not finite.
 * `explain` non-zero: each widget carries its reasons, largest contribution first (the
 * explanation a person sees). Zero: no "reasons" keys; the same decision, for the hot path of a
 * launcher that only needs the order (the engine then neither computes nor writes the ~40
 * reasons: most of the cost of a decision).
 * *out_length (may be NULL) receives the length in bytes, without the terminating NUL.
 */
smartstack_status smartstack_decide(smartstack_engine *engine, const char *stack, const char *user,
                                    int64_t at_unix_ns, int32_t utc_offset_seconds, int explain,
                                    char **out_json, size_t *out_length);

/*
 * The ranking of `user`'s `stack` at the instant with explanations, without changing any state.
 * *out_json is the object `smartstack rank --json` prints:
 *   {"stack":...,"user":...,"at":...,"policy":...,"ranking":[...]}   (as in smartstack_decide).
 */
smartstack_status smartstack_rank(smartstack_engine *engine, const char *stack, const char *user,
                                  int64_t at_unix_ns, int32_t utc_offset_seconds,
                                  char **out_json, size_t *out_length);

/*
 * smartstack_rank with `explain` as in smartstack_decide: non-zero, the same as smartstack_rank;
 * zero, no "reasons" keys (the same order and scores, for a host that only needs the order: most
 * of a ranking's cost is its reasons).
 */
smartstack_status smartstack_rank_explained(smartstack_engine *engine, const char *stack, const char *user,
                                           int64_t at_unix_ns, int32_t utc_offset_seconds, int explain,
                                           char **out_json, size_t *out_length);

/* Saves every user's state that changed since it was last saved (close does it too). */
smartstack_status smartstack_flush(smartstack_engine *engine);

/* Erases every event and all state of `user`; *out_deleted (may be NULL): events deleted. */
smartstack_status smartstack_erase_user(smartstack_engine *engine, const char *user, uint64_t *out_deleted);

/*
 * Erases every trace of `app` for every user: its launches, its widgets in stack configurations
 * and every event naming them, and the state derived from them. *out_deleted (may be NULL):
 * events deleted.
 */
smartstack_status smartstack_erase_app(smartstack_engine *engine, const char *app, uint64_t *out_deleted);

/* Releases a buffer this library returned (smartstack_decide, smartstack_rank[_explained]). NULL is a no-op. */
void smartstack_free(char *buffer);

/*
 * Packed decisions: what smartstack_decide writes as JSON, as plain structs (see "Conventions"
 * for when to use which). A decision is one block from the library's allocator: this struct,
 * then the array of widgets, then the array of every widget's reasons, then the texts. Every
 * pointer in it points into the block, so it stays valid until the block is released with
 * smartstack_free_decision() and nothing in it is shared with other calls or threads. `size`
 * is the whole block's length in bytes (to copy it in one piece: a copy's pointers still point
 * into the original).
 *
 * Texts are UTF-8, `length` bytes at `bytes`, each followed by a NUL that `length` does not
 * count. Use `length`: a widget id recorded as JSON "\u0000" holds a NUL itself. They lie one
 * after another in this order, which the Python binding relies on to decode them in one go:
 * stack, user, policy, top (when there is one), then for each widget its id and then its
 * reasons' texts.
 *
 * Numbers are the doubles the JSON's numbers read back to: a negative zero comes as 0 (the
 * JSON writes 0), a NaN or an infinity as itself (the JSON writes null).
 */

/* A text inside a packed decision. `bytes` is NULL (and `length` 0) only for an absent top. */
typedef struct smartstack_text {
    const char *bytes;
    size_t length;
} smartstack_text;

/* Why a widget scores as it does: the phrase a person sees and how much it adds to the score. */
typedef struct smartstack_reason {
    smartstack_text text;
    double contribution;
} smartstack_reason;

/* One widget of a ranking, as in the JSON's "ranking" array. */
typedef struct smartstack_ranked_widget {
    smartstack_text widget;
    double score;
    /* Its reasons, largest contribution first: `reason_count` entries of the decision's
       `reasons` array from `reasons` on (NULL when there are none, as without `explain`). */
    const smartstack_reason *reasons;
    size_t reason_count;
    /* Non-zero when the widget may be on top ("eligible" in the JSON). */
    int eligible;
} smartstack_ranked_widget;

typedef struct smartstack_decision {
    /* Bytes of the whole block, this struct included. */
    size_t size;
    /* The arguments of the call, as the JSON's "stack", "user" and "at" give them back. */
    smartstack_text stack;
    smartstack_text user;
    int64_t at_unix_ns;
    int32_t utc_offset_seconds;
    /* The policy that scored the ranking, e.g. "contextual". */
    smartstack_text policy;
    /* The widget on top; `bytes` NULL when no widget is eligible (the JSON's null). */
    smartstack_text top;
    /* Non-zero when the top changed at this decision. */
    int rotated;
    /* The probability with which the policy picked the top (1 for deterministic policies). */
    double propensity;
    /* The ranking, in the scorer's order (NULL when the stack has no widget). */
    const smartstack_ranked_widget *widgets;
    size_t widget_count;
    /* Every widget's reasons, widget after widget (NULL when there are none). */
    const smartstack_reason *reasons;
    size_t reason_count;
} smartstack_decision;

/*
 * smartstack_decide, with the decision packed: the same decision (the same change of rotation
 * state), the same statuses and last errors, the same values. On success *out_decision is the
 * block (release with smartstack_free_decision); on failure NULL.
 *
 *     smartstack_decision *d = NULL;
 *     if (smartstack_decide_packed(engine, "home", "me", at_ns, -5 * 3600, 1, &d) == SMARTSTACK_OK) {
 *         for (size_t i = 0; i < d->widget_count; i++)
 *             printf("%.*s %g\n", (int)d->widgets[i].widget.length, d->widgets[i].widget.bytes, d->widgets[i].score);
 *         smartstack_free_decision(d);
 *     }
 */
smartstack_status smartstack_decide_packed(smartstack_engine *engine, const char *stack, const char *user,
                                           int64_t at_unix_ns, int32_t utc_offset_seconds, int explain,
                                           smartstack_decision **out_decision);

/* Releases a decision smartstack_decide_packed returned. NULL is a no-op. */
void smartstack_free_decision(smartstack_decision *decision);

#ifdef __cplusplus
}
#endif

#endif /* SMARTSTACK_H */

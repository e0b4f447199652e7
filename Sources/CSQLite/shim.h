#ifndef SMARTSTACK_CSQLITE_SHIM_H
#define SMARTSTACK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Swift cannot call C variadic functions; these wrappers expose the configuration calls we use.
static inline int smartstack_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// Turns off SQLite's global memory statistics, which take a process-wide mutex on every
/// allocation. Only effective before SQLite is initialized; returns SQLITE_MISUSE afterwards.
static inline int smartstack_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// SQLITE_TRANSIENT is a macro cast Swift cannot import.
static inline sqlite3_destructor_type smartstack_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Binds UTF-8 text that SQLite copies before returning (SQLITE_TRANSIENT), so the caller's
/// buffer only has to live for the duration of the call. `bytes` may be NULL when `count` is 0:
/// the value bound is then the empty text, never NULL.
static inline int smartstack_sqlite3_bind_text_copy(sqlite3_stmt *stmt, int index,
                                                    const char *bytes, int count) {
    return sqlite3_bind_text(stmt, index, count == 0 ? "" : bytes, count, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies before returning; an empty blob is a zero-length blob, never NULL.
static inline int smartstack_sqlite3_bind_blob_copy(sqlite3_stmt *stmt, int index,
                                                    const void *bytes, int count) {
    if (count == 0) return sqlite3_bind_zeroblob(stmt, index, 0);
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}
#endif

#ifndef SMARTSTACK_CSQLITE_SHIM_H
#define SMARTSTACK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Swift cannot call C variadic functions; these wrappers expose the configuration calls we use.
static inline int smartstack_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// SQLITE_TRANSIENT is a macro cast Swift cannot import.
static inline sqlite3_destructor_type smartstack_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif

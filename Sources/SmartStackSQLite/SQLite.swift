// CONTRACT STUB — the store helper replaces this module with the real SQLite layer.
import CSQLite

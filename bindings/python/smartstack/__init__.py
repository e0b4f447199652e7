"""SmartStack's relevance engine from Python: the C API (include/smartstack.h) through ctypes.

The shared library is found through $SMARTSTACK_LIBRARY, then next to this package, then the
release build folder of the SmartStack checkout (`swift build -c release --product SmartStackC`).
"""
from ._engine import (
    ArgumentTypeError,
    Decision,
    Engine,
    InvalidArgumentError,
    RankedWidget,
    Ranking,
    Reason,
    RecordResult,
    SmartStackError,
    Status,
    library_version,
)
from ._library import LibraryNotFoundError, library_path

__all__ = [
    "ArgumentTypeError",
    "Decision",
    "Engine",
    "InvalidArgumentError",
    "LibraryNotFoundError",
    "RankedWidget",
    "Ranking",
    "Reason",
    "RecordResult",
    "SmartStackError",
    "Status",
    "library_path",
    "library_version",
]

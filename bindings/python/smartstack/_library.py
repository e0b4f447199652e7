"""Finding and loading libSmartStackC, and declaring the C functions of include/smartstack.h."""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from ctypes import POINTER, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint64, c_void_p
from pathlib import Path

LIBRARY_FILE = "libSmartStackC.dylib" if sys.platform == "darwin" else "libSmartStackC.so"
BUILD_COMMAND = "swift build -c release --product SmartStackC"


class LibraryNotFoundError(OSError):
    """The shared library is not where the package looks; the message says how to build it."""


def _checkouts():
    """The SmartStack checkout this package was installed from (recorded by setup.py), then the
    one it sits in (running from the checkout or an editable install)."""
    try:
        from ._checkout import CHECKOUT  # written at install time

        yield Path(CHECKOUT)
    except ImportError:
        pass
    for parent in Path(__file__).resolve().parents:
        if (parent / "Package.swift").is_file() and (parent / "include" / "smartstack.h").is_file():
            yield parent
            break


def library_path() -> Path:
    """Where the library is: $SMARTSTACK_LIBRARY, else next to this package, else the release
    build folder of the checkout."""
    configured = os.environ.get("SMARTSTACK_LIBRARY")
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise LibraryNotFoundError(
                f"SMARTSTACK_LIBRARY is {configured}, which is not a file. Build the library in the SmartStack "
                f"checkout with `{BUILD_COMMAND}` (it is then .build/release/{LIBRARY_FILE}) and point "
                "SMARTSTACK_LIBRARY at it, or unset SMARTSTACK_LIBRARY."
            )
        return path
    looked = [Path(__file__).resolve().parent / LIBRARY_FILE]
    looked += [checkout / ".build" / "release" / LIBRARY_FILE for checkout in _checkouts()]
    for path in looked:
        if path.is_file():
            return path
    places = "\n  ".join(str(p) for p in looked)
    raise LibraryNotFoundError(
        f"{LIBRARY_FILE} not found. Looked at (SMARTSTACK_LIBRARY is not set):\n  {places}\n"
        f"Build it in the SmartStack checkout with `{BUILD_COMMAND}`, or set SMARTSTACK_LIBRARY to its path."
    )


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    status = c_int
    engine = c_void_p
    text = c_char_p
    signatures = {
        "smartstack_version": (c_char_p, []),
        "smartstack_last_error": (c_char_p, [engine]),
        "smartstack_open": (status, [text, text, text, c_uint64, POINTER(c_void_p)]),
        "smartstack_open_with_prior": (status, [text, text, text, c_uint64, text, POINTER(c_void_p)]),
        "smartstack_close": (status, [engine]),
        "smartstack_configure": (
            status, [engine, text, text, POINTER(c_char_p), POINTER(c_char_p), c_size_t, c_int64, c_int32]),
        "smartstack_record": (status, [engine, text, c_size_t, POINTER(c_uint64), POINTER(c_uint64)]),
        "smartstack_decide": (
            status, [engine, text, text, c_int64, c_int32, c_int, POINTER(c_void_p), POINTER(c_size_t)]),
        "smartstack_decide_packed": (status, [engine, text, text, c_int64, c_int32, c_int, POINTER(c_void_p)]),
        "smartstack_free_decision": (None, [c_void_p]),
        "smartstack_rank": (status, [engine, text, text, c_int64, c_int32, POINTER(c_void_p), POINTER(c_size_t)]),
        "smartstack_rank_explained": (
            status, [engine, text, text, c_int64, c_int32, c_int, POINTER(c_void_p), POINTER(c_size_t)]),
        "smartstack_flush": (status, [engine]),
        "smartstack_erase_user": (status, [engine, text, POINTER(c_uint64)]),
        "smartstack_erase_app": (status, [engine, text, POINTER(c_uint64)]),
        "smartstack_free": (None, [c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_loaded: ctypes.CDLL | None = None
_lock = threading.Lock()


def library() -> ctypes.CDLL:
    """The loaded library (loaded on first use, so importing the package never fails)."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _declare(ctypes.CDLL(str(library_path())))
        return _loaded

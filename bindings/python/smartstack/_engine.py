"""The Pythonic surface over the C API: Engine, its results, and its errors."""
from __future__ import annotations

import enum
import json
import threading
import json.scanner
import os
import struct
from ctypes import byref, c_char_p, c_size_t, c_uint64, c_void_p, string_at
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple, Union

from ._library import library

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# Every number of a ranking is a float: a whole contribution written 2 is read 2.0. The scanner
# reads the library's JSON straight (no whitespace around it to skip, nothing after it to check).
_SCAN = json.scanner.make_scanner(json.JSONDecoder(parse_int=float))

# The packed decision of include/smartstack.h in the platform's own layout ("@"): the struct
# smartstack_decision, then per widget (smartstack_ranked_widget, padded to its 8-byte alignment)
# and per reason (smartstack_reason) their pointers, lengths and numbers.
_DECISION = struct.Struct("@NPNPNqiPNPNidPNPN")
_WIDGET = "PNdPNi4x"
_REASON = "PNd"
_WIDGET_FIELDS, _REASON_FIELDS = 6, 3
_arrays: dict = {}


def _array(item: str, count: int) -> struct.Struct:
    """The format of `count` packed items in a row (cached: a host sees few stack sizes)."""
    key = (item, count)
    layout = _arrays.get(key)
    if layout is None:
        layout = struct.Struct("@" + item * count)
        if len(_arrays) < 512:
            _arrays[key] = layout
    return layout


def _parse(text: str) -> Any:
    return _SCAN(text, 0)[0]


class Status(enum.IntEnum):
    """The status codes of include/smartstack.h (`SMARTSTACK_OK`, `SMARTSTACK_ERROR_...`)."""

    OK = 0
    NULL_ARGUMENT = 1
    INVALID_UTF8 = 2
    INVALID_ARGUMENT = 3
    CLOSED = 4
    INVALID_EVENT = 5
    UNKNOWN_STACK = 6
    UNKNOWN_USER = 7
    INVALID_POLICY = 8
    STORAGE = 9
    BUSY = 10
    INTERNAL = 11


class SmartStackError(Exception):
    """A call the engine refused: `status` says what kind of failure, `message` what and where.

    Every door of the engine (C, Python, Java, Swift, the command line) refuses the same inputs
    with the same kind of error: docs/contract.md. Arguments this binding checks before calling
    the library raise the subclasses below, which are also `TypeError` or `ValueError`.
    """

    def __init__(self, status: Status, message: str):
        super().__init__(f"{message} ({status.name})")
        self.status = status
        self.message = message


class ArgumentTypeError(SmartStackError, TypeError):
    """An argument of the wrong Python type (status INVALID_ARGUMENT) or None where a value is
    required (status NULL_ARGUMENT, as a NULL pointer in C)."""


class InvalidArgumentError(SmartStackError, ValueError):
    """An argument of the right type the library refuses, checked before calling it because
    ctypes could not pass it faithfully or because it comes before an argument that is: an
    instant outside the years 1678...2261 (an int64 of nanoseconds would wrap), a UTC offset that
    is not whole minutes, a NUL in a name, a seed outside 0...2**64-1 (status INVALID_ARGUMENT);
    a name holding a lone surrogate (status INVALID_UTF8, in the library's words); an event
    value JSON cannot carry, such as a NaN (status INVALID_EVENT)."""


@dataclass
class Reason:
    """Why a widget scores as it does: a phrase in the person's local time and its contribution."""

    __slots__ = ("text", "contribution")
    text: str
    contribution: float


@dataclass
class RankedWidget:
    """One widget of a ranking: its score (None when not finite), whether it may be on top, why."""

    __slots__ = ("widget", "score", "eligible", "reasons")
    widget: str
    score: Optional[float]
    eligible: bool
    reasons: Tuple[Reason, ...]


@dataclass
class Ranking:
    """A stack's widgets, top first, as the scorer ranks them at an instant."""

    stack: str
    user: str
    at: datetime
    policy: str
    widgets: Tuple[RankedWidget, ...]


class Decision:
    """What the rotation policy shows on top at a decision point, and the ranking it came from.

    `top`, `rotated` and `propensity` are read at once; `ranking` (each widget, and its reasons
    when asked for) is read from the library's answer on first access, so a launcher that only
    needs the top does not pay for building ~45 objects.
    """

    __slots__ = ("stack", "user", "at", "policy", "top", "rotated", "propensity", "_ranking", "_packed")
    _FIELDS = ("stack", "user", "at", "policy", "top", "rotated", "propensity", "ranking")

    def __init__(self, stack: str, user: str, at: datetime, policy: str, top: Optional[str], rotated: bool,
                 propensity: float, ranking: Tuple[RankedWidget, ...]):
        self.stack, self.user, self.at, self.policy = stack, user, at, policy
        self.top, self.rotated, self.propensity = top, rotated, propensity
        self._ranking: Optional[Tuple[RankedWidget, ...]] = ranking
        self._packed: Optional[tuple] = None

    @property
    def ranking(self) -> Tuple[RankedWidget, ...]:
        """The scorer's order: pinned widget first, then eligible widgets by score, then the rest."""
        if self._ranking is None:
            # Two threads may both read it here: they build equal tuples, and either one stays.
            self._ranking = _packed_widgets(*self._packed)
            self._packed = None
        return self._ranking

    def __eq__(self, other):
        if not isinstance(other, Decision):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._FIELDS)

    __hash__ = None

    def __repr__(self) -> str:
        return "Decision(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS) + ")"


@dataclass
class RecordResult:
    """How many events a `record` stored, and how many it skipped as already stored (same id)."""

    inserted: int
    duplicates: int


Event = Mapping[str, Any]


class Engine:
    """The SmartStack engine over one event log (an SQLite file, or ":memory:").

    >>> from datetime import datetime, timedelta, timezone
    >>> boston = timezone(timedelta(hours=-5))
    >>> with Engine(":memory:") as engine:
    ...     engine.record({"time": datetime(2026, 3, 2, 8, 0, tzinfo=boston), "type": "stack_config",
    ...                    "user": "me", "stack": "home", "widgets": [{"id": "calendar"}, {"id": "weather"}]})
    ...     engine.decide("home", user="me", at=datetime(2026, 3, 2, 8, 5, tzinfo=boston)).top
    RecordResult(inserted=1, duplicates=0)
    'calendar'

    Safe to use from several threads at once (the library releases the GIL while it works).
    """

    def __init__(self, path: str, *, policy: Optional[str] = None, rotation: Optional[str] = None, seed: int = 0,
                 prior: Optional[str] = None):
        """`prior`: the path of a population prior learnt from many people (`smartstack prior learn`),
        which the policy starts each person from until their own evidence takes over; None for none."""
        self._closed = True  # until opened: __del__ and close() then do nothing
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ArgumentTypeError(Status.INVALID_ARGUMENT, f"seed must be an int, not {type(seed).__name__}")
        if not 0 <= seed < 2**64:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT, f"seed {seed} is outside 0...2**64-1 (a uint64_t)")
        self._lib = library()
        self._close_lock = threading.Lock()
        handle = c_void_p()
        arguments = (_text(path, "path"), _optional_text(policy, "policy"), _optional_text(rotation, "rotation"), seed)
        if prior is None:
            status = self._lib.smartstack_open(*arguments, byref(handle))
        else:
            status = self._lib.smartstack_open_with_prior(*arguments, _text(os.fspath(prior), "prior"), byref(handle))
        if status != Status.OK:
            raise _error(self._lib, status, None)
        self._handle = handle.value
        self._closed = False

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # finalizers must not raise; call close() to see errors
            pass

    def close(self) -> None:
        """Saves every user's state and closes the engine; later calls raise (status CLOSED).
        Closing twice, also from two threads at once, closes once."""
        if getattr(self, "_closed", True):
            return
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._check(self._lib.smartstack_close(self._handle))

    def flush(self) -> None:
        """Saves every user's state that changed (close does it too)."""
        self._check(self._lib.smartstack_flush(self._handle))

    def _open(self) -> None:
        """Raises the library's own CLOSED error once closed: a call on a closed engine fails as
        closed before its arguments are looked at, in every door (docs/contract.md)."""
        if self._closed:
            self._check(self._lib.smartstack_flush(self._handle))

    def record(self, events: Union[Event, Iterable[Event]]) -> RecordResult:
        """Records one JSONL v1 event given as a dict, or a list of them, all or nothing.

        Values are what the format says (Datasets/FORMAT.md); `time` may also be a `datetime`
        with tzinfo. A `stack_config` event configures a stack. Events whose (user, id) is already
        stored are skipped and counted as duplicates.
        """
        self._open()
        if isinstance(events, Mapping):
            events = [events]
        elif isinstance(events, (str, bytes, bytearray, memoryview)) or not isinstance(events, Iterable):
            raise ArgumentTypeError(
                Status.INVALID_ARGUMENT,
                f"events must be an event (a dict) or an iterable of events, not {type(events).__name__}"
                + (" (JSONL text goes to record_jsonl)" if isinstance(events, (str, bytes)) else ""))
        lines = [_event_line(event, i) for i, event in enumerate(events)]
        return self.record_jsonl("\n".join(lines))

    def record_jsonl(self, text: Union[str, bytes]) -> RecordResult:
        """Records JSONL v1 text (one event per line, as in a `.jsonl` file), all or nothing."""
        self._open()
        if isinstance(text, str):
            data = _utf8(text)
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
        else:
            raise ArgumentTypeError(Status.INVALID_ARGUMENT, f"text must be a str or bytes, not {type(text).__name__}")
        inserted, duplicates = c_uint64(), c_uint64()
        self._check(self._lib.smartstack_record(self._handle, data, len(data), byref(inserted), byref(duplicates)))
        return RecordResult(inserted.value, duplicates.value)

    def configure(self, stack: str, widgets: Sequence[Union[str, Tuple[str, Optional[str]]]], *,
                  user: str = "default", at: datetime) -> None:
        """Configures `user`'s stack from `at` on: widget ids, or (id, app) pairs, in the person's order."""
        self._open()
        # Checked in the order of the C API's arguments, so a call wrong twice fails as it would in C.
        user_text, stack_text = _text(user, "user"), _text(stack, "stack")
        pairs = _widget_pairs(widgets)
        texts = []
        for i, (widget, app) in enumerate(pairs):
            texts.append((_text(widget, f"widget_ids[{i}]"), _optional_text(app, f"widget_apps[{i}]")))
        ids = (c_char_p * max(1, len(pairs)))(*[t for t, _ in texts])
        apps = (c_char_p * max(1, len(pairs)))(*[a for _, a in texts])
        at_ns, offset = _instant(at)
        self._check(self._lib.smartstack_configure(
            self._handle, user_text, stack_text, ids, apps, len(pairs), at_ns, offset))

    def decide(self, stack: str, *, user: str = "default", at: datetime, explain: bool = True) -> Decision:
        """At a decision point (screen on): what the rotation policy shows on top of `stack` at
        `at`, with the ranking it came from (each widget's reasons unless `explain` is False).
        Changes the rotation state."""
        self._open()
        stack_text, user_text = _text(stack, "stack"), _text(user, "user")
        at_ns, offset = _instant(at)
        # The packed form (smartstack_decide_packed): numbers as doubles, nothing to parse.
        address = c_void_p()
        self._check(self._lib.smartstack_decide_packed(self._handle, stack_text, user_text, at_ns,
                                                       offset, 1 if explain else 0, byref(address)))
        address = address.value
        try:
            block = string_at(address, c_size_t.from_address(address).value)
        finally:
            self._lib.smartstack_free_decision(address)
        (size, stack_at, stack_length, user_at, user_length, _, _, policy_at, policy_length, top_at, top_length,
         rotated, propensity, widgets_at, widget_count, reasons_at, reason_count) = _DECISION.unpack_from(block)
        start = stack_at - address
        end = (top_at + top_length if top_at else policy_at + policy_length) - address
        # The texts lie one after another, each followed by a NUL: stack, user, policy, top.
        head = block[start:end].decode("utf-8").split("\0")
        if len(head) != (4 if top_at else 3):  # a NUL inside a text: read each by its length
            texts = ((stack_at, stack_length), (user_at, user_length), (policy_at, policy_length), (top_at, top_length))
            head = [_decoded(block, address, *text) for text in texts[:len(texts) if top_at else 3]]
        decision = Decision(head[0], head[1], at, head[2], head[3] if top_at else None, rotated != 0,
                            propensity if propensity - propensity == 0.0 else None, None)
        decision._packed = (block, address, end + 1, widgets_at, widget_count, reasons_at, reason_count)
        return decision

    def decide_json(self, stack: str, *, user: str = "default", at: datetime, explain: bool = True) -> str:
        """`decide`, with the decision as the library's JSON text (smartstack_decide): the stable
        wire format, to store or forward as it is. Changes the rotation state as `decide` does."""
        self._open()
        stack_text, user_text = _text(stack, "stack"), _text(user, "user")
        at_ns, offset = _instant(at)
        return self._answer(self._lib.smartstack_decide, stack_text, user_text, at_ns, offset, 1 if explain else 0)

    def rank(self, stack: str, *, user: str = "default", at: datetime, explain: bool = True) -> Ranking:
        """The ranking of `stack` at `at` with each widget's reasons (none when `explain` is
        False: the same order and scores, for a host that only needs the order); changes
        nothing."""
        self._open()
        stack_text, user_text = _text(stack, "stack"), _text(user, "user")
        at_ns, offset = _instant(at)
        raw = _parse(self._answer(self._lib.smartstack_rank_explained, stack_text, user_text, at_ns, offset,
                                  1 if explain else 0))
        return Ranking(stack=raw["stack"], user=raw["user"], at=at, policy=raw["policy"],
                       widgets=_widgets(raw["ranking"]))

    def erase_user(self, user: str) -> int:
        """Erases every event and all state of `user`; returns the number of events deleted."""
        self._open()
        deleted = c_uint64()
        self._check(self._lib.smartstack_erase_user(self._handle, _text(user, "user"), byref(deleted)))
        return deleted.value

    def erase_app(self, app: str) -> int:
        """Erases every trace of `app` for every user; returns the number of events deleted."""
        self._open()
        deleted = c_uint64()
        self._check(self._lib.smartstack_erase_app(self._handle, _text(app, "app"), byref(deleted)))
        return deleted.value

    def _answer(self, function, *arguments) -> str:
        """The JSON text a decide or rank call returns."""
        text, length = c_void_p(), c_size_t()
        self._check(function(self._handle, *arguments, byref(text), byref(length)))
        try:
            return string_at(text.value, length.value).decode("utf-8")
        finally:
            self._lib.smartstack_free(text)

    def _check(self, status: int) -> None:
        if status != Status.OK:
            raise _error(self._lib, status, self._handle)


def library_version() -> str:
    """The version of the loaded C library, e.g. "0.1.0"."""
    return library().smartstack_version().decode()


def _error(lib, status: int, handle) -> SmartStackError:
    return SmartStackError(Status(status), lib.smartstack_last_error(handle).decode("utf-8", "replace"))


def _utf8(text: str) -> bytes:
    # Lone surrogates pass through as the invalid UTF-8 they are: the library names them.
    return text.encode("utf-8", "surrogatepass")


def _text(value: str, name: str) -> bytes:
    encoded = _encoded.get(value) if type(value) is str else None
    if encoded is not None:
        return encoded
    if value is None:
        raise ArgumentTypeError(Status.NULL_ARGUMENT, f"{name} is NULL (None given; a str is required)")
    if not isinstance(value, str):
        raise ArgumentTypeError(Status.INVALID_ARGUMENT, f"{name} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT, f"{name} contains a NUL character at index "
                                   f"{value.index(chr(0))}, which a C string cannot carry")
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError as error:
        # A lone surrogate: refused here, in the order of the arguments, with the library's words
        # for the bytes it stands for (docs/contract.md: names are checked before the instant).
        offset = len(value[:error.start].encode("utf-8", "surrogatepass"))
        byte = value[error.start].encode("utf-8", "surrogatepass")[0]
        raise InvalidArgumentError(Status.INVALID_UTF8, f"{name} is not valid UTF-8: byte 0x{byte:02X} at offset {offset}") from None
    if len(_encoded) < 1024:  # the few stacks and users a host names again and again
        _encoded[value] = encoded
    return encoded


_encoded: dict = {}


def _optional_text(value: Optional[str], name: str) -> Optional[bytes]:
    return None if value is None else _text(value, name)


# The instants every door accepts (docs/contract.md, "Time"): the local date in these years, the
# UTC offset whole minutes within +-23:59. The messages end as the library's do.
_YEARS = (1678, 2261)
_YEAR_RULE = "is a local time outside the years 1678...2261 of the event format"
_MAXIMUM_OFFSET = 23 * 3600 + 59 * 60
_OFFSET_RULE = f"is not a whole number of minutes within -23:59...+23:59 (-{_MAXIMUM_OFFSET}...{_MAXIMUM_OFFSET} s)"


def _instant(at: datetime) -> Tuple[int, int]:
    """(nanoseconds since the epoch, UTC offset in seconds) of an aware datetime, exactly, or the
    library's own refusal: an int64 of nanoseconds cannot hold every datetime, and ctypes would
    wrap one it cannot hold (year 2300 would become 1715) instead of failing."""
    if not isinstance(at, datetime):
        raise ArgumentTypeError(Status.NULL_ARGUMENT if at is None else Status.INVALID_ARGUMENT,
                                f"at must be a datetime with tzinfo, not {type(at).__name__}")
    offset = at.utcoffset()
    if offset is None:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT, f"at {at.isoformat()} has no UTC offset: give it a tzinfo "
                                   "(SmartStack never guesses a time zone)")
    seconds = offset.days * 86_400 + offset.seconds
    if offset.microseconds or seconds % 60 or abs(seconds) > _MAXIMUM_OFFSET:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT,
                                   f"at {at.isoformat()}: the UTC offset of {offset.total_seconds():g} s {_OFFSET_RULE}")
    if not _YEARS[0] <= at.year <= _YEARS[1]:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT, f"at {at.isoformat()} {_YEAR_RULE}")
    since = at - _EPOCH
    return ((since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds) * 1000, seconds


def _json_value(value: Any) -> Any:
    """Event values JSON has no type for: a datetime becomes its RFC 3339 text, which the library
    then checks as it checks any line (a missing offset, a year out of range: INVALID_EVENT)."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"a value of type {type(value).__name__} is not JSON: {value!r}")


def _event_line(event: Any, index: int) -> str:
    """One event dict as a JSONL line; what JSON cannot carry is refused naming the event."""
    if not isinstance(event, Mapping):
        raise ArgumentTypeError(Status.INVALID_ARGUMENT,
                                f"events[{index}] must be an event (a dict), not {type(event).__name__}")
    try:
        return json.dumps(dict(event), ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_value)
    except TypeError as error:
        raise ArgumentTypeError(Status.INVALID_ARGUMENT, f"events[{index}]: {error}") from None
    except ValueError:
        # allow_nan=False: a NaN or an infinity, which JSON (and the event format) cannot carry.
        field = next((k for k, v in event.items() if isinstance(v, float) and v - v != 0.0), "?")
        raise InvalidArgumentError(Status.INVALID_EVENT,
                                   f"events[{index}]: field '{field}' is {event.get(field)!r}, "
                                   "which a JSON number cannot be") from None


def _widget_pairs(widgets: Any) -> list:
    """Widget ids, or (id, app) pairs, as (id, app) pairs; anything else is refused: a str is
    not taken for its characters."""
    if isinstance(widgets, (str, bytes)) or not isinstance(widgets, Iterable):
        raise ArgumentTypeError(Status.INVALID_ARGUMENT,
                                f"widgets must be a list of widget ids or (id, app) pairs, not {type(widgets).__name__}")
    pairs = []
    for i, w in enumerate(widgets):
        if isinstance(w, str):
            pairs.append((w, None))
        elif isinstance(w, (tuple, list)) and len(w) == 2:
            pairs.append((w[0], w[1]))
        else:
            raise ArgumentTypeError(Status.INVALID_ARGUMENT,
                                    f"widgets[{i}] must be a widget id (str) or an (id, app) pair, not {type(w).__name__}")
    return pairs


def _widgets(raw: list) -> Tuple[RankedWidget, ...]:
    # Built with object.__new__ and slot stores: calling the dataclasses' __init__ (a Python frame
    # per object, ~55 of them) cost a third of reading a ranking with reasons.
    widgets = []
    for w in raw:
        reasons = []
        for r in w.get("reasons", ()):
            reason = _new(Reason)
            reason.text = r["text"]
            reason.contribution = r["contribution"]
            reasons.append(reason)
        widget = _new(RankedWidget)
        widget.widget = w["widget"]
        widget.score = w["score"]
        widget.eligible = w["eligible"]
        widget.reasons = tuple(reasons)
        widgets.append(widget)
    return tuple(widgets)


_new = object.__new__


def _decoded(block: bytes, address: int, at: int, length: int) -> str:
    return block[at - address:at - address + length].decode("utf-8")


def _packed_widgets(block: bytes, address: int, texts_start: int, widgets_at: int, widget_count: int, reasons_at: int,
                    reason_count: int) -> Tuple[RankedWidget, ...]:
    """The ranking of a packed decision (include/smartstack.h, smartstack_decision)."""
    if widget_count == 0:
        return ()
    numbers = _array(_WIDGET, widget_count).unpack_from(block, widgets_at - address)
    reasons = _array(_REASON, reason_count).unpack_from(block, reasons_at - address) if reason_count else ()
    contributions = reasons[2::_REASON_FIELDS]
    total = sum(contributions)
    if total - total != 0.0:  # a NaN or an infinity among them (the JSON's null)
        contributions = [c if c - c == 0.0 else None for c in contributions]
    # Each widget's id, then its reasons' texts, each followed by a NUL: decoded in one go.
    texts = block[texts_start:-1].decode("utf-8").split("\0")
    if len(texts) != widget_count + reason_count:  # a NUL inside a text: read each by its length
        texts = []
        r = 0
        for w in range(0, widget_count * _WIDGET_FIELDS, _WIDGET_FIELDS):
            texts.append(_decoded(block, address, numbers[w], numbers[w + 1]))
            for k in range(r, r + numbers[w + 4]):
                texts.append(_decoded(block, address, reasons[k * _REASON_FIELDS], reasons[k * _REASON_FIELDS + 1]))
            r += numbers[w + 4]
    widgets = []
    t = r = 0
    for w in range(0, widget_count * _WIDGET_FIELDS, _WIDGET_FIELDS):
        count = numbers[w + 4]
        items = []
        for text, contribution in zip(texts[t + 1:t + 1 + count], contributions[r:r + count]):
            reason = _new(Reason)
            reason.text = text
            reason.contribution = contribution
            items.append(reason)
        widget = _new(RankedWidget)
        widget.widget = texts[t]
        score = numbers[w + 2]
        widget.score = score if score - score == 0.0 else None
        widget.eligible = numbers[w + 5] != 0
        widget.reasons = tuple(items)
        t += 1 + count
        r += count
        widgets.append(widget)
    return tuple(widgets)

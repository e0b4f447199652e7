"""Property test: random sequences of calls through ctypes, checking the contract (docs/contract.md)
after each, as the C fuzz target Fuzz/Targets/CAPISequenceFuzz.c does through the C API.

Hypothesis drives a state machine over one engine on a log on disk: configure, record (events
with and without ids, some invalid), decide, rank, flush, erase, close, reopen, with names that
may be empty, hold a NUL or a lone surrogate, instants from year 1 to 9999 with odd offsets, and
values of the wrong type. A model predicts what must happen:

- every refusal is a SmartStackError with a status of the header, never another exception;
- an instant outside 1678...2261 (or an offset that is not whole minutes) is INVALID_ARGUMENT,
  and a closed engine is CLOSED whatever the arguments;
- recording counts exactly the new (user, id) pairs as inserted, the others as duplicates;
  erasing a user deletes exactly the events recorded for them;
- a rank changes nothing; a decision at a past instant leaves the live top as it was.

HYPOTHESIS_EXAMPLES (default 40) sets how many sequences run: CI runs 400 (.ci/bindings.sh).
"""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from smartstack import ArgumentTypeError, Engine, SmartStackError, Status

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "40"))
BASE = datetime(2026, 3, 2, 8, 0, tzinfo=timezone(timedelta(hours=-5)))

names = st.one_of(st.sampled_from(["me", "you", "home", "work", "calendar", "weather"]),
                  st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
                  st.sampled_from(["", "nul\0", "lone\ud800", "\U0001F3E0"]))
users = st.sampled_from(["me", "you"])
ids = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]))
offsets = st.one_of(st.integers(-14 * 60, 14 * 60).map(lambda m: m * 60), st.integers(-86_399, 86_399))
instants = st.one_of(
    st.integers(0, 60 * 24 * 14).map(lambda m: BASE + timedelta(minutes=m)),
    st.builds(lambda dt, offset: dt.replace(tzinfo=timezone(timedelta(seconds=offset))),
              st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), offsets))
wrong = st.one_of(st.integers(), st.floats(allow_nan=True), st.binary(max_size=4), st.lists(st.integers(), min_size=1, max_size=2))


def supported(at: datetime) -> bool:
    offset = at.utcoffset().total_seconds()
    return offset % 60 == 0 and abs(offset) <= 86_340 and 1678 <= at.year <= 2261


def name_fault(name: str):
    """What a name is refused for where the names are checked (before the instant), or None."""
    if "\0" in name:
        return Status.INVALID_ARGUMENT
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return Status.INVALID_UTF8
    return None


def text_fault(name: str):
    """The status a name argument must get alone, or None when it is fine."""
    return name_fault(name) or (Status.INVALID_ARGUMENT if name == "" else None)


class EngineMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        import tempfile

        self.directory = tempfile.TemporaryDirectory(prefix="smartstack-properties-")
        self.path = os.path.join(self.directory.name, "log.sqlite")
        self.engine = Engine(self.path)
        self.closed = False
        self.stored_ids: set = set()   # (user, id) pairs stored
        self.events_of: dict = {}      # user -> events stored for them
        self.configured: dict = {}     # user -> earliest configuration instant of "home"

    def teardown(self):
        self.engine.close()
        self.directory.cleanup()

    def call(self, function, *arguments, expect=None, **keywords):
        """Runs a call; checks the contract's outcome; returns the result or the error."""
        try:
            result = function(*arguments, **keywords)
        except SmartStackError as error:
            assert isinstance(error.status, Status) and error.status != Status.INTERNAL, error
            assert error.message, "a refusal without a message"
            if self.closed:
                assert error.status == Status.CLOSED, f"a closed engine answered {error.status.name}: {error.message}"
            elif expect is not None:
                assert error.status == expect, f"expected {expect.name}, got {error.status.name}: {error.message}"
            return error
        assert not self.closed, "a closed engine answered"
        assert expect is None, f"expected {expect.name}, but the call succeeded"
        return result

    @rule(user=users, widgets=st.lists(st.sampled_from(["calendar", "weather", "music"]), min_size=1, max_size=3, unique=True),
          minutes=st.integers(0, 60 * 24))
    def configure(self, user, widgets, minutes):
        at = BASE + timedelta(minutes=minutes)
        if not isinstance(self.call(self.engine.configure, "home", widgets, user=user, at=at), SmartStackError):
            self.events_of[user] = self.events_of.get(user, 0) + 1
            self.configured[user] = min(self.configured.get(user, at), at)

    @rule(batch=st.lists(st.tuples(users, ids, st.integers(0, 60 * 24 * 14), st.booleans()), max_size=6))
    def record(self, batch):
        events, valid = [], True
        for user, event_id, minutes, good in batch:
            event = {"time": BASE + timedelta(minutes=minutes), "type": "app_launch", "user": user, "app": "com.apple.weather"}
            if event_id:
                event["id"] = event_id
            if not good:
                event["time"] = "2300-01-01T00:00:00Z"   # an event the format refuses: nothing of the batch
                valid = False
            events.append(event)
        result = self.call(self.engine.record, events, expect=None if valid else Status.INVALID_EVENT)
        if isinstance(result, SmartStackError):
            return
        new, seen = 0, set()
        for user, event_id, _, _ in batch:
            key = (user, event_id)
            if event_id is None or (key not in self.stored_ids and key not in seen):
                new += 1
                self.events_of[user] = self.events_of.get(user, 0) + 1
                if event_id is not None:
                    seen.add(key)
        self.stored_ids |= seen
        assert (result.inserted, result.duplicates) == (new, len(batch) - new), (result, batch)

    @rule(stack=names, user=names, at=instants, decide=st.booleans())
    def answer(self, stack, user, at, decide):
        # The contract's order: the names (NUL, UTF-8), the instant, then empty names.
        expect = (name_fault(stack) or name_fault(user) or (None if supported(at) else Status.INVALID_ARGUMENT)
                  or (Status.INVALID_ARGUMENT if "" in (stack, user) else None))
        call = self.engine.decide if decide else self.engine.rank
        result = self.call(call, stack, user=user, at=at)
        if expect is not None and not self.closed:
            assert isinstance(result, SmartStackError) and result.status == expect, (result, stack, user, at)

    @rule(minutes=st.integers(0, 60 * 24 * 14), user=users)
    def rank_changes_nothing(self, minutes, user):
        at = BASE + timedelta(minutes=minutes)
        first, second = self.call(self.engine.rank, "home", user=user, at=at), self.call(self.engine.rank, "home", user=user, at=at)
        assert type(first) is type(second)
        if not isinstance(first, SmartStackError):
            assert first == second

    @rule(minutes=st.integers(1, 60 * 24 * 14), back=st.integers(1, 60 * 24), user=users)
    def past_decision_leaves_the_live_top(self, minutes, back, user):
        at = BASE + timedelta(minutes=minutes)
        again = self.call(self.engine.decide, "home", user=user, at=at)
        again = self.call(self.engine.decide, "home", user=user, at=at)
        self.call(self.engine.decide, "home", user=user, at=at - timedelta(minutes=back))
        after = self.call(self.engine.decide, "home", user=user, at=at)
        assert type(again) is type(after)
        if not isinstance(again, SmartStackError):
            assert again.top == after.top, (again.top, after.top)

    @rule(value=wrong, which=st.sampled_from(["events", "at", "user", "widgets"]))
    def wrong_type(self, value, which):
        if which == "events":
            result = self.call(self.engine.record, value)
        elif which == "at":
            result = self.call(self.engine.decide, "home", user="me", at=value)
        elif which == "user":
            result = self.call(self.engine.rank, "home", user=value, at=BASE)
        else:
            result = self.call(self.engine.configure, "home", value, user="me", at=BASE)
        if not self.closed:
            assert isinstance(result, ArgumentTypeError) and result.status == Status.INVALID_ARGUMENT, (which, value, result)

    @rule(user=st.one_of(users, names))
    def forget(self, user):
        result = self.call(self.engine.erase_user, user, expect=text_fault(user))
        if not isinstance(result, SmartStackError):
            assert result == self.events_of.pop(user, 0), (user, result)
            self.stored_ids = {key for key in self.stored_ids if key[0] != user}
            self.configured.pop(user, None)

    @rule()
    def flush(self):
        self.call(self.engine.flush)

    @rule()
    def close(self):
        self.engine.close()
        self.closed = True

    @precondition(lambda self: self.closed)
    @rule()
    def reopen(self):
        self.engine = Engine(self.path)
        self.closed = False

    @invariant()
    def configured_users_are_known(self):
        if self.closed:
            return
        for user, at in self.configured.items():
            if user in self.events_of:
                result = self.call(self.engine.rank, "home", user=user, at=at + timedelta(days=30))
                assert not isinstance(result, SmartStackError), result


EngineMachine.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=25, deadline=None, database=None,
                                           suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TestEngineMachine = EngineMachine.TestCase

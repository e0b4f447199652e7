"""The conformance scenarios (Conformance/scenarios.jsonl) through the Python door: the
`smartstack` package over the C library, as a Python host calls it (Conformance/README.md).

    SMARTSTACK_LIBRARY=.build/debug/libSmartStackC.so .build/bindings-venv/bin/pytest Conformance/python

A step whose input Python cannot express (bytes no str can hold, an instant finer than a
microsecond, an offset of a day or more) is skipped and named in the summary; nothing else is.
"""
from __future__ import annotations

import json
import math
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from smartstack import Engine, SmartStackError

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios.jsonl"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
SKIPPED: list[str] = []


def load() -> list[dict]:
    with open(SCENARIOS, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


class Inexpressible(Exception):
    """The step's input cannot be written in Python (the reason says why)."""


# --- Values ----------------------------------------------------------------------------------

def text(value, index=None):
    """A name or a JSONL text as a Python host holds it (`str`, or `bytes` for raw JSONL)."""
    if value is None or isinstance(value, str):
        return substitute(value, index)
    if "wrong_type" in value:
        return value["wrong_type"]
    if "repeat" in value:
        return value["repeat"] * value["count"]
    if "concat" in value:
        parts = [text(part, index) for part in value["concat"]]
        return b"".join(p.encode() if isinstance(p, str) else p for p in parts) if any(isinstance(p, bytes) for p in parts) \
            else "".join(parts)
    if "hex" in value:
        return bytes.fromhex(value["hex"])
    raise ValueError(f"unknown value {value!r}")


def name(value, index=None):
    """A name argument: raw bytes become a str only when they are a lone surrogate's bytes
    (what "surrogatepass" gives back); other invalid UTF-8 no str can hold."""
    result = text(value, index)
    if isinstance(result, bytes):
        try:
            return result.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise Inexpressible(f"bytes {value['hex']} are no str (only C can pass them)") from None
    return result


def instant(value):
    if isinstance(value, dict) and "wrong_type" in value:
        return value["wrong_type"]
    if isinstance(value, str):
        fraction = value[19:].split("Z")[0].split("+")[0].split("-")[0]
        if len(fraction) > 7:
            raise Inexpressible(f"{value}: a datetime holds microseconds")
        return datetime.fromisoformat(value)
    ns, offset = int(value["unix_ns"]), value["offset"]
    if ns % 1000:
        raise Inexpressible(f"unix_ns {ns}: a datetime holds microseconds")
    if abs(offset) >= 86_400:
        raise Inexpressible(f"offset {offset} s: Python's timezone holds offsets within +-24 h")
    return (_EPOCH + timedelta(microseconds=ns // 1000)).astimezone(timezone(timedelta(seconds=offset)))


def substitute(value, index):
    return value.replace("{i}", str(index)) if isinstance(value, str) and index is not None else value


def event_value(value, index):
    """An event's JSON value as a dict value: {"float": "nan"} is the float itself."""
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "wrong_type" in value:
            return value["wrong_type"]
        return {k: event_value(v, index) for k, v in value.items()}
    if isinstance(value, list):
        return [event_value(v, index) for v in value]
    return substitute(value, index)


def events(value, index):
    if isinstance(value, dict) and "wrong_type" in value:
        return value["wrong_type"]
    return [event_value(e, index) for e in value]


def widgets(value):
    if isinstance(value, dict) and "wrong_type" in value:
        return value["wrong_type"]
    return [(name(w["id"]), name(w.get("app"))) for w in value]


# --- Running ---------------------------------------------------------------------------------

class Runner:
    def __init__(self, scenario: dict, directory: Path):
        self.scenario = scenario
        options = scenario.get("open", {})
        self.path = str(directory / "conformance.sqlite") if options.get("file") else ":memory:"
        self.options = dict(policy=options.get("policy"), rotation=options.get("rotation"), seed=options.get("seed", 0))
        self.engine = Engine(self.path, **self.options)
        self.skipped: list[str] = []

    def call(self, step: dict, index=None):
        """The step's call; returns its result (what the expectation is checked against)."""
        kind = step["call"]
        e = self.engine
        if kind == "configure":
            return e.configure(name(step["stack"]), widgets(step["widgets"]), user=name(step["user"]), at=instant(step["at"]))
        if kind == "record":
            if "jsonl" in step:
                return e.record_jsonl(text(step["jsonl"], index))
            return e.record(events(step["events"], index))
        if kind in ("pin", "unpin"):
            return e.record({"time": step["at"], "type": f"widget_{kind}", "user": step["user"], "stack": step["stack"],
                             "widget": step["widget"]})
        if kind == "decide":
            return e.decide(name(step["stack"]), user=name(step["user"]), at=instant(step["at"]), explain=step.get("explain", True))
        if kind == "rank":
            return e.rank(name(step["stack"]), user=name(step["user"]), at=instant(step["at"]), explain=step.get("explain", True))
        if kind == "forget":
            return e.erase_user(name(step["user"]))
        if kind == "erase":
            return e.erase_app(name(step["app"]))
        if kind == "flush":
            return e.flush()
        if kind == "close":
            return e.close()
        if kind == "reopen":
            e.close()
            self.engine = Engine(self.path, **self.options)
            return None
        if kind == "open":
            Engine(":memory:", policy=step.get("policy"), rotation=step.get("rotation"), seed=step.get("seed", 0)).close()
            return None
        raise ValueError(f"unknown call {kind}")

    def check(self, step: dict, where: str, index=None):
        expect = step.get("expect", {})
        try:
            result = self.call(step, index)
        except SmartStackError as error:
            assert "error" in expect, f"{where}: expected success {expect}, got {error.status.name}: {error.message}"
            assert error.status.name == expect["error"], f"{where}: expected {expect['error']}, got {error.status.name}: {error.message}"
            for fragment in expect.get("message", []):
                assert fragment in error.message, f"{where}: message lacks {fragment!r}: {error.message[:300]}"
            return None
        assert "error" not in expect, f"{where}: expected {expect['error']}, but the call succeeded"
        if step["call"] in ("decide", "rank"):
            order = [w.widget for w in (result.ranking if step["call"] == "decide" else result.widgets)]
            top = result.top if step["call"] == "decide" else (order[0] if order else None)
            if "top" in expect:
                assert top == expect["top"], f"{where}: top {top!r}, expected {expect['top']!r} (order {order})"
            if "order" in expect:
                assert order == expect["order"], f"{where}: order {order}, expected {expect['order']}"
            if "count" in expect:
                assert len(order) == expect["count"], f"{where}: {len(order)} widgets, expected {expect['count']}"
            if "rotated" in expect:
                assert result.rotated == expect["rotated"], f"{where}: rotated {result.rotated}, expected {expect['rotated']}"
        elif step["call"] == "record" and "inserted" in expect:
            assert (result.inserted, result.duplicates) == (expect["inserted"], expect["duplicates"]), \
                f"{where}: recorded {result}, expected {expect}"
        elif step["call"] in ("forget", "erase") and "deleted" in expect:
            assert result == expect["deleted"], f"{where}: deleted {result}, expected {expect['deleted']}"
        return result

    def threads(self, step: dict, where: str):
        totals = [0, 0]
        failures = []
        lock = threading.Lock()

        def work():
            try:
                for i in range(step["repeat"]):
                    for k, inner in enumerate(step["steps"]):
                        result = self.check(inner, f"{where} thread step {k + 1} #{i}", index=i)
                        if inner["call"] == "record" and result is not None:
                            with lock:
                                totals[0] += result.inserted
                                totals[1] += result.duplicates
            except Exception as error:  # reported below: an assertion in a thread does not fail the test
                failures.append(error)

        workers = [threading.Thread(target=work) for _ in range(step["count"])]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert not failures, f"{where}: {failures[0]}"
        expect = step.get("expect", {})
        if "inserted" in expect:
            assert totals == [expect["inserted"], expect["duplicates"]], f"{where}: threads recorded {totals}, expected {expect}"

    def run(self):
        try:
            for number, step in enumerate(self.scenario["steps"], 1):
                where = f"{self.scenario['name']} step {number} ({step['call']})"
                try:
                    if step["call"] == "threads":
                        self.threads(step, where)
                    else:
                        self.check(step, where)
                except Inexpressible as reason:
                    self.skipped.append(f"{where}: {reason}")
                    if "error" not in step.get("expect", {}):
                        self.skipped.append(f"{self.scenario['name']}: the rest (it builds on step {number})")
                        return
        finally:
            self.engine.close()


@pytest.mark.parametrize("scenario", load(), ids=lambda s: s["name"])
def test_scenario(scenario, tmp_path):
    runner = Runner(scenario, tmp_path)
    runner.run()
    SKIPPED.extend(runner.skipped)


def test_the_scenarios_are_at_least_forty_and_named_once():
    names = [s["name"] for s in load()]
    assert len(names) >= 40 and len(set(names)) == len(names)


@pytest.fixture(scope="session", autouse=True)
def _report_inexpressible_steps():
    yield
    print()
    print(f"conformance (Python door): {len(load())} scenarios, {len(SKIPPED)} steps not expressible in Python")
    for step in SKIPPED:
        print(f"not expressible in Python: {step}")

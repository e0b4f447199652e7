"""Tests of the Python binding: results, errors with their status, time handling, threads, and how
the library is found. SMARTSTACK_LIBRARY (or a release build of the checkout) gives the library."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import smartstack
from smartstack import Engine, SmartStackError, Status



def _checkout():
    """The SmartStack checkout whose header the tests compare with: $SMARTSTACK_ROOT, else the
    nearest directory above this file that holds Package.swift (wherever the tests were copied)."""
    if os.environ.get("SMARTSTACK_ROOT"):
        return Path(os.environ["SMARTSTACK_ROOT"]).resolve()
    return next((p for p in Path(__file__).resolve().parents if (p / "Package.swift").is_file()), None)


CHECKOUT = _checkout()
# The bundled datasets: $SMARTSTACK_DATASETS, else the checkout's Datasets folder.
DATASETS = Path(os.environ["SMARTSTACK_DATASETS"]) if os.environ.get("SMARTSTACK_DATASETS") else \
    (CHECKOUT / "Datasets" if CHECKOUT else None)


def found(base, *parts):
    """`base/parts...`, a file of the checkout or of the datasets folder; a clear skip when it is
    missing (a failure under CI, where every file must be there)."""
    path = base.joinpath(*parts) if base else None
    if path is None or not path.is_file():
        message = (f"{path or '/'.join(parts)} not found: set SMARTSTACK_ROOT to the SmartStack checkout "
                   "(or SMARTSTACK_DATASETS to its Datasets folder)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
BOSTON = timezone(timedelta(hours=-5))
MONDAY = datetime(2026, 3, 2, 8, 0, tzinfo=BOSTON)
HOME = [("calendar", "com.apple.mobilecal"), ("weather", "com.apple.weather"), ("music", None)]


def launches(user="me", days=5, app="com.apple.mobilecal"):
    """The person opens the app at 08:05 every morning for `days` days."""
    return [{"time": MONDAY + timedelta(days=d, minutes=5), "type": "app_launch", "user": user, "app": app}
            for d in range(days)]


@pytest.fixture
def engine():
    with Engine(":memory:") as engine:
        engine.configure("home", HOME, user="me", at=MONDAY)
        yield engine


def test_decide_returns_the_top_and_its_explanation(engine):
    engine.record(launches())
    decision = engine.decide("home", user="me", at=MONDAY + timedelta(days=5, minutes=4))
    assert decision.top == "calendar"
    assert decision.rotated and decision.propensity == 1.0
    assert [w.widget for w in decision.ranking][0] == "calendar"
    assert {w.widget for w in decision.ranking} == {"calendar", "weather", "music"}
    top = decision.ranking[0]
    assert top.eligible and isinstance(top.score, float)
    assert top.reasons and all(isinstance(r.text, str) and isinstance(r.contribution, float) for r in top.reasons)
    assert decision.at == MONDAY + timedelta(days=5, minutes=4) and decision.policy == "contextual"


def test_a_decision_reads_its_ranking_when_first_asked(engine):
    engine.record(launches())
    at = MONDAY + timedelta(days=5, minutes=4)
    ranking = engine.rank("home", user="me", at=at)
    decision = engine.decide("home", user="me", at=at)
    assert decision.top == "calendar" and decision.propensity == 1.0 and isinstance(decision.propensity, float)
    assert decision.ranking == ranking.widgets  # read on first access: the ranking it came from
    assert decision.ranking is decision.ranking  # and read once
    copy = smartstack.Decision(decision.stack, decision.user, decision.at, decision.policy, decision.top,
                               decision.rotated, decision.propensity, decision.ranking)
    assert copy == decision and repr(copy) == repr(decision)
    assert repr(decision).startswith("Decision(stack='home', user='me', ") and "RankedWidget(widget='calendar'" in repr(decision)


def test_names_that_look_like_the_json_around_them_are_read_back(engine):
    user, stack = 'me,"ranking":[{"widget":"x"}]', 'home","top":"weather'
    engine.configure(stack, [("calendar", None), ('w"],"reasons":[', None)], user=user, at=MONDAY)
    decision = engine.decide(stack, user=user, at=MONDAY + timedelta(minutes=1))
    assert (decision.user, decision.stack) == (user, stack)
    assert {w.widget for w in decision.ranking} == {"calendar", 'w"],"reasons":['}


def test_decide_without_explanation_is_the_same_decision(engine):
    engine.record(launches())
    at = MONDAY + timedelta(days=5, minutes=4)
    explained = engine.rank("home", user="me", at=at)
    bare = engine.decide("home", user="me", at=at, explain=False)
    assert bare.top == "calendar"
    assert [(w.widget, w.score, w.eligible) for w in bare.ranking] == \
        [(w.widget, w.score, w.eligible) for w in explained.widgets]
    assert all(w.reasons == () for w in bare.ranking)
    assert all(w.reasons for w in explained.widgets)


def test_rank_without_explanation_is_the_same_ranking(engine):
    engine.record(launches())
    at = MONDAY + timedelta(days=5, minutes=4)
    explained = engine.rank("home", user="me", at=at)
    bare = engine.rank("home", user="me", at=at, explain=False)
    assert [(w.widget, w.score, w.eligible) for w in bare.widgets] == \
        [(w.widget, w.score, w.eligible) for w in explained.widgets]
    assert all(w.reasons == () for w in bare.widgets)
    assert all(w.reasons for w in explained.widgets)


def _exactly(packed, expected):
    """The same value of the same type; floats bit for bit (a JSON null is None)."""
    if isinstance(expected, (list, tuple)):
        return len(packed) == len(expected) and all(_exactly(p, e) for p, e in zip(packed, expected))
    if type(packed) is not type(expected):
        return False
    return struct.pack("<d", packed) == struct.pack("<d", expected) if isinstance(expected, float) else packed == expected


def _fields(decision):
    return (decision.stack, decision.user, decision.policy, decision.top, decision.rotated, decision.propensity,
            [(w.widget, w.score, w.eligible, [(r.text, r.contribution) for r in w.reasons]) for w in decision.ranking])


def _json_fields(text):
    raw = json.loads(text, parse_int=float)
    return (raw["stack"], raw["user"], raw["policy"], raw["top"], raw["rotated"], raw["propensity"],
            [(w["widget"], w["score"], w["eligible"], [(r["text"], r["contribution"]) for r in w.get("reasons", ())])
             for w in raw["ranking"]])


# Stacks of 1 and 14 widgets, ids JSON escapes (a NUL too), apps with non-ASCII names (they appear
# in the reasons), a pinned widget and an ineligible one (relevance 0).
UNUSUAL = "\n".join(json.dumps(e, ensure_ascii=True) for e in [
    {"time": "2026-03-02T07:00:00-05:00", "type": "stack_config", "user": "me", "stack": "one",
     "widgets": [{"id": "solo", "app": "com.solo"}]},
    {"time": "2026-03-02T07:00:00-05:00", "type": "stack_config", "user": "me", "stack": "big",
     "widgets": [{"id": "w0", "app": "com.café"}, {"id": 'say "hi"', "app": "com.文"}, {"id": "back\\slash"},
                 {"id": "tab\there\nnl\u0001"}, {"id": "🏠 home", "app": "com.🏠"}, {"id": "nul\u0000in"}]
                + [{"id": f"w{i}", "app": f"com.{i}"} for i in range(6, 14)]},
    {"time": "2026-03-02T07:30:00-05:00", "type": "widget_pin", "user": "me", "stack": "home", "widget": "music"},
    {"time": "2026-03-02T07:40:00-05:00", "type": "relevance", "user": "me", "widget": "w7", "score": 0},
])


def test_packed_decisions_are_the_json_decisions():
    """Engine.decide reads the packed decision; decide_json gives the library's JSON. Two engines
    with the same history decide at the same instants: every field is the same, floats bit for bit."""
    history = found(DATASETS, "commuter.jsonl").read_bytes()
    apps = ["com.café", "com.文", "com.🏠", "com.solo", "com.7", "com.apple.mobilecal"]
    engines = [Engine(":memory:"), Engine(":memory:")]
    for e in engines:
        e.record_jsonl(history)
        e.configure("home", HOME, user="me", at=MONDAY)
        e.record_jsonl(UNUSUAL)
    cases = {"rotated": 0, "pinned": 0, "ineligible": 0, "non-ASCII reason": 0, "1 widget": 0, "14 widgets": 0, "NUL": 0,
             "no top": 0}
    at = MONDAY
    for step in range(300):
        at += timedelta(minutes=7, seconds=step % 5)
        for e in engines:
            e.record({"time": at - timedelta(minutes=1), "type": "app_launch", "user": "me", "app": apps[step % len(apps)]})
        stack, user = [("one", "me"), ("home", "me"), ("big", "me"), ("top", "commuter-01"), ("bottom", "commuter-02")][step % 5]
        explain = step % 4 != 3
        packed = engines[0].decide(stack, user=user, at=at, explain=explain)
        expected = _json_fields(engines[1].decide_json(stack, user=user, at=at, explain=explain))
        assert _exactly(_fields(packed), expected), (step, _fields(packed), expected)
        ranking = packed.ranking
        cases["rotated"] += packed.rotated
        cases["pinned"] += stack == "home" and ranking[0].widget == "music"
        cases["ineligible"] += any(not w.eligible for w in ranking)
        cases["non-ASCII reason"] += any(not r.text.isascii() for w in ranking for r in w.reasons)
        cases["1 widget"] += len(ranking) == 1
        cases["14 widgets"] += len(ranking) == 14
        cases["NUL"] += any("\0" in w.widget for w in ranking)
        cases["no top"] += packed.top is None
    for e in engines:
        e.close()
    assert all(count > 0 for name, count in cases.items() if name != "no top"), cases


def test_a_stack_without_eligible_widgets_has_no_top(engine):
    engine.record_jsonl('{"time":"2026-03-02T07:00:00-05:00","type":"stack_config","user":"me","stack":"e","widgets":[]}')
    decision = engine.decide("e", user="me", at=MONDAY)
    assert decision.top is None and decision.ranking == () and decision.policy == "contextual"
    engine.record_jsonl('{"time":"2026-03-02T07:00:00-05:00","type":"relevance","user":"me","widget":"solo","score":0}\n'
                        '{"time":"2026-03-02T07:00:00-05:00","type":"stack_config","user":"me","stack":"s",'
                        '"widgets":[{"id":"solo"}]}')
    decision = engine.decide("s", user="me", at=MONDAY)
    assert decision.top is None and [(w.widget, w.eligible) for w in decision.ranking] == [("solo", False)]


def test_packed_layout_is_the_librarys(engine):
    """The struct formats the binding reads with have the C structs' sizes: the library's arrays
    and texts start where the formats say they do."""
    from smartstack import _engine
    engine.record(launches())
    block, address, _, widgets_at, widget_count, reasons_at, reason_count = \
        engine.decide("home", user="me", at=MONDAY + timedelta(days=5, minutes=4))._packed
    stack_at = _engine._DECISION.unpack_from(block)[1]
    assert widget_count == 3 and reason_count > 3
    assert widgets_at - address == _engine._DECISION.size
    assert reasons_at - widgets_at == widget_count * struct.calcsize("@" + _engine._WIDGET)
    assert stack_at - reasons_at == reason_count * struct.calcsize("@" + _engine._REASON)
    assert block[stack_at - address:].startswith(b"home\0me\0contextual\0calendar\0calendar\0")


def test_a_stack_config_event_configures_a_stack():
    with Engine(":memory:") as engine:
        result = engine.record({"time": "2026-03-02T07:00:00-05:00", "type": "stack_config", "user": "me",
                                "stack": "work", "widgets": [{"id": "mail", "app": "com.mail"}, {"id": "notes"}]})
        assert result == smartstack.RecordResult(inserted=1, duplicates=0)
        ranking = engine.rank("work", user="me", at=MONDAY)
        assert [w.widget for w in ranking.widgets] == ["mail", "notes"]


def test_events_with_ids_are_stored_once(engine):
    events = [dict(e, id=f"launch-{i}") for i, e in enumerate(launches())]
    assert engine.record(events) == smartstack.RecordResult(5, 0)
    assert engine.record(events) == smartstack.RecordResult(0, 5)
    assert engine.record_jsonl('{"time":"2026-03-02T09:00:00Z","type":"screen_on","user":"me"}\n').inserted == 1


def test_a_bad_event_records_nothing_and_says_where(engine):
    good, bad = launches(days=1)[0], {"time": "2026-03-02T09:00:00-05:00", "user": "me", "app": "x"}
    with pytest.raises(SmartStackError) as caught:
        engine.record([good, bad])
    assert caught.value.status == Status.INVALID_EVENT
    assert caught.value.message.startswith("<events>:2:") and "type" in caught.value.message
    assert engine.record(good).inserted == 1  # the good event of the failed batch was not stored


@pytest.mark.parametrize("call, status, words", [
    (lambda e: e.decide("gym", user="me", at=MONDAY), Status.UNKNOWN_STACK, "unknown stack 'gym'"),
    (lambda e: e.rank("home", user="nobody", at=MONDAY), Status.UNKNOWN_USER, "unknown user 'nobody'"),
    (lambda e: e.configure("home", ["a", "a"], user="me", at=MONDAY), Status.INVALID_ARGUMENT, "listed twice"),
    (lambda e: e.decide("home\udc80", user="me", at=MONDAY), Status.INVALID_UTF8, "stack is not valid UTF-8"),
    (lambda e: e.record_jsonl(b'{"time":"2026-03-02T08:00:00","type":"screen_on"}'), Status.INVALID_EVENT,
     "no UTC offset"),
])
def test_errors_carry_their_status_and_message(engine, call, status, words):
    with pytest.raises(SmartStackError) as caught:
        call(engine)
    assert caught.value.status == status
    assert words in caught.value.message and words in str(caught.value)


def test_invalid_policy_and_storage_errors_at_open(tmp_path):
    with pytest.raises(SmartStackError) as caught:
        Engine(":memory:", policy="contextual:half_life=soon")
    assert caught.value.status == Status.INVALID_POLICY and "half_life" in caught.value.message
    with pytest.raises(SmartStackError) as caught:
        Engine(":memory:", rotation="margin=lots")
    assert caught.value.status == Status.INVALID_POLICY and "margin" in caught.value.message
    with pytest.raises(SmartStackError) as caught:
        Engine(str(tmp_path / "missing-folder" / "x.sqlite"))
    assert caught.value.status == Status.STORAGE and "missing-folder" in caught.value.message


def write_prior(path, lift="50"):
    """A population prior (Datasets/PRIOR-FORMAT.md) that names two widgets: weather, used 50 times
    more than the average engagement between 08:00 and 09:00 on weekdays, and calendar, used as the
    average engagement at every hour."""
    hours = ["1"] * 24
    hours[8] = lift
    flat = "[" + ",".join(["1"] * 24) + "]"
    lines = [
        '{"format":"smartstack-prior","version":1,"min_people":5,"people":20,"shrinkage":5,"place_kinds":[],'
        '"widgets":2,"apps":0}',
        '{"widget":"calendar","app":null,"people":20,"rate":3,"days":[1,1],"parts":[[1,1,1,1],[1,1,1,1]],'
        '"hours":[' + flat + ',' + flat + '],"places":{}}',
        '{"widget":"weather","app":null,"people":20,"rate":3,"days":[1,1],"parts":[[1,1,1,1],[1,1,1,1]],'
        '"hours":[[' + ",".join(hours) + '],' + flat + '],"places":{}}',
        '{"end":"smartstack-prior","widgets":2,"apps":0}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_population_prior_decides_a_cold_stack_and_says_so(tmp_path):
    at = MONDAY + timedelta(minutes=5)
    with Engine(":memory:", prior=write_prior(tmp_path / "prior.jsonl")) as engine:
        engine.configure("home", HOME, user="me", at=MONDAY)
        decision = engine.decide("home", user="me", at=at)
        assert decision.top == "weather"
        assert any("people like you" in r.text and "put it on top" in r.text for r in decision.ranking[0].reasons)
    with Engine(":memory:") as engine:   # without it, the configured order
        engine.configure("home", HOME, user="me", at=MONDAY)
        assert engine.decide("home", user="me", at=at).top == "calendar"


def test_a_bad_prior_is_refused_at_open_naming_file_and_field(tmp_path):
    bad = write_prior(tmp_path / "bad.jsonl", lift="-2")
    with pytest.raises(SmartStackError) as caught:
        Engine(":memory:", prior=bad)
    assert caught.value.status == Status.INVALID_ARGUMENT
    assert bad in caught.value.message and "hours" in caught.value.message


def test_times_must_carry_a_utc_offset(engine):
    with pytest.raises(ValueError, match="no UTC offset"):
        engine.decide("home", user="me", at=datetime(2026, 3, 2, 8, 0))
    with pytest.raises(SmartStackError, match="no UTC offset") as caught:  # the library's own check of the line
        engine.record({"time": datetime(2026, 3, 2, 8, 0), "type": "screen_on", "user": "me"})
    assert caught.value.status == Status.INVALID_EVENT
    odd = timezone(timedelta(hours=1, seconds=30))
    with pytest.raises(ValueError, match="whole number of minutes"):
        engine.decide("home", user="me", at=datetime(2026, 3, 2, 8, 0, tzinfo=odd))
    with pytest.raises(TypeError):
        engine.decide("home", user="me", at="2026-03-02T08:00:00-05:00")
    with pytest.raises(ValueError, match="NUL"):
        engine.decide("home\0", user="me", at=MONDAY)


def test_local_time_is_the_offset_given():
    """The same instant is the person's usual 08:05 in Boston but 14:05 in Berlin: the morning
    habit counts only where it is morning."""
    with Engine(":memory:") as engine:
        engine.configure("home", HOME, user="me", at=MONDAY)
        engine.record(launches(days=3))
        boston = engine.rank("home", user="me", at=MONDAY + timedelta(days=3, minutes=5))
        berlin = engine.rank("home", user="me", at=(MONDAY + timedelta(days=3, minutes=5)).astimezone(
            timezone(timedelta(hours=1))))
        texts = lambda r: " ".join(reason.text for w in r.widgets for reason in w.reasons)
        assert "weekdays between 07:30 and 08:30" in texts(boston)
        assert "08:" not in texts(berlin)
        assert boston.widgets[0].widget == berlin.widgets[0].widget == "calendar"
        assert boston.widgets[0].score > berlin.widgets[0].score


def test_closed_engine_raises_closed_and_close_twice_is_harmless():
    with Engine(":memory:") as engine:
        pass
    engine.close()
    with pytest.raises(SmartStackError) as caught:
        engine.flush()
    assert caught.value.status == Status.CLOSED and "closed" in caught.value.message


def test_state_survives_reopening(tmp_path):
    path = str(tmp_path / "stack.sqlite")
    at = MONDAY + timedelta(days=5, minutes=4)
    with Engine(path, policy="contextual", rotation="margin=0.2", seed=3) as engine:
        engine.configure("home", HOME, user="me", at=MONDAY)
        engine.record(launches())
        before = engine.rank("home", user="me", at=at)
    with Engine(path, policy="contextual", rotation="margin=0.2", seed=3) as engine:
        assert engine.rank("home", user="me", at=at) == before


def test_erase_a_user_and_an_app(engine):
    engine.record(launches() + launches(app="com.apple.weather"))
    assert engine.erase_app("com.apple.weather") == 5
    later = MONDAY + timedelta(days=7)
    assert "weather" not in [w.widget for w in engine.rank("home", user="me", at=later).widgets]
    assert engine.erase_user("me") == 1 + 5  # the stack configuration and the calendar launches
    with pytest.raises(SmartStackError) as caught:
        engine.rank("home", user="me", at=later)
    assert caught.value.status == Status.UNKNOWN_USER


def test_many_threads_at_once(engine):
    failures = []

    def person(k):
        try:
            user = f"user{k}"
            engine.configure("home", HOME, user=user, at=MONDAY)
            for d in range(20):
                engine.record(launches(user=user, days=1)[0] | {"time": MONDAY + timedelta(days=d, minutes=5),
                                                               "id": str(d)})
                assert engine.decide("home", user=user, at=MONDAY + timedelta(days=d, minutes=6)).top == "calendar"
            with pytest.raises(SmartStackError) as caught:
                engine.decide(f"missing-{k}", user=user, at=MONDAY)
            assert f"missing-{k}" in caught.value.message  # this thread's own error, not another's
        except Exception as error:  # reported below: an assertion in a thread does not fail the test
            failures.append(error)

    threads = [threading.Thread(target=person, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_status_codes_match_the_header():
    header = found(CHECKOUT, "include", "smartstack.h").read_text()
    declared = {m[1]: int(m[2]) for m in re.finditer(r"SMARTSTACK_(OK|ERROR_\w+) = (\d+)", header)}
    mirrored = {("OK" if s.name == "OK" else "ERROR_" + s.name): s.value for s in Status}
    assert mirrored == declared


def test_versions_agree():
    header = found(CHECKOUT, "include", "smartstack.h").read_text()
    version = re.search(r'#define SMARTSTACK_VERSION "([^"]+)"', header)[1]
    project = found(CHECKOUT, "bindings", "python", "pyproject.toml").read_text()
    assert smartstack.library_version() == version
    assert f'version = "{version}"' in project


def run_python(code, env, cwd):
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)


def test_a_missing_library_says_how_to_build_it(tmp_path):
    env = dict(os.environ, SMARTSTACK_LIBRARY=str(tmp_path / "nowhere.so"))
    result = run_python("import smartstack; smartstack.Engine(':memory:')", env, tmp_path)
    assert result.returncode != 0
    assert "LibraryNotFoundError" in result.stderr and "nowhere.so" in result.stderr
    assert "swift build -c release --product SmartStackC" in result.stderr

    # A copy of the package outside any checkout, without the variable: nothing to find.
    package = Path(smartstack.__file__).parent
    shutil.copytree(package, tmp_path / "smartstack", ignore=shutil.ignore_patterns("_checkout.py", "*.so", "__pycache__"))
    env.pop("SMARTSTACK_LIBRARY")
    env["PYTHONPATH"] = str(tmp_path)
    result = run_python("import smartstack; smartstack.Engine(':memory:')", env, tmp_path)
    assert result.returncode != 0
    assert "SMARTSTACK_LIBRARY is not set" in result.stderr
    assert "swift build -c release --product SmartStackC" in result.stderr


def test_the_library_next_to_the_package_is_found(tmp_path):
    package = Path(smartstack.__file__).parent
    shutil.copytree(package, tmp_path / "smartstack", ignore=shutil.ignore_patterns("_checkout.py", "__pycache__"))
    shutil.copy(smartstack.library_path(), tmp_path / "smartstack" / smartstack._library.LIBRARY_FILE)
    env = {k: v for k, v in os.environ.items() if k != "SMARTSTACK_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    result = run_python("import smartstack; print(smartstack.library_path()); smartstack.Engine(':memory:').close()",
                        env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "smartstack" / smartstack._library.LIBRARY_FILE)

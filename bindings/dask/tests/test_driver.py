"""The Dask driver's contract: the merged report is byte-identical to one `smartstack evaluate`,
whatever the shards and workers; failures name what failed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import DATASETS, PACKAGE, evaluate_single, make_wrapper, report_files, report_json
from smartstack_dask import DriverError, evaluate

PERSONAS = ["commuter", "student", "shiftworker", "traveler", "drift"]
# Fewer resamples than the default keep a debug build quick; the intervals are still compared.
OPTIONS = ["--policies", "all", "--bootstrap", "100"]


@pytest.fixture(scope="module")
def references(binary, tmp_path_factory):
    """Each persona's single-process report, made once."""
    out = {}
    base = tmp_path_factory.mktemp("single")
    for persona in PERSONAS:
        data = str(DATASETS / f"{persona}.jsonl")
        evaluate_single(binary, [data], base / persona, OPTIONS)
        out[persona] = report_files(base / persona)
    return out


@pytest.mark.parametrize("persona", PERSONAS)
def test_merged_report_is_byte_identical_for_1_2_3_and_7_shards(persona, client, binary, references, workdir):
    data = str(DATASETS / f"{persona}.jsonl")
    expected = references[persona]
    report = json.loads(expected["report.json"])
    assert any(p["name"] == "oracle" for p in report["policies"])  # `all` found the truth file
    assert all(p["ope"] is not None for p in report["policies"])   # off-policy estimates included
    for shards in (1, 2, 3, 7):
        target = workdir / f"{persona}-{shards}"
        result = evaluate([data], str(target), client=client, binary=binary, shards=shards, evaluate_args=OPTIONS)
        assert report_files(target) == expected, f"{persona}, {shards} shards"
        assert sum(1 for _ in result.shards) + result.skipped_empty_shards == shards


def test_partials_through_dask_or_shared_storage_merge_the_same(client, binary, references, workdir):
    # A LocalCluster's workers write partials where the driver reads them; a remote cluster
    # without shared storage returns them through Dask. Both give the single run's report.
    data = str(DATASETS / "commuter.jsonl")
    for shared, through in ((None, "storage"), (False, "dask")):
        target = workdir / f"through-{through}"
        kept = workdir / f"kept-{through}"
        result = evaluate([data], str(target), client=client, binary=binary, shards=3, evaluate_args=OPTIONS,
                          keep_partials=str(kept), shared_storage=shared)
        assert report_files(target) == references["commuter"], through
        assert {s["partial_through"] for s in result.shards} == {through}
        assert sorted(os.listdir(kept)) == [f"shard-{s['shard']:05d}.partial" for s in result.shards]


def test_a_worker_killed_mid_run_loses_nothing(client, binary, references, workdir):
    # Every evaluation takes at least 3 s, so the kill lands while tasks run.
    slow = make_wrapper(workdir, binary, 'case "$1" in evaluate) sleep 3;; esac\nexec "$REAL" "$@"')
    data = str(DATASETS / "commuter.jsonl")
    target = workdir / "killed"
    outcome = {}

    def run():
        try:
            outcome["result"] = evaluate([data], str(target), client=client, binary=slow, local_binary=binary,
                                         shards=4, evaluate_args=OPTIONS)
        except Exception as error:  # reported below
            outcome["error"] = error

    driver = threading.Thread(target=run)
    driver.start()
    pids = client.run(os.getpid)
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline:
        for address, keys in client.processing().items():
            if any(str(k).startswith("smartstack-evaluate") for k in keys):
                victim = address
                break
        time.sleep(0.1)
    assert victim is not None, "no evaluation task started"
    os.kill(pids[victim], signal.SIGKILL)
    driver.join(timeout=300)
    assert not driver.is_alive()
    assert "error" not in outcome, outcome.get("error")
    assert report_files(target) == references["commuter"]
    # The nanny restarted the worker: the cluster is whole again for the next tests.
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.scheduler_info()["workers"] or pids[victim] != client.run(os.getpid).get(victim)


def test_a_missing_binary_on_the_workers_is_named(client, binary, workdir):
    data = str(DATASETS / "commuter.jsonl")
    with pytest.raises(DriverError) as error:
        evaluate([data], str(workdir / "r"), client=client, binary="/nonexistent/smartstack", local_binary=binary,
                 shards=2, evaluate_args=OPTIONS)
    message = str(error.value)
    assert "smartstack binary not found at /nonexistent/smartstack" in message
    assert "worker tcp://" in message


def test_an_unreadable_shard_is_named(client, binary, workdir):
    good = workdir / "good.jsonl"
    good.write_bytes((DATASETS / "commuter.jsonl").read_bytes())
    bad = workdir / "bad.jsonl"
    bad.write_text('{"time":"2026-01-05T08:00:00Z","user":"x","type":"screen_on"}\nnot json\n')
    with pytest.raises(DriverError) as error:
        evaluate([str(good), str(bad)], str(workdir / "r"), client=client, binary=binary, sharded=True,
                 evaluate_args=OPTIONS)
    message = str(error.value)
    assert f"shard 1 ({bad})" in message
    assert f"{bad}:2:1" in message


def test_a_corrupt_partial_is_named_with_its_shard(client, binary, workdir):
    # Evaluate, then cut the partial file in half: merge must refuse it and the driver name the shard.
    cutting = make_wrapper(workdir, binary, '\n'.join([
        '"$REAL" "$@" || exit $?',
        'for last; do :; done',
        'case "$1" in evaluate) size=$(wc -c < "$last"); head -c $((size / 2)) "$last" > "$last.cut" && mv "$last.cut" "$last";; esac',
    ]))
    data = str(DATASETS / "commuter.jsonl")
    with pytest.raises(DriverError) as error:
        evaluate([data], str(workdir / "r"), client=client, binary=cutting, local_binary=binary, shards=2,
                 evaluate_args=OPTIONS)
    message = str(error.value)
    assert "smartstack merge failed" in message
    assert "not a complete partial file" in message or "corrupt partial" in message
    assert "is the partial of shard" in message


def test_merge_refuses_other_options_and_a_user_twice(binary, workdir):
    data = str(DATASETS / "commuter.jsonl")
    a, b = workdir / "a.partial", workdir / "b.partial"
    subprocess.run([binary, "evaluate", data, "--policies", "static", "--bootstrap", "10", "--partial", str(a)], check=True,
                   capture_output=True)
    subprocess.run([binary, "evaluate", data, "--policies", "static", "--bootstrap", "20", "--partial", str(b)], check=True,
                   capture_output=True)
    other = subprocess.run([binary, "merge", str(a), str(b), "--json"], capture_output=True, text=True)
    assert other.returncode == 1
    assert "evaluated with different options (bootstrap 20 vs 10)" in other.stderr
    twice = subprocess.run([binary, "merge", str(a), str(a), "--json"], capture_output=True, text=True)
    assert twice.returncode == 1
    assert "is in both" in twice.stderr and "it would be counted twice" in twice.stderr


def test_the_command_line_runs_a_local_cluster(binary, workdir):
    data = str(DATASETS / "drift.jsonl")
    command = [sys.executable, "-m", "smartstack_dask", "evaluate", data, "--scheduler", "local", "--workers", "2",
               "--binary", binary, "--policies", "static,contextual", "--bootstrap", "50", "--json",
               "--stats", str(workdir / "stats.json")]
    env = dict(os.environ, PYTHONPATH=str(PACKAGE))
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    evaluate_single(binary, [data], workdir / "single", ["--policies", "static,contextual", "--bootstrap", "50"])
    assert report_json(run.stdout.encode()) == report_json((workdir / "single" / "report.json").read_bytes())
    # A clean shutdown: the workers leave before the scheduler, no heartbeat fails.
    assert "Traceback" not in run.stderr and "heartbeat" not in run.stderr, run.stderr
    stats = json.loads((workdir / "stats.json").read_text())
    assert stats["shards"] and all(s["partial_bytes"] > 0 and s["max_rss_kib"] > 0 for s in stats["shards"])


def test_a_small_input_is_evaluated_in_one_process_with_the_same_report(binary, workdir):
    # Below --local-below a LocalCluster costs more than it saves: one `smartstack evaluate`.
    data = str(DATASETS / "drift.jsonl")
    command = [sys.executable, "-m", "smartstack_dask", "evaluate", data, "--scheduler", "local", "--workers", "2",
               "--binary", binary, "--policies", "static,contextual", "--bootstrap", "50", "--json"]
    env = dict(os.environ, PYTHONPATH=str(PACKAGE))
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "without a cluster" in run.stderr, run.stderr
    evaluate_single(binary, [data], workdir / "single", ["--policies", "static,contextual", "--bootstrap", "50"])
    assert report_json(run.stdout.encode()) == report_json((workdir / "single" / "report.json").read_bytes())
    forced = subprocess.run(command + ["--local-below", "0", "--worker-processes"], capture_output=True, text=True,
                            env=env, timeout=300)
    assert forced.returncode == 0 and "without a cluster" not in forced.stderr, forced.stderr
    assert report_json(forced.stdout.encode()) == report_json(run.stdout.encode())
    assert "Traceback" not in forced.stderr and "heartbeat" not in forced.stderr, forced.stderr


def test_a_small_input_does_not_import_dask(binary, workdir):
    # Below --local-below the driver's overhead is Python's start-up: Dask, distributed and fsspec
    # are imported only when a cluster is started (importing them takes longer than such a job).
    data = str(DATASETS / "drift.jsonl")
    code = ("import sys; from smartstack_dask.cli import main; status = main(sys.argv[1:]); "
            "print(sorted(m for m in ('dask', 'distributed', 'fsspec') if m in sys.modules)); sys.exit(status)")
    run = subprocess.run([sys.executable, "-c", code, "evaluate", data, "--binary", binary, "--policies", "static",
                          "--bootstrap", "10", "--report", str(workdir / "no-dask")],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(PACKAGE)), timeout=300)
    assert run.returncode == 0, run.stderr
    assert "without a cluster" in run.stderr, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout
    assert (workdir / "no-dask" / "report.json").is_file()


def test_smartstack_runs_without_the_nannys_malloc_tuning(monkeypatch):
    # A Dask nanny sets MALLOC_TRIM_THRESHOLD_ for its worker; the tasks' smartstack must not inherit it.
    from smartstack_dask import tasks

    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.setenv("SMARTSTACK_TASK_PROBE", "kept")
    stdout, _ = tasks.run("/usr/bin/env", [], "env")
    assert "SMARTSTACK_TASK_PROBE=kept" in stdout
    assert "MALLOC_TRIM_THRESHOLD_" not in stdout

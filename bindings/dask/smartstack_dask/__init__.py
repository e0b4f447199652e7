"""Evaluate SmartStack rotation policies on a Dask cluster.

Shards JSONL inputs by user (`smartstack shard`), evaluates each shard on a worker
(`smartstack evaluate --partial`), and merges the partials (`smartstack merge`) into a report
byte-identical to one `smartstack evaluate` over the whole dataset. See README.md.
"""

__all__ = ["DriverError", "EvaluationResult", "SmartStackTaskError", "evaluate", "ship_binary"]

# Loaded on first use: `python -m smartstack_dask` on an input small enough for one
# `smartstack evaluate` never imports Dask.
_HOMES = {"DriverError": "inputs", "EvaluationResult": "driver", "evaluate": "driver", "ship_binary": "driver",
          "SmartStackTaskError": "tasks"}


def __getattr__(name: str):
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

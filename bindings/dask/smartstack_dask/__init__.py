"""Evaluate SmartStack rotation policies on a Dask cluster.

Shards JSONL inputs by user (`smartstack shard`), evaluates each shard on a worker
(`smartstack evaluate --partial`), and merges the partials (`smartstack merge`) into a report
byte-identical to one `smartstack evaluate` over the whole dataset. See README.md.
"""

from .driver import DriverError, EvaluationResult, evaluate, ship_binary
from .tasks import SmartStackTaskError

__all__ = ["DriverError", "EvaluationResult", "SmartStackTaskError", "evaluate", "ship_binary"]

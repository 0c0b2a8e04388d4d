"""A sweep's runs and curves out of gammalab, into the formats other tools read (docs/own-program.md, "Runs out"):

- Parquet (pyarrow): ``runs.parquet``, one row per job with its config as columns (config.optim.lr, ...), and
  ``points.parquet``, every stored metric point (job, name, step, tokens, value), each value the stored double;
- TensorBoard event files: one run directory per job (named by the job's id and name), a scalar per metric and
  step. TensorBoard keeps a scalar as a 32-bit float: the curves it draws are the stored ones rounded to that.

    python -m gammalab export SWEEP --server 127.0.0.1:8080 --token-file user.token --parquet out/ --tensorboard tb/
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from gammalab.client import Client


def to_parquet(client: Client, sweep: str, out: Path) -> dict:
    """Writes out/runs.parquet and out/points.parquet; returns their row counts."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = client.runs(sweep)
    points = client.points(sweep)
    runs.to_parquet(out / "runs.parquet", engine="pyarrow", index=False)
    points.to_parquet(out / "points.parquet", engine="pyarrow", index=False)
    return {"runs": len(runs), "points": len(points)}


def _run_dir(job: dict) -> str:
    # A directory name from the job's id and name, without separators or anything a shell would trip on.
    name = re.sub(r"[^A-Za-z0-9._=-]+", "_", job["name"])[:120]
    return f"{int(job['id']):06d}-{name}"


def to_tensorboard(client: Client, sweep: str, out: Path) -> dict:
    """Writes one TensorBoard run per job under `out`; returns the runs and scalars written."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {"runs": 0, "scalars": 0}
    for job in client.jobs(sweep):
        points = client.job_points(job["id"])
        if not points:
            continue
        writer = EventFileWriter(str(out / _run_dir(job)))
        wall = time.time()
        for name, step, _tokens, value in sorted(points, key=lambda p: (p[1], p[0])):
            summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=name, simple_value=value)])
            writer.add_event(event_pb2.Event(wall_time=wall, step=step, summary=summary))
            written["scalars"] += 1
        writer.close()
        written["runs"] += 1
    return written

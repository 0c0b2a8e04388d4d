"""A sweep's runs and curves out of gammalab, into the formats other tools read (docs/own-program.md, "Runs out"):

- Parquet (pyarrow): ``runs.parquet``, one row per job with its config as columns (config.optim.lr, ...), and
  ``points.parquet``, every stored metric point (job, name, step, tokens, value), each value the stored double;
- TensorBoard event files: one run directory per job (named by the job's id and name), a scalar per metric and
  step. TensorBoard keeps a scalar as a 32-bit float: the curves it draws are the stored ones rounded to that.
- An MLflow tracking server (over its REST API, gammalab/mlflow_rest.py): one MLflow run per job in an
  experiment (the sweep's name unless given), its config as params (optim.lr, ...), its group, seed, N and D as
  tags (gammalab.group, gammalab.seed, gammalab.params, gammalab.tokens), every point as a metric at its step
  (each value the stored double) and the tokens at each step as the metric ``tokens``. W&B imports from there.

    python -m gammalab export SWEEP --server 127.0.0.1:8080 --token-file user.token --parquet out/ --tensorboard tb/
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from gammalab.client import Client
from gammalab.mlflow_rest import Mlflow


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


# MLflow's limit on a param's value, in characters.
_MAX_PARAM_CHARS = 6000


def to_mlflow(client: Client, sweep: str, url: str, experiment: str = "") -> dict:
    """One MLflow run per job of the sweep in `experiment` (made when missing); returns the runs and metrics."""
    import pandas as pd

    server = Mlflow(url)
    name = experiment or client.sweep(sweep)["name"]
    experiment_id = server.experiment_id(name, create=True)
    written = {"runs": 0, "metrics": 0, "experiment": name}
    now = int(time.time() * 1000)
    for _, row in client.runs(sweep).iterrows():
        points = client.job_points(str(row["id"]))
        if not points:
            continue
        config = {col[len("config."):]: value for col, value in row.items()
                  if col.startswith("config.") and not (pd.api.types.is_scalar(value) and pd.isna(value))}
        tags = {"gammalab.sweep": str(sweep), "gammalab.job": str(row["id"]), "gammalab.state": str(row["state"]),
                "gammalab.group": str(config.get("scale.variant", "baseline")),
                "gammalab.seed": str(config.get("seed", 0)), "gammalab.params": repr(float(row["params"])),
                "gammalab.tokens": repr(float(row["tokens"]))}
        run_id = server.create_run(experiment_id, str(row["name"]), now, tags)
        params = [{"key": k, "value": str(v)} for k, v in sorted(config.items()) if len(str(v)) <= _MAX_PARAM_CHARS]
        metrics = [{"key": n, "value": v, "timestamp": now, "step": step} for n, step, _t, v in points]
        tokens = {step: t for _n, step, t, _v in points}
        metrics += [{"key": "tokens", "value": float(t), "timestamp": now, "step": step} for step, t in tokens.items()]
        server.log_batch(run_id, metrics, params)
        server.finish_run(run_id, now)
        written["runs"] += 1
        written["metrics"] += len(points)
    return written

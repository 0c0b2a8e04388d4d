"""Runs trained elsewhere, into the JSON lines `gammalab import` reads (docs/own-program.md, "Runs in"): a line
``{"run": {...}}`` per run (its name, group, seed, N as params, D as tokens, where it came from), then its points
as metric lines (core/metric.h's format: ``{"step": .., "tokens": .., "metrics": {..}}``).

- Parquet, as ``python -m gammalab export --parquet`` writes it (runs.parquet and points.parquet): every run and
  every point, the same doubles.
- TensorBoard event files: each directory holding event files is a run, each scalar tag a metric. A tag is kept
  under gammalab's name for it (``--metric NAME=TAG``, or a tag that is already one: train/loss, val/loss, lr,
  ...); the others are named on stderr and left out. TensorBoard has no N, D, group or seed: a CSV given with
  ``--runs`` says them per run (columns run, group, seed, params[, tokens]).
- An MLflow experiment (its tracking server's REST API): each run, its metrics' whole histories (keys mapped as
  TensorBoard's tags are; a metric ``tokens`` gives the tokens at each step), and its group, seed, N and D from
  the run's tags or params: gammalab.group, gammalab.seed, gammalab.params, gammalab.tokens (as ``export
  --mlflow`` writes them), else the tag or param named by ``--field group=KEY`` (and seed=, params=, tokens=).

    python -m gammalab convert --parquet out/ --out runs.jsonl
    python -m gammalab convert --tensorboard logs/ --runs runs.csv --metric val/loss=eval/loss --out runs.jsonl
    python -m gammalab convert --mlflow http://127.0.0.1:5000 --experiment ladder --out runs.jsonl
    gammalab import runs.jsonl
"""
from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, TextIO, Tuple

# The metric names a coordinator stores (core/metric_names.h, which its /api/meta lists: a test holds them
# equal); a source's other names are left out.
KNOWN_METRICS = ("train/loss", "val/loss", "lr", "grad_norm", "flops", "tokens_per_s", "sharpness", "scale_rms/input",
                 "scale_rms/output", "wall_s", "sys/cpu_cores", "sys/memory_bytes", "sys/gpu_util",
                 "sys/gpu_memory_bytes")


def _value(v: float):
    # core/metric.h writes non-finite values as strings; JSON has no such numbers.
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _write_run(out: TextIO, header: Dict, points: Iterable[Tuple[str, int, int, float]]) -> int:
    out.write(json.dumps({"run": header}) + "\n")
    by_step: Dict[int, Tuple[int, Dict[str, float]]] = {}
    for name, step, tokens, value in points:
        at = by_step.setdefault(int(step), (int(tokens), {}))
        at[1][name] = value
        by_step[int(step)] = (max(at[0], int(tokens)), at[1])
    for step in sorted(by_step):
        tokens, metrics = by_step[step]
        out.write(json.dumps({"step": step, "tokens": tokens,
                              "metrics": {k: _value(v) for k, v in sorted(metrics.items())}}) + "\n")
    return sum(len(m) for _, m in by_step.values())


def from_parquet(folder: Path, out: TextIO) -> Dict[str, int]:
    """Every run and point of an export's runs.parquet and points.parquet."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    runs = pq.read_table(folder / "runs.parquet").to_pylist()
    points: Dict[str, List[Tuple[str, int, int, float]]] = {}
    for p in pq.read_table(folder / "points.parquet").to_pylist():
        points.setdefault(str(p["job"]), []).append((p["name"], p["step"], p["tokens"], p["value"]))
    written = {"runs": 0, "points": 0}
    for run in runs:
        job = str(run["id"])
        header = {"name": run["name"], "group": run.get("config.scale.variant") or run.get("variant") or "baseline",
                  "seed": int(run["config.seed"]), "params": float(run["params"]), "tokens": float(run["tokens"]),
                  "source": f"{folder} job {job}"}
        written["points"] += _write_run(out, header, points.get(job, []))
        written["runs"] += 1
    return written


def _read_runs_csv(path: Path) -> Dict[str, Dict]:
    runs = {}
    with open(path, newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                runs[row["run"]] = {"group": row.get("group") or "baseline", "seed": int(row["seed"]),
                                    "params": float(row["params"]),
                                    **({"tokens": float(row["tokens"])} if row.get("tokens") else {})}
            except (KeyError, ValueError) as e:
                raise ValueError(f"{path}:{line}: columns run, group, seed, params[, tokens]: {e}") from None
    return runs


def from_tensorboard(folder: Path, runs_csv: Path, metrics: Dict[str, str], out: TextIO,
                     err: TextIO = sys.stderr) -> Dict[str, int]:
    """Each directory under `folder` (itself included) that holds event files is a run, named by its path."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder = Path(folder)
    meta = _read_runs_csv(runs_csv)
    by_tag = {tag: name for name, tag in metrics.items()}
    run_dirs = sorted({p.parent for p in folder.rglob("events.out.tfevents.*")})
    written = {"runs": 0, "points": 0}
    left_out = set()
    for run_dir in run_dirs:
        run = str(run_dir.relative_to(folder)) if run_dir != folder else run_dir.name
        if run not in meta:
            raise ValueError(f"{run_dir}: no row for run '{run}' in {runs_csv} (columns run, group, seed, params)")
        events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
        events.Reload()
        points = []
        for tag in events.Tags()["scalars"]:
            name = _metric_name(tag, by_tag)
            if name is None:
                left_out.add(tag)
                continue
            points.extend((name, e.step, 0, float(e.value)) for e in events.Scalars(tag))
        header = {"name": run, **meta[run], "source": f"tensorboard {run_dir}"}
        written["points"] += _write_run(out, header, points)
        written["runs"] += 1
    return _finished(written, left_out, "TAG", f"{folder}: no TensorBoard event files under it", err)


def _finished(written: Dict[str, int], left_out: set, what: str, none_found: str, err: TextIO) -> Dict[str, int]:
    """The end of a conversion: the source's names it left out said, and no runs at all an error."""
    if left_out:
        print(f"left out (no gammalab name; --metric NAME={what} keeps one): {', '.join(sorted(left_out))}", file=err)
    if written["runs"] == 0:
        raise ValueError(none_found)
    return written


# A metric of the user's own, as the coordinator stores it (core/metric_names.h, /api/meta's user_metrics: a test
# holds these equal): the prefix, then 1 to 64 letters, digits and "_-./".
USER_METRIC_PREFIX = "user/"
USER_METRIC_NAME = re.compile(r"user/[A-Za-z0-9_./-]{1,64}")


def is_metric_name(name: str) -> bool:
    """A name a coordinator stores: one of gammalab's metrics, or one of the user's own (user/NAME)."""
    return name in KNOWN_METRICS or USER_METRIC_NAME.fullmatch(name) is not None


def _metric_name(key: str, by_key: Dict[str, str]) -> Optional[str]:
    return by_key.get(key, key if is_metric_name(key) else None)


def from_mlflow(url: str, experiment: str, metrics: Dict[str, str], fields: Dict[str, str], out: TextIO,
                err: TextIO = sys.stderr) -> Dict[str, int]:
    """Every run of the experiment with its metrics' histories; `fields` names the tag or param holding each of
    group, seed, params and tokens where the gammalab.* tags are absent."""
    from gammalab.mlflow_rest import Mlflow

    server = Mlflow(url)
    experiment_id = server.experiment_id(experiment)
    by_key = {key: name for name, key in metrics.items()}
    written = {"runs": 0, "points": 0}
    left_out = set()
    names = set()
    for run in server.runs(experiment_id):
        info, data = run["info"], run.get("data", {})
        known = {t["key"]: t["value"] for t in data.get("params", [])}
        known.update({t["key"]: t["value"] for t in data.get("tags", [])})
        run_name = info.get("run_name") or info["run_id"]
        if run_name in names:  # MLflow does not keep run names distinct; a sweep's jobs need them so
            run_name = f"{run_name} ({info['run_id']})"
        names.add(run_name)

        def field(what: str, required: bool = True) -> Optional[str]:
            for key in (f"gammalab.{what}", fields.get(what, what)):
                if key in known:
                    return known[key]
            if required:
                raise ValueError(f"MLflow run {run_name} ({info['run_id']}): no {what} (a tag or param "
                                 f"gammalab.{what} or {fields.get(what, what)}; --field {what}=KEY names another)")
            return None

        header = {"name": run_name, "group": field("group", False) or "baseline", "seed": int(field("seed")),
                  "params": float(field("params")), "source": f"mlflow {server.url} run {info['run_id']}"}
        tokens_field = field("tokens", False)
        if tokens_field is not None and float(tokens_field) > 0:
            header["tokens"] = float(tokens_field)
        keys = sorted({m["key"] for m in data.get("metrics", [])})
        tokens_at = {m["step"]: int(m["value"]) for m in server.history(info["run_id"], "tokens")} \
            if "tokens" in keys else {}
        points = []
        for key in keys:
            if key == "tokens":
                continue
            name = _metric_name(key, by_key)
            if name is None:
                left_out.add(key)
                continue
            points.extend((name, int(m["step"]), tokens_at.get(m["step"], 0), float(m["value"]))
                          for m in server.history(info["run_id"], key))
        written["points"] += _write_run(out, header, points)
        written["runs"] += 1
    return _finished(written, left_out, "KEY", f"MLflow experiment {experiment}: no runs", err)


def parse_field_map(pairs: Optional[List[str]]) -> Dict[str, str]:
    """--field WHAT=KEY options as {WHAT: KEY}, WHAT one of group, seed, params, tokens."""
    out = {}
    for pair in pairs or []:
        what, sep, key = pair.partition("=")
        if not sep or not key or what not in ("group", "seed", "params", "tokens"):
            raise ValueError(f"--field {pair}: expected WHAT=KEY with WHAT one of group, seed, params, tokens")
        out[what] = key
    return out


def parse_metric_map(pairs: Optional[List[str]]) -> Dict[str, str]:
    """--metric NAME=TAG options as {NAME: TAG}, NAME one of gammalab's metrics or one of your own (user/NAME)."""
    out = {}
    for pair in pairs or []:
        name, sep, tag = pair.partition("=")
        if not sep or not tag or not is_metric_name(name):
            raise ValueError(f"--metric {pair}: expected NAME=TAG with NAME one of {', '.join(KNOWN_METRICS)}, "
                             f"or {USER_METRIC_PREFIX}NAME (1 to 64 letters, digits, '_', '-', '.', '/')")
        out[name] = tag
    return out

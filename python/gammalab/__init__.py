"""Log from your own training program when gammalab runs it as a job.

A sweep whose file says ``command: [python3, train.py, --lr, "{optim.lr}"]`` runs ``train.py`` on a worker for each
job. The program learns its job from environment variables and prints one JSON line per logged step on stdout;
the worker relays each line to the coordinator, which stores it once. The contract in full is docs/own-program.md.

    import gammalab
    cfg = gammalab.config()                      # the job's config: cfg["optim"]["lr"], cfg["steps"], ...
    start = gammalab.resume_checkpoint()         # (step, path) to resume from, or None
    for step in range(first, cfg["steps"] + 1):
        ...
        gammalab.log(step, {"train/loss": loss}, tokens=step * batch_tokens)
    gammalab.log(cfg["steps"], {"val/loss": val})  # the fits read the val loss at the last step

Outside a job (no GAMMALAB_JOB_ID) log() still prints, so a script runs the same by hand.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path
from typing import IO, Any, Dict, Mapping, Optional, Tuple

__all__ = [
    "PROTOCOL",
    "in_job",
    "config",
    "checkpoint_dir",
    "stored_through_step",
    "checkpoint_path",
    "resume_checkpoint",
    "log",
    "finish",
]

__version__ = "0.1.0"
# The metric line format and the environment of docs/own-program.md; raised when either changes.
PROTOCOL = 1

_CHECKPOINT = re.compile(r"^(?:([0-9a-f]{32})-)?step-(\d{12})\.ckpt$")


def _job_uid() -> str:
    """The job's uid (GAMMALAB_JOB_UID), or "" outside a job or from a coordinator older than uids."""
    uid = os.environ.get("GAMMALAB_JOB_UID", "")
    return uid if re.fullmatch(r"[0-9a-f]{32}", uid) else ""


def in_job() -> bool:
    """Whether a gammalab worker started this process as a job."""
    return "GAMMALAB_JOB_ID" in os.environ


def config() -> Dict[str, Any]:
    """The job's resolved config (its config.json): every field, with the values the sweep and its tune stage
    chose. Outside a job: an empty dict."""
    path = os.environ.get("GAMMALAB_CONFIG")
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def checkpoint_dir() -> Path:
    """The job's checkpoint directory, the same for every attempt (outside a job: ./checkpoints)."""
    path = Path(os.environ.get("GAMMALAB_CHECKPOINT_DIR", "checkpoints"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def stored_through_step() -> int:
    """The last step the coordinator stores a metric of when this attempt started; -1 when none."""
    return int(os.environ.get("GAMMALAB_STORED_THROUGH_STEP", "-1"))


def checkpoint_path(step: int) -> Path:
    """Where the checkpoint of ``step`` goes: write it to a temporary name beside it, then rename it there, so
    that a kill never leaves half a checkpoint under this name."""
    if step < 0:
        raise ValueError(f"step: {step} is negative")
    # Named with the job's uid: a job that gets a reused id (a database restored from a backup) finds the old
    # job's files in its directory, and must never resume from them (resume_checkpoint skips them).
    uid = _job_uid()
    return checkpoint_dir() / f"{uid + '-' if uid else ''}step-{step:012d}.ckpt"


def resume_checkpoint() -> Optional[Tuple[int, Path]]:
    """The checkpoint to resume from: the newest at or before the step the coordinator stores, so that the
    lines printed again from it close every gap (a newer one would leave a hole, which the worker refuses), and
    one this job wrote (its uid in the name), never another job's under a reused id. None on a first attempt, or
    when no checkpoint is old enough."""
    stored = stored_through_step()
    uid = _job_uid()
    best: Optional[Tuple[int, Path]] = None
    for entry in checkpoint_dir().iterdir():
        match = _CHECKPOINT.match(entry.name)
        if match is None or (match.group(1) or "") != uid:  # another job's (a reused id), or none of a job's
            continue
        step = int(match.group(2))
        if step <= stored and (best is None or step > best[0]):
            best = (step, entry)
    return best


def _number(name: str, value: Any) -> Any:
    # JSON has no NaN or infinity; the line format spells them as strings (Python's json would write NaN).
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"metric {name!r}: {value!r} is not a number")
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def log(step: int, metrics: Mapping[str, float], tokens: Optional[int] = None, file: Optional[IO[str]] = None) -> None:
    """Prints one metric line for ``step`` and flushes it. Steps never go back; give a metric once per step;
    log at least every ``log_every`` steps of the job's config, and at its last step. In a job of several ranks
    only rank 0 (``RANK``) prints: the others check their arguments the same way and print nothing, so one
    script runs unchanged as one rank or as many."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"step: {step!r} is not a whole number >= 0")
    line: Dict[str, Any] = {"step": step, "metrics": {str(k): _number(str(k), v) for k, v in metrics.items()}}
    if tokens is not None:
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ValueError(f"tokens: {tokens!r} is not a whole number >= 0")
        line["tokens"] = tokens
    if os.environ.get("RANK", "0") != "0":
        return
    out = file if file is not None else sys.stdout
    out.write(json.dumps(line, allow_nan=False, separators=(",", ":")) + "\n")
    out.flush()


def finish() -> None:
    """Flushes stdout; call it before exiting 0 (the worker counts the run as a success only once a line at the
    job's last step was printed)."""
    sys.stdout.flush()

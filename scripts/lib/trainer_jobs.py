"""Small jobs for gammalab-train, built from what the trainer itself resolves (`gammalab-train describe --json`:
no second reader of the presets or of the variant table here), for the scripts that train a few steps of
many variants: hf_export_check.py and tests/trainer/torch_versions_agree.py."""
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(cmd, log):
    """Runs a command with its stderr appended to `log`; returns its stdout; exits naming the log on failure."""
    with open(log, "a") as f:
        done = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=f, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed with status {done.returncode} (see {log})")
    return done.stdout


def prepare_text(trainer, out):
    """Byte-level train.bin and val.bin from real text: this repository's README and docs."""
    if not (out / "val.bin").exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        run([trainer, "prepare", "--input", REPO / "README.md", REPO / "docs", "--out", out, "--tokenizer", "byte"],
            out.parent / "prepare.log")
    return out


def job(trainer, preset, variant, data, steps, log, model_overrides=None, scale_overrides=None, eval_windows=None,
        **fields):
    """A job config: the preset and the variant's axes as the trainer resolves them, with overrides; `fields` are
    further top-level keys of the job (optim, schedule, batch_tokens, ...)."""
    resolved = json.loads(run([trainer, "describe", "--preset", preset, "--variant", variant, "--json"], log))
    model, scale = resolved["model"], resolved["scale"]
    for key, value in (model_overrides or {}).items():
        model[key] = dict(model.get(key, {}), **value) if isinstance(value, dict) else value
    scale.update(scale_overrides or {})
    config = {"model": model, "scale": scale, "steps": steps, "threads": 1, "seed": 7,
              "data": {"train": str(data / "train.bin"), "val": str(data / "val.bin")}}
    if eval_windows is not None:
        config["data"]["eval_windows"] = eval_windows
    config.update(fields)
    return config


def train(trainer, config, folder):
    """Trains `config` in `folder` (job.json, ckpt/, train.log); returns the metric lines as dicts."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "train.log"
    (folder / "job.json").write_text(json.dumps(config))
    out = run([trainer, "run", "--config", folder / "job.json", "--ckpt-dir", folder / "ckpt"], log)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

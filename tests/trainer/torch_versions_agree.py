#!/usr/bin/env python3
"""The trainer built against two LibTorch versions (Debian's 1.13 and PyTorch 2.x's) trains every variant to the
same losses: a few steps of each, every train loss and the final val loss within --tolerance relative.

What differs between the versions lives in worker/trainer/torch_compat.h (fused attention on 2.x, the autocast
API); this is the check that those guards change no result.
  torch_versions_agree.py --reference build/.../gammalab-train --other build/trainer-torch2/.../gammalab-train
                          --work DIR
"""
import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "lib"))
from trainer_jobs import job, prepare_text, train  # noqa: E402

STEPS = 6


def losses(metrics):
    """(name, step) -> value for every train/loss and val/loss line."""
    out = {}
    for m in metrics:
        for key in ("train/loss", "val/loss"):
            if key in m.get("metrics", {}):
                out[(key, m["step"])] = m["metrics"][key]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reference", required=True, type=Path)
    p.add_argument("--other", required=True, type=Path)
    p.add_argument("--work", required=True, type=Path)
    p.add_argument("--tolerance", type=float, default=1e-5)
    a = p.parse_args()
    versions = [subprocess.run([t, "--version"], capture_output=True, text=True).stdout.strip()
                for t in (a.reference, a.other)]
    print(f"reference: {versions[0]}\nother:     {versions[1]}")
    data = prepare_text(a.reference, a.work / "data")
    variants = subprocess.run([a.reference, "describe", "--variants"], capture_output=True, text=True,
                              check=True).stdout.split()
    cases = [(v, {}) for v in variants] + [("baseline", {"moe": {"n_experts": 4, "top_k": 2, "expert_ffn": 64}})]
    failures = 0
    for variant, overrides in cases:
        name = variant + ("-moe" if overrides else "")
        runs = []
        for side, trainer in (("reference", a.reference), ("other", a.other)):
            folder = a.work / name / side
            config = job(trainer, "tiny-0.1m", variant, data, STEPS, a.work / "describe.log", overrides,
                         log_every=1, batch_tokens=4 * 128, eval_windows=8)
            runs.append(losses(train(trainer, config, folder)))
        ref, other = runs
        if set(ref) != set(other) or not ref:
            print(f"{name:14s} FAILED: the two runs printed different metric lines")
            failures += 1
            continue
        worst = max(abs(ref[k] - other[k]) / max(1.0, abs(ref[k])) for k in ref)
        held = worst <= a.tolerance
        failures += not held
        final = max(k for k in ref if k[0] == "val/loss")
        print(f"{name:14s} {len(ref)} losses, largest relative difference {worst:.1e}, val loss {ref[final]:.6f} vs "
              f"{other[final]:.6f}" + ("" if held else f"  FAILED (over {a.tolerance:g})"))
    print(f"{len(cases) - failures} of {len(cases)} variants agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

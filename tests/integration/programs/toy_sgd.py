#!/usr/bin/env python3
"""A training program of a user's own, run by gammalab workers as command jobs (docs/own-program.md): SGD on a
linear regression whose data come from the seed, with checkpoints, resume and metric lines through the gammalab
client. Pure Python floats, so a run's curve is the same bit for bit however often it is interrupted.
--misbehave breaks one rule of the contract, as a hostile or buggy program would."""
import argparse
import json
import os
import random
import signal
import sys
import time

import gammalab

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, required=True)
p.add_argument("--width", type=int, required=True)
p.add_argument("--seed", type=int, required=True)
p.add_argument("--ckpt-every", type=int, default=20)
p.add_argument("--sleep", type=float, default=0.0)  # per step, so that a test can kill it mid-run
p.add_argument("--misbehave", default="")
a = p.parse_args()

cfg = gammalab.config()
steps, log_every, batch = cfg.get("steps", 100), cfg.get("log_every", 5), cfg.get("batch_tokens", 256)
truth = random.Random(1234)
target = [truth.gauss(0, 1) for _ in range(a.width)]


def sample(rng):
    x = [rng.gauss(0, 1) for _ in range(a.width)]
    return x, sum(w * v for w, v in zip(target, x)) + 0.1 * rng.gauss(0, 1)


held_out = [sample(random.Random(999 + i)) for i in range(32)]
weights, first = [0.0] * a.width, 1
resume = gammalab.resume_checkpoint()
if resume is not None:
    state = json.loads(resume[1].read_text())
    weights, first = state["weights"], state["step"] + 1
if a.misbehave == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

for step in range(first, steps + 1):
    rng = random.Random(a.seed * 1_000_003 + step)  # the step's batch depends on the seed and the step alone
    x, y = sample(rng)
    err = sum(w * v for w, v in zip(weights, x)) - y
    weights = [w - a.lr * err * v for w, v in zip(weights, x)]
    if a.sleep:
        time.sleep(a.sleep)
    if step % a.ckpt_every == 0:
        path = gammalab.checkpoint_path(step)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"step": step, "weights": weights}))
        os.replace(tmp, path)
    if a.misbehave == "flood-stderr":  # 64 KiB of noise per step on stderr, a megabyte of tracebacks in all
        sys.stderr.write(("noise " * 64 + "\n") * 168)
    if a.misbehave == "early-exit" and step == steps // 2:
        sys.exit(0)
    if step % log_every != 0 and step != steps:
        continue
    if a.misbehave == "hole" and steps // 4 < step < steps // 2:
        continue
    if a.misbehave == "bare-nan" and step == 2 * log_every:
        print(json.dumps({"step": step, "metrics": {"train/loss": float("nan")}}), flush=True)
        continue
    if a.misbehave == "huge-line" and step == 2 * log_every:
        print('{"step": %d, "metrics": {"train/loss": 1.0}, "pad": "%s"}' % (step, "x" * (3 << 20)), flush=True)
        continue
    if a.misbehave == "back" and step == 4 * log_every:
        gammalab.log(step - 3 * log_every, {"lr": a.lr})
    if a.misbehave == "unknown-metric" and step == 2 * log_every:
        gammalab.log(step, {"accuracy": 0.5})
        continue
    if a.misbehave == "too-many-own" and step == 2 * log_every:
        gammalab.log(step, {f"user/m{k}": 1.0 for k in range(33)})
        continue
    # A metric of its own beside the known ones (docs/own-program.md: "user/NAME").
    metrics = {"train/loss": 0.5 * err * err, "lr": a.lr, "user/weight_norm": sum(w * w for w in weights) ** 0.5}
    if step == steps:
        metrics["val/loss"] = sum(0.5 * (sum(w * v for w, v in zip(weights, x)) - y) ** 2 for x, y in held_out) / len(held_out)
    gammalab.log(step, metrics, tokens=step * batch)
gammalab.finish()

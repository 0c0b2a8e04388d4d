#!/usr/bin/env python3
"""A data-parallel training program of a user's own, run by a gammalab worker as one command job of several ranks
(docs/own-program.md, "Several ranks"): each rank takes its own batch of a linear regression, and the ranks meet
where torchrun's variables say (MASTER_ADDR, MASTER_PORT; rank 0 listens there, as torch.distributed's env://
does), average their gradients at rank 0 and step together. Rank 0 checkpoints; a resumed rank 0 sends the
weights to the others. Pure Python floats, so the curve is the same bit for bit wherever it runs.
--fail-rank R --fail-at STEP ends rank R with status 3 at that step, as a crashing rank would."""
import argparse
import json
import os
import random
import socket
import sys
import time

import gammalab

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, required=True)
p.add_argument("--width", type=int, required=True)
p.add_argument("--seed", type=int, required=True)
p.add_argument("--sleep", type=float, default=0.0)  # per step, so that a test can kill it mid-run
p.add_argument("--fail-rank", type=int, default=-1)
p.add_argument("--fail-at", type=int, default=-1)
a = p.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
cfg = gammalab.config()
steps, log_every, batch = cfg.get("steps", 100), cfg.get("log_every", 5), cfg.get("batch_tokens", 256)
target = [random.Random(1234).gauss(0, 1) for _ in range(a.width)]


def sample(rng):
    x = [rng.gauss(0, 1) for _ in range(a.width)]
    return x, sum(w * v for w, v in zip(target, x)) + 0.1 * rng.gauss(0, 1)


def send(conn, value):
    conn.sendall((json.dumps(value) + "\n").encode())


def receive(stream):
    line = stream.readline()
    if not line:
        raise SystemExit(f"rank {rank}: a peer went away")
    return json.loads(line)


# The rendezvous: rank 0 listens at MASTER_PORT, the others connect (retrying while it starts).
address = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
peers = []
if rank == 0:
    server = socket.create_server(address)
    for _ in range(world - 1):
        conn, _ = server.accept()
        peers.append((conn, conn.makefile("r")))
    peers.sort(key=lambda peer: receive(peer[1]))  # each peer says its rank first
else:
    for attempt in range(200):
        try:
            conn = socket.create_connection(address)
            break
        except OSError:
            time.sleep(0.05)
    else:
        raise SystemExit(f"rank {rank}: no rank 0 at {address}")
    send(conn, rank)
    stream = conn.makefile("r")
print(f"rank {rank} of {world} joined at {address[0]}:{address[1]}", file=sys.stderr, flush=True)

weights, first = [0.0] * a.width, 1
if rank == 0:
    resume = gammalab.resume_checkpoint()
    if resume is not None:
        state = json.loads(resume[1].read_text())
        weights, first = state["weights"], state["step"] + 1
    for conn, _ in peers:
        send(conn, {"step": first, "weights": weights})
else:
    start = receive(stream)
    weights, first = start["weights"], start["step"]

printed_by_hand = False
for step in range(first, steps + 1):
    if rank == a.fail_rank and step == a.fail_at:
        print(f"rank {rank}: failing at step {step}", file=sys.stderr, flush=True)
        sys.exit(3)
    x, y = sample(random.Random((a.seed * 1_000_003 + step) * 64 + rank))  # the rank's own batch of the step
    err = sum(w * v for w, v in zip(weights, x)) - y
    grad, loss = [err * v for v in x], 0.5 * err * err
    if rank == 0:
        for _, peer in peers:
            theirs = receive(peer)
            grad = [g + h for g, h in zip(grad, theirs["grad"])]
            loss += theirs["loss"]
        weights = [w - a.lr * g / world for w, g in zip(weights, grad)]
        for conn, _ in peers:
            send(conn, weights)
    else:
        send(conn, {"grad": grad, "loss": loss})
        weights = receive(stream)
    if a.sleep:
        time.sleep(a.sleep)
    if rank == 0 and step % 20 == 0:
        path = gammalab.checkpoint_path(step)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"step": step, "weights": weights}))
        os.replace(tmp, path)
    if step % log_every == 0 or step == steps:
        # Every rank logs, as a script written for one process does: only rank 0's line is a metric line.
        gammalab.log(step, {"train/loss": loss / world, "lr": a.lr}, tokens=step * batch)
        if rank != 0 and not printed_by_hand:
            # A line printed by hand on another rank reaches the job's log behind its rank, never the metrics.
            print(json.dumps({"step": step, "metrics": {"train/loss": -1.0}}), flush=True)
            printed_by_hand = True
gammalab.finish()

#!/usr/bin/env python3
"""An exported model read by Hugging Face transformers' LlamaForCausalLM gives the trainer's val loss.

gammalab-train evaluates on the first eval_batches x micro windows of val.bin (window i: tokens i*T ... i*T+T of
the llm.c shard, seq_len T), the mean over batches of each batch's mean cross-entropy. This script computes the
same on the exported model.safetensors + config.json and compares it with the loss the trainer printed.
  hf_loss_check.py --export DIR --val val.bin --seq-len 64 --batches 4 --micro 8 --expect 3.21 [--tolerance 1e-4]
Exit status 0 when |ours - theirs| <= tolerance * max(1, |ours|), 1 otherwise.
"""
import argparse
import sys

import numpy as np
import torch
import torch.nn.functional as F
from transformers import LlamaForCausalLM


def read_shard(path):
    header = np.fromfile(path, dtype=np.int32, count=256)
    dtype = {20240520: np.uint16, 20240801: np.uint32}.get(int(header[0]))
    if dtype is None:
        sys.exit(f"{path}: magic {header[0]} is not an llm.c token shard")
    count = int(header[2])
    return np.fromfile(path, dtype=dtype, count=count, offset=256 * 4).astype(np.int64)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--export", required=True)
    p.add_argument("--val", required=True)
    p.add_argument("--seq-len", type=int, required=True)
    p.add_argument("--batches", type=int, required=True)
    p.add_argument("--micro", type=int, required=True)
    p.add_argument("--expect", type=float, required=True, help="the trainer's val/loss")
    p.add_argument("--tolerance", type=float, default=1e-4)
    a = p.parse_args()
    tokens = read_shard(a.val)
    T = a.seq_len
    windows = (len(tokens) - 1) // T
    if windows < 1:
        sys.exit(f"{a.val}: {len(tokens)} tokens make no window of {T + 1}")
    model = LlamaForCausalLM.from_pretrained(a.export, torch_dtype=torch.float32).eval()
    total = 0.0
    with torch.no_grad():
        for b in range(a.batches):
            rows = [tokens[(i % windows) * T:(i % windows) * T + T + 1] for i in range(b * a.micro, (b + 1) * a.micro)]
            batch = torch.from_numpy(np.stack(rows))
            logits = model(input_ids=batch[:, :T]).logits
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), batch[:, 1:].reshape(-1)).item()
    theirs = total / a.batches
    diff = abs(theirs - a.expect)
    ok = diff <= a.tolerance * max(1.0, abs(a.expect))
    print(f"val loss: gammalab-train {a.expect:.6f}, LlamaForCausalLM {theirs:.6f}, |diff| {diff:.2e} "
          f"({'within' if ok else 'beyond'} {a.tolerance:g} relative)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

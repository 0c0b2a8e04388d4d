#!/usr/bin/env python3
"""The baseline Llama of gammalab-train in PyTorch eager, for a step-time comparison on the same machine.

Same shapes as the trainer's model preset (Pre-Norm RMSNorm with weights, RoPE, causal attention, SwiGLU FFN of
width ffn_hidden or 8d/3, untied embedding and head), the same batch and the same optimizer step (forward,
backward, global-norm clipping at 1.0, AdamW with weight decay 0.1). Prints the median ms/step over the timed
steps, after three untimed ones (with --compile: after torch.compile's own compilation, untimed).

Runs on Debian's python3-torch (1.13, built from the same PyTorch source as Debian's libtorch-dev) and on the
PyTorch 2.x of `make deps`' Python environment, where --compile compiles the model with torch.compile (inductor,
which on the CPU generates and compiles C++).
  llama_ref.py --preset configs/models/tiny-2m.yaml --batch-tokens 4096 --steps 20 --threads 1 [--compile]
"""
import argparse
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def read_preset(path):
    """The flat `key: value` lines of a model preset (no YAML library needed for these files)."""
    spec = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line or ":" not in line:
                continue
            key, value = (part.strip() for part in line.split(":", 1))
            spec[key] = value
    for key in ("vocab_size", "n_layers", "d_model", "n_heads", "seq_len"):
        if key not in spec:
            sys.exit(f"{path}: no {key}")
    return spec


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(seq_len, head_dim, theta):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    angles = torch.outer(torch.arange(seq_len, dtype=torch.float32), inv)
    return angles.cos(), angles.sin()


def apply_rope(x, cos, sin):  # x: [B, H, T, hd], rotating interleaved pairs
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.flatten(-2)


class Block(torch.nn.Module):
    def __init__(self, d, heads, kv_heads, ffn, eps):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.attn_norm, self.ffn_norm = RMSNorm(d, eps), RMSNorm(d, eps)
        self.wq = torch.nn.Linear(d, heads * self.hd, bias=False)
        self.wk = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wv = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wo = torch.nn.Linear(heads * self.hd, d, bias=False)
        self.gate = torch.nn.Linear(d, ffn, bias=False)
        self.up = torch.nn.Linear(d, ffn, bias=False)
        self.down = torch.nn.Linear(ffn, d, bias=False)

    def forward(self, h, cos, sin, mask):
        B, T, _ = h.shape
        x = self.attn_norm(h)
        q = self.wq(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        k = self.wk(x).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
        v = self.wv(x).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if self.kv_heads != self.heads:
            k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        # The same composition as the trainer on LibTorch 1.13 (no fused attention there): mask + scaled scores.
        scores = torch.baddbmm(mask.expand(B * self.heads, T, T), q.reshape(-1, T, self.hd),
                               k.reshape(-1, T, self.hd).transpose(1, 2), beta=1.0, alpha=1.0 / math.sqrt(self.hd))
        a = torch.bmm(scores.softmax(-1), v.reshape(-1, T, self.hd)).view(B, self.heads, T, self.hd)
        h = h + self.wo(a.transpose(1, 2).reshape(B, T, -1))
        x = self.ffn_norm(h)
        return h + self.down(F.silu(self.gate(x)) * self.up(x))


class Llama(torch.nn.Module):
    def __init__(self, spec):
        super().__init__()
        d, V = int(spec["d_model"]), int(spec["vocab_size"])
        heads = int(spec["n_heads"])
        kv_heads = int(spec.get("n_kv_heads", 0)) or heads
        ffn = int(spec.get("ffn_hidden", 0)) or 8 * d // 3
        eps = float(spec.get("norm_eps", 1e-5))
        T = int(spec["seq_len"])
        self.embed = torch.nn.Embedding(V, d)
        self.layers = torch.nn.ModuleList(Block(d, heads, kv_heads, ffn, eps) for _ in range(int(spec["n_layers"])))
        self.norm = RMSNorm(d, eps)
        self.head = torch.nn.Linear(d, V, bias=False)
        cos, sin = rope_tables(T, d // heads, float(spec.get("rope_theta", 10000.0)))
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)
        self.register_buffer("mask", torch.full((T, T), float("-inf")).triu(1))

    def forward(self, tokens, targets):
        h = self.embed(tokens)
        for layer in self.layers:
            h = layer(h, self.cos, self.sin, self.mask)
        logits = self.head(self.norm(h))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", required=True, help="model preset YAML (configs/models/*.yaml)")
    p.add_argument("--batch-tokens", type=int, default=4096)
    p.add_argument("--steps", type=int, default=20, help="timed steps")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2.x)")
    a = p.parse_args()
    if a.batch_tokens <= 0 or a.steps <= 0 or a.threads <= 0:
        sys.exit("--batch-tokens, --steps and --threads must be positive")
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    spec = read_preset(a.preset)
    T, V = int(spec["seq_len"]), int(spec["vocab_size"])
    if a.batch_tokens % T:
        sys.exit(f"--batch-tokens {a.batch_tokens} is not a multiple of seq_len {T}")
    model = Llama(spec)
    forward = torch.compile(model) if a.compile else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
    batch = torch.randint(V, (a.batch_tokens // T, T + 1))
    tokens, targets = batch[:, :T], batch[:, 1:]

    def step():
        opt.zero_grad(set_to_none=True)
        forward(tokens, targets).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(3):
        step()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        times.append(1000.0 * (time.perf_counter() - t0))
    params = sum(t.numel() for t in model.parameters())
    mode = "torch.compile" if a.compile else "eager"
    print(f"pytorch {torch.__version__} {mode}: {params} params, batch {a.batch_tokens} tokens, "
          f"threads {a.threads}: {statistics.median(times):.2f} ms/step")


if __name__ == "__main__":
    main()

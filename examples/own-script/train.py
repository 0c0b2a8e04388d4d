#!/usr/bin/env python3
"""A PyTorch training script of your own, run by gammalab as the jobs of a sweep (docs/own-program.md).

A student MLP of width --width learns a fixed teacher from samples drawn per step; a wider student reaches a
lower loss, so a sweep over widths has a scaling law to fit. Only the lines marked `gammalab` are gammalab's:
read the job's config, resume from the checkpoint it says, log each step. Run by hand it trains the same way.
"""
import argparse

import torch

import gammalab

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--width", type=int, default=16)
p.add_argument("--seed", type=int, default=0)
args = p.parse_args()
cfg = gammalab.config()                                           # gammalab: the job's config
steps, batch = cfg.get("steps", 200), cfg.get("batch_tokens", 128)
log_every, ckpt_every = cfg.get("log_every", 10), cfg.get("ckpt_every", 50) or 50
torch.set_num_threads(1)

teacher = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
torch.manual_seed(1234)                                           # one teacher for every job
for param in teacher.parameters():
    torch.nn.init.normal_(param, std=0.5)
torch.manual_seed(args.seed)                                      # the student's init: the job's seed
model = torch.nn.Sequential(torch.nn.Linear(16, args.width), torch.nn.Tanh(), torch.nn.Linear(args.width, 1))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
held_out = torch.randn(512, 16, generator=torch.Generator().manual_seed(999))
with torch.no_grad():
    held_out_y = teacher(held_out)

first = 1
if (resume := gammalab.resume_checkpoint()) is not None:         # gammalab: where to resume from
    state = torch.load(resume[1])
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    first = resume[0] + 1

for step in range(first, steps + 1):
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(args.seed * 1_000_003 + step))
    with torch.no_grad():
        y = teacher(x)
    for group in opt.param_groups:                                # cosine decay to 10%
        group["lr"] = args.lr * (0.55 + 0.45 * torch.cos(torch.tensor(torch.pi * (step - 1) / steps)).item())
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % ckpt_every == 0:                                    # written whole, then renamed into place
        path = gammalab.checkpoint_path(step)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path.with_suffix(".tmp"))
        path.with_suffix(".tmp").replace(path)
    if step % log_every == 0 or step == steps:
        metrics = {"train/loss": loss.item(), "lr": opt.param_groups[0]["lr"]}
        if step == steps:
            with torch.no_grad():
                metrics["val/loss"] = torch.nn.functional.mse_loss(model(held_out), held_out_y).item()
        gammalab.log(step, metrics, tokens=step * batch)          # gammalab: one line per logged step
gammalab.finish()

#!/usr/bin/env python3
"""Every variant trained by gammalab-train, exported, and read back by Hugging Face transformers gives the
trainer's own val loss, and generates.

For each case: a few steps of a tiny model on real text (this repository's documentation), `gammalab-train
export` of the last checkpoint, then AutoModelForCausalLM.from_pretrained(trust_remote_code=True, offline) on
the export. Checked per case: the layout the export chose (LlamaForCausalLM where the variant folds into it,
the custom-code GammalabForCausalLM otherwise), that every tensor of the file was loaded and none is missing,
the val loss on the trainer's own validation windows within --tolerance relative of the loss the trainer
printed, and greedy `generate` equal to an argmax loop over the model's logits.
  hf_export_check.py --trainer build/worker/trainer/gammalab-train --work DIR [--cases all|quick]
Needs torch, transformers, safetensors and numpy (the Python environment that `make deps` installs).
Exit status 0 when every case holds.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trainer_jobs import job, prepare_text, run, train  # noqa: E402

# (name, variant, model overrides, layout to ask for, the architecture the export must be)
LLAMA, CUSTOM = "LlamaForCausalLM", "GammalabForCausalLM"
MOE = {"moe": {"n_experts": 4, "top_k": 2, "expert_ffn": 64}}
CASES = [
    ("none", "none", {}, "auto", LLAMA),
    ("baseline", "baseline", {}, "auto", LLAMA),
    ("hg", "hg", {}, "auto", LLAMA),
    ("ap", "ap", {}, "auto", LLAMA),
    ("dp", "dp", {}, "auto", LLAMA),
    ("or", "or", {}, "auto", LLAMA),
    ("er", "er", {}, "auto", LLAMA),
    ("iwd", "iwd", {}, "auto", LLAMA),
    ("baseline-gqa", "baseline", {"n_kv_heads": 2}, "auto", LLAMA),
    ("dnp", "dnp", {}, "auto", CUSTOM),
    ("unified", "unified", {}, "auto", CUSTOM),
    ("qknorm", "qknorm", {}, "auto", CUSTOM),
    ("dnp_novec", "dnp_novec", {}, "auto", CUSTOM),
    ("unified_dp", "unified_dp", {}, "auto", LLAMA),
    ("or-unfolded", "or", {}, "gammalab", CUSTOM),
    ("er-unfolded", "er", {}, "gammalab", CUSTOM),
    ("dp-unfolded", "dp", {}, "gammalab", CUSTOM),
    ("unified-gqa-per-head", "unified", {"n_kv_heads": 2}, "gammalab", CUSTOM),
    ("moe-baseline", "baseline", MOE, "auto", CUSTOM),
    ("moe-unified", "unified", {"moe": dict(MOE["moe"], router_scale=True)}, "auto", CUSTOM),
    # The 2026 arms (docs/variants.md, "The 2026 arms"): each replaces the Pre-Norm, so none folds into Llama.
    ("seednorm", "seednorm", {}, "auto", CUSTOM),
    ("peri_ln", "peri_ln", {}, "auto", CUSTOM),
    ("gated", "gated", {}, "auto", CUSTOM),
    ("pre_affine", "pre_affine", {}, "auto", CUSTOM),
    ("ln_scaling", "ln_scaling", {}, "auto", CUSTOM),
    ("dyt", "dyt", {}, "auto", CUSTOM),
    ("derf", "derf", {}, "auto", CUSTOM),
    ("moe-seednorm", "seednorm", MOE, "auto", CUSTOM),
    ("moe-gated", "gated", MOE, "auto", CUSTOM),
    ("moe-derf", "derf", MOE, "auto", CUSTOM),
]
QUICK = {"baseline", "dp", "unified", "moe-baseline"}
# A high learning rate, so that every scale vector moves far from 1 in these few steps: a γ the export dropped or
# placed wrongly then changes the loss by far more than the tolerance.
PRESET, STEPS, MICRO, EVAL_WINDOWS, LR = "tiny-0.1m", 12, 4, 8, 0.03


def train_and_export(trainer, work, data, case):
    name, variant, overrides, layout, _ = case
    d = work / name
    d.mkdir(parents=True, exist_ok=True)
    log = d / "train.log"
    log.write_text("")
    # DNP's Norm per head on q and k, with grouped-query attention.
    scale = {"dnp_per_head": True} if variant == "unified" and "n_kv_heads" in overrides else {}
    config = job(trainer, PRESET, variant, data, STEPS, log, overrides, scale, log_every=STEPS, ckpt_every=STEPS,
                 optim={"lr": LR}, schedule={"kind": "constant"}, eval_windows=EVAL_WINDOWS)
    config["batch_tokens"] = MICRO * config["model"]["seq_len"]
    losses = [m["metrics"]["val/loss"] for m in train(trainer, config, d) if "val/loss" in m.get("metrics", {})]
    if not losses:
        sys.exit(f"{name}: the trainer printed no val/loss (see {log})")
    run([trainer, "export", "--config", d / "job.json", "--ckpt-dir", d / "ckpt", "--out", d / "hf",
         "--layout", layout], log)
    return d / "hf", losses[-1], config["model"]["seq_len"]


def read_shard(path):
    import numpy as np
    header = np.fromfile(path, dtype=np.int32, count=256)
    dtype = {20240520: np.uint16, 20240801: np.uint32}.get(int(header[0]))
    if dtype is None:
        sys.exit(f"{path}: magic {header[0]} is not an llm.c token shard")
    return np.fromfile(path, dtype=dtype, count=int(header[2]), offset=256 * 4).astype(np.int64)


def val_loss(model, tokens, T):
    """The trainer's evaluation: the mean next-token cross-entropy over the first EVAL_WINDOWS windows of
    val.bin, window i being tokens i*T .. i*T+T (repeating when the file has fewer)."""
    import numpy as np
    import torch
    import torch.nn.functional as F
    windows = (len(tokens) - 1) // T
    rows = [tokens[(i % windows) * T:(i % windows) * T + T + 1] for i in range(EVAL_WINDOWS)]
    batch = torch.from_numpy(np.stack(rows))
    with torch.no_grad():
        logits = model(input_ids=batch[:, :T]).logits
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), batch[:, 1:].reshape(-1)).item()


def greedy_matches(model, prompt, new_tokens):
    import torch
    with torch.no_grad():
        generated = model.generate(prompt, max_new_tokens=new_tokens, do_sample=False)
        ids = prompt
        for _ in range(new_tokens):
            ids = torch.cat([ids, model(input_ids=ids).logits[:, -1].argmax(-1, keepdim=True)], 1)
    return torch.equal(generated, ids), generated[0, prompt.shape[1]:].tolist()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", required=True, type=Path)
    p.add_argument("--work", required=True, type=Path)
    p.add_argument("--cases", choices=["all", "quick"], default="all")
    p.add_argument("--tolerance", type=float, default=1e-4)
    a = p.parse_args()
    # Offline, and the custom code's module cache inside the work folder, not the user's home.
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_MODULES_CACHE=str(a.work / "hf-modules"),
                      HF_HUB_DISABLE_PROGRESS_BARS="1")
    import torch
    import transformers
    from transformers import AutoModelForCausalLM
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, transformers {transformers.__version__}")

    a.work.mkdir(parents=True, exist_ok=True)
    data = prepare_text(a.trainer, a.work / "data")
    tokens = read_shard(data / "val.bin")
    cases = [c for c in CASES if a.cases == "all" or c[0] in QUICK]
    failures = 0
    for case in cases:
        name, architecture = case[0], case[4]
        export, expect, T = train_and_export(a.trainer, a.work, data, case)
        model, info = AutoModelForCausalLM.from_pretrained(export, trust_remote_code=True, dtype=torch.float32,
                                                           output_loading_info=True)
        model.eval()
        problems = []
        if type(model).__name__ != architecture:
            problems.append(f"loaded as {type(model).__name__}, expected {architecture}")
        for kind in ("missing_keys", "unexpected_keys", "mismatched_keys"):
            if info.get(kind):
                problems.append(f"{kind}: {sorted(info[kind])[:4]}")
        theirs = val_loss(model, tokens, T)
        diff = abs(theirs - expect)
        if diff > a.tolerance * max(1.0, abs(expect)):
            problems.append(f"loss differs by {diff:.2e} (over {a.tolerance:g} relative)")
        same, text = greedy_matches(model, torch.from_numpy(tokens[:16]).unsqueeze(0), 8)
        if not same:
            problems.append("generate differs from the argmax loop over the logits")
        failures += bool(problems)
        print(f"{name:22s} {type(model).__name__:20s} gammalab-train {expect:.6f}  transformers {theirs:.6f}  "
              f"|diff| {diff:.1e}  generate {bytes(t % 256 for t in text)!r}"
              + ("" if not problems else "  FAILED: " + "; ".join(problems)))
    print(f"{len(cases) - failures} of {len(cases)} exports hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

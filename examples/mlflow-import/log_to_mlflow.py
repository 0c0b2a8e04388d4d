"""A team's earlier runs, as they would sit in MLflow: logged with MLflow's own Python API, the way a training
script that uses MLflow logs them. Three model sizes, two arms (baseline and unified), two seeds each, a loss
curve per run ("loss" each 10 steps, "eval_loss" at the end) and the run's width, seed, parameter count and
tokens as params. The numbers are synthetic (a Chinchilla-shaped law with seed noise, unified learning from its
tokens as the baseline would from 1.3x as many), so that the example needs no downloads; your own experiment
takes their place.

    python log_to_mlflow.py http://127.0.0.1:5000 ladder
"""
import math
import random
import sys

import mlflow

url, experiment = sys.argv[1], sys.argv[2]
mlflow.set_tracking_uri(url)
mlflow.set_experiment(experiment)
steps, tokens_per_step = 200, 4096
for width in (256, 512, 1024):
    n = 12 * 8 * width * width  # non-embedding parameters of an 8-layer model
    for seed in (0, 1):
        shared = random.Random(f"{width}/{seed}").gauss(0, 0.01)  # a seed's noise, shared by the arms it pairs
        for arm, multiplier in (("baseline", 1.0), ("unified", 1.3)):
            own = random.Random(f"{width}/{seed}/{arm}").gauss(0, 0.004)
            with mlflow.start_run(run_name=f"{arm}-w{width}-s{seed}"):
                mlflow.log_params({"arm": arm, "width": width, "random_seed": seed, "n_params": n,
                                   "tokens": steps * tokens_per_step})
                for step in range(10, steps + 1, 10):
                    d = step * tokens_per_step
                    loss = 1.7 + 480 / n ** 0.34 + 40 / (d * multiplier) ** 0.28 + shared + own
                    mlflow.log_metric("loss", loss + 0.02 * math.exp(-step / 40), step=step)
                mlflow.log_metric("eval_loss", loss + 0.01, step=steps)
print(f"logged 12 runs in MLflow experiment {experiment} at {url}")

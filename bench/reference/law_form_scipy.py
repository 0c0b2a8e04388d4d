"""The reference for `gammalab fit --law-file`'s speed: scipy's L-BFGS-B on the same objective from the same
grid of starts (`--write-csv PATH` writes the runs both fit: 240 runs of 16 sizes x 15 token counts, Hoffmann
et al.'s parameters, 1% log-normal noise). Chinchilla's form as configs/laws/chinchilla.yaml writes it (searched as ln E, ln A, ln B, alpha,
beta), Huber loss at the given delta on ln L, exact gradient, every one of the file's 4,500 starts; prints the
best objective and parameters and the wall time, as one JSON line. Usage: law_form_scipy.py RUNS.csv DELTA | --write-csv RUNS.csv
"""
import csv
import itertools
import json
import math
import sys
import time

import numpy as np
from scipy.optimize import minimize


def write_csv(path):
    rng = np.random.default_rng(2024)
    lines = ["params,tokens,loss"]
    for i in range(16):
        n = 2e7 * 100 ** (i / 15)
        for j in range(15):
            d = 2e8 * 1000 ** (j / 14)
            loss = (1.69 + 406.4 * n ** -0.34 + 410.7 * d ** -0.28) * math.exp(rng.normal(0, 0.01))
            lines.append(f"{n:.6g},{d:.6g},{loss:.6f}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if sys.argv[1] == "--write-csv":
        write_csv(sys.argv[2])
        return
    path, delta = sys.argv[1], float(sys.argv[2])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ln_n = np.log([float(r["params"]) for r in rows])
    ln_d = np.log([float(r["tokens"]) for r in rows])
    y = np.log([float(r["loss"]) for r in rows])

    def objective(theta):
        e, a, b, alpha, beta = theta
        terms = np.stack([np.full_like(ln_n, e), a - alpha * ln_n, b - beta * ln_d])
        top = terms.max(axis=0)
        weights = np.exp(terms - top)
        total = weights.sum(axis=0)
        r = top + np.log(total) - y
        soft = weights / total
        small = np.abs(r) <= delta
        cost = np.where(small, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta)).sum()
        dr = np.clip(r, -delta, delta)
        grad = np.array([
            (dr * soft[0]).sum(),
            (dr * soft[1]).sum(),
            (dr * soft[2]).sum(),
            -(dr * soft[1] * ln_n).sum(),
            -(dr * soft[2] * ln_d).sum(),
        ])
        return cost, grad

    grid = itertools.product([-1, -0.5, 0, 0.5, 1], [0, 5, 10, 15, 20, 25], [0, 5, 10, 15, 20, 25],
                             [0, 0.5, 1, 1.5, 2], [0, 0.5, 1, 1.5, 2])
    start = time.perf_counter()
    best, starts = None, 0
    for theta0 in grid:
        starts += 1
        result = minimize(objective, np.array(theta0, dtype=float), jac=True, method="L-BFGS-B",
                          options={"maxiter": 1000, "ftol": 1e-12, "gtol": 1e-14})
        if np.isfinite(result.fun) and (best is None or result.fun < best.fun):
            best = result
    seconds = time.perf_counter() - start
    e, a, b, alpha, beta = best.x
    print(json.dumps({"starts": starts, "seconds": seconds, "objective": float(best.fun),
                      "E": math.exp(e), "A": math.exp(a), "B": math.exp(b), "alpha": alpha, "beta": beta}))


if __name__ == "__main__":
    main()

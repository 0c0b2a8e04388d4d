"""Runs out of gammalab and back in, with real parts: a coordinator and a worker (the built binaries) train a
program of a user's own (tests/integration/programs/toy_sgd.py) as two command jobs; then the Python client reads
the runs as a DataFrame and `python -m gammalab export` writes Parquet and TensorBoard files, which pyarrow and
TensorBoard's own reader read back. Every point equals what `gammalab export --format jsonl` reads over gRPC: bit
for bit in Parquet, to a 32-bit float in TensorBoard (its scalar type). Runs in: `python -m gammalab convert`
turns both back into JSON lines and `gammalab import` stores them as a sweep of finished jobs, every point equal
again (bit for bit from Parquet, to float32 from TensorBoard). And through a real MLflow tracking server (from
the package index): out as one MLflow run per job, back in from it, every point and its tokens bit for bit.

    python export_test.py BUILD_DIR
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parents[2]
BUILD = Path(sys.argv.pop(1) if len(sys.argv) > 1 else SOURCE / "build").resolve()
sys.path.insert(0, str(SOURCE / "python"))

from gammalab.client import ApiError, Client  # noqa: E402
from coordinator import Coordinator  # noqa: E402 (tests/python/coordinator.py)

SWEEP = """name: out
command: [python3, {program}, --lr, "{{optim.lr}}", --width, "{{model.d_model}}", --seed, "{{seed}}"]
base:
  model: {{d_model: 8, n_heads: 2}}
  optim: {{lr: 0.05}}
  batch_tokens: 256
  steps: 60
  log_every: 5
  ckpt_every: 20
  declared_params: model.d_model
seeds: [0, 1]
"""


class RunsOut(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="gammalab-export-"))
        cls.coordinator = Coordinator(BUILD, cls.dir, roles=("worker", "user"))
        cls.grpc = cls.coordinator.grpc
        cls.worker_log = open(cls.dir / "worker.log", "w")
        env = dict(os.environ, PYTHONPATH=str(SOURCE / "python"))
        cls.worker = subprocess.Popen([str(BUILD / "worker/gammalab-worker"), "--coordinator", cls.grpc,
                                       "--slots", "2", "--shared-root", str(cls.dir / "shared"), "--hostname",
                                       "export-worker", "--token-file", str(cls.dir / "worker.token"),
                                       "--poll-interval-ms", "200"],
                                      env=env, stdout=subprocess.DEVNULL, stderr=cls.worker_log)
        cls.client = Client(cls.coordinator.http, token_file=str(cls.dir / "user.token"))
        sweep_file = cls.dir / "out.yaml"
        sweep_file.write_text(SWEEP.format(program=SOURCE / "tests/integration/programs/toy_sgd.py"))
        submitted = cls.client.submit(str(sweep_file))
        assert submitted["jobs_created"] == 2, submitted
        deadline = time.time() + 120
        while time.time() < deadline:
            states = [job["state"] for job in cls.client.jobs("out")]
            if len(states) == 2 and all(s in ("succeeded", "failed", "cancelled") for s in states):
                break
            time.sleep(0.3)
        assert states == ["succeeded", "succeeded"], (states, (cls.dir / "worker.log").read_text()[-2000:])

    @classmethod
    def tearDownClass(cls):
        cls.worker.kill()
        cls.worker.wait()
        cls.worker_log.close()
        cls.coordinator.stop()
        shutil.rmtree(cls.dir)

    @classmethod
    def cli(cls, args):
        return subprocess.run([str(BUILD / "cli/gammalab"), "--server", cls.grpc, "--token-file",
                               str(cls.dir / "user.token"), *args], check=True, capture_output=True, text=True).stdout

    def stored(self, sweep="out", key="job_id"):
        """Every point as the CLI reads it over gRPC: {(job id, name, step): (tokens, value)}."""
        out = {}
        for line in self.cli(["export", sweep, "--format", "jsonl"]).splitlines():
            p = json.loads(line)
            out[(p[key], p["metric"], p["step"])] = (p["tokens"], p["value"])
        return out

    def python(self, *args):
        return subprocess.run([sys.executable, "-m", "gammalab", *args], check=True, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(SOURCE / "python"))).stdout

    def test_convert_knows_every_metric_the_coordinator_stores(self):
        from gammalab.convert import KNOWN_METRICS
        meta, _headers = self.client._get("/api/meta")
        self.assertEqual(sorted(KNOWN_METRICS), sorted(meta["metrics"]))
        from gammalab.convert import USER_METRIC_NAME, USER_METRIC_PREFIX
        own = meta["user_metrics"]
        self.assertEqual(USER_METRIC_PREFIX, own["prefix"])
        self.assertEqual(USER_METRIC_NAME.pattern, own["prefix"] + "[A-Za-z0-9_./-]{1,%d}" % own["max_name_bytes"])

    def test_the_runs_come_back_as_a_dataframe_with_their_config(self):
        runs = self.client.runs("out")
        self.assertEqual(list(runs["state"]), ["succeeded", "succeeded"])
        self.assertEqual(list(runs["config.seed"]), [0, 1])
        self.assertEqual(list(runs["config.command"].map(json.loads).map(lambda c: c[0])), ["python3", "python3"])
        self.assertEqual(list(runs["params"].astype(float)), [8.0, 8.0], "the declared N")
        self.assertTrue(all(math.isfinite(v) for v in runs["loss"]), runs["loss"])
        with self.assertRaises(ApiError) as refused:
            self.client.runs("no-such-sweep")
        self.assertEqual(refused.exception.status, 404)
        with self.assertRaises(ApiError) as problems:
            self.client.submit("name: bad\nbase: {stepz: 3}\n", file_name="bad.yaml")
        self.assertEqual(problems.exception.status, 422)
        self.assertIn("bad.yaml:2:", str(problems.exception))
        self.assertIn("unknown key 'stepz'", str(problems.exception))

    def test_parquet_holds_every_point_bit_for_bit(self):
        import pyarrow.parquet as pq

        out = self.dir / "parquet"
        subprocess.run([sys.executable, "-m", "gammalab", "export", "out", "--server", self.client.url, "--token-file",
                        str(self.dir / "user.token"), "--parquet", str(out)], check=True,
                       env=dict(os.environ, PYTHONPATH=str(SOURCE / "python")), capture_output=True)
        points = pq.read_table(out / "points.parquet").to_pylist()
        stored = self.stored()
        self.assertEqual(len(points), len(stored))
        for p in points:
            self.assertEqual(stored[(p["job"], p["name"], p["step"])], (p["tokens"], p["value"]), p)
        runs = pq.read_table(out / "runs.parquet").to_pylist()
        self.assertEqual(sorted(r["id"] for r in runs), sorted({k[0] for k in stored}))
        self.assertIn("config.optim.lr", runs[0])

    def test_tensorboard_reads_every_curve_back(self):
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        out = self.dir / "tensorboard"
        subprocess.run([sys.executable, "-m", "gammalab", "export", "out", "--server", self.client.url, "--token-file",
                        str(self.dir / "user.token"), "--tensorboard", str(out)], check=True,
                       env=dict(os.environ, PYTHONPATH=str(SOURCE / "python")), capture_output=True)
        stored = self.stored()
        read = 0
        runs = sorted(out.iterdir())
        self.assertEqual(len(runs), 2)
        for run in runs:
            job = str(int(run.name.split("-", 1)[0]))
            events = EventAccumulator(str(run), size_guidance={"scalars": 0})
            events.Reload()
            for tag in events.Tags()["scalars"]:
                for e in events.Scalars(tag):
                    _tokens, value = stored[(job, tag, e.step)]
                    self.assertEqual(np.float32(e.value), np.float32(value), (job, tag, e.step))
                    read += 1
        self.assertEqual(read, len(stored), "every stored point, once")

    def test_parquet_comes_back_in_as_a_sweep_of_finished_runs_bit_for_bit(self):
        out = self.dir / "parquet-in"
        self.python("export", "out", "--server", self.client.url, "--token-file", str(self.dir / "user.token"),
                    "--parquet", str(out))
        printed = self.python("convert", "--parquet", str(out), "--out", str(self.dir / "runs.jsonl"))
        self.assertIn("2 runs", printed)
        printed = self.cli(["import", str(self.dir / "runs.jsonl"), "--name", "back"])
        self.assertIn("'back': 2 runs", printed)
        jobs = self.client.jobs("back")
        self.assertEqual([j["state"] for j in jobs], ["succeeded", "succeeded"])
        self.assertEqual(sorted(j["name"] for j in jobs), sorted(j["name"] for j in self.client.jobs("out")))
        config = json.loads(jobs[0]["config_json"])
        self.assertTrue(config["imported"].endswith("job " + self.client.jobs("out")[0]["id"]), config["imported"])
        self.assertEqual(config["declared_params"], 8.0)
        self.assertEqual(self.stored("back", "job"), self.stored("out", "job"), "every point, bit for bit")

    def test_tensorboard_comes_back_in_to_float32(self):
        out = self.dir / "tensorboard-in"
        self.python("export", "out", "--server", self.client.url, "--token-file", str(self.dir / "user.token"),
                    "--tensorboard", str(out))
        runs = self.client.runs("out")
        with open(self.dir / "meta.csv", "w") as meta:
            meta.write("run,group,seed,params,tokens\n")
            for run_dir in sorted(out.iterdir()):
                row = runs[runs["id"].astype(int) == int(run_dir.name.split("-", 1)[0])].iloc[0]
                meta.write(f"{run_dir.name},baseline,{row['config.seed']},{row['params']},{row['tokens']}\n")
        self.python("convert", "--tensorboard", str(out), "--runs", str(self.dir / "meta.csv"), "--out",
                    str(self.dir / "tb.jsonl"))
        self.cli(["import", str(self.dir / "tb.jsonl"), "--name", "from-tb"])
        back = self.stored("from-tb", "job")
        original = {}
        for (job, name, step), (_tokens, value) in self.stored("out").items():
            original[(job, name, step)] = value
        self.assertEqual(len(back), len(original))
        for (run, name, step), (_tokens, value) in back.items():
            job = str(int(run.split("-", 1)[0]))  # the run's directory: the job's id, then its name
            self.assertEqual(np.float32(value), np.float32(original[(job, name, step)]), (run, name, step))

    def test_mlflow_takes_every_run_out_and_gives_it_back_bit_for_bit(self):
        import socket
        import urllib.request

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = open(self.dir / "mlflow.log", "w")
        mlflow = subprocess.Popen([str(Path(sys.executable).parent / "mlflow"), "server", "--backend-store-uri",
                                   f"sqlite:///{self.dir / 'mlflow.db'}", "--default-artifact-root",
                                   str(self.dir / "mlflow-artifacts"), "--host", "127.0.0.1", "--port", str(port),
                                   "--workers", "1"], stdout=log, stderr=log)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + 120
            while True:
                try:
                    with urllib.request.urlopen(url + "/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                self.assertIsNone(mlflow.poll(), (self.dir / "mlflow.log").read_text()[-2000:])
                self.assertLess(time.time(), deadline, "MLflow did not start")
                time.sleep(0.5)
            printed = self.python("export", "out", "--server", self.client.url, "--token-file",
                                  str(self.dir / "user.token"), "--mlflow", url, "--experiment", "out-mlflow")
            self.assertIn("experiment out-mlflow: 2 runs", printed)
            from gammalab.mlflow_rest import Mlflow

            server = Mlflow(url)
            runs = list(server.runs(server.experiment_id("out-mlflow")))
            self.assertEqual(len(runs), 2)
            params = {p["key"]: p["value"] for p in runs[0]["data"]["params"]}
            self.assertEqual(params["optim.lr"], "0.05", "the config as MLflow params")
            self.python("convert", "--mlflow", url, "--experiment", "out-mlflow", "--out", str(self.dir / "ml.jsonl"))
            self.cli(["import", str(self.dir / "ml.jsonl"), "--name", "from-mlflow"])
            self.assertEqual(self.stored("from-mlflow", "job"), self.stored("out", "job"),
                             "every point and its tokens, bit for bit")
            config = json.loads(self.client.jobs("from-mlflow")[0]["config_json"])
            self.assertTrue(config["imported"].startswith(f"mlflow {url} run "), config["imported"])
        finally:
            mlflow.terminate()
            mlflow.wait(timeout=30)
            log.close()


if __name__ == "__main__":
    unittest.main()

"""The Python client's gRPC side as a user gets it from the built tree: the package of build/python/package (the
stubs generated from proto/ by the build, never copied) installed with pip into a scratch folder, then used
against a real coordinator: sweeps submitted, listed, watched and cancelled with typed messages, the same as
its HTTP API says, a refused file's problems with their lines, and a call without a token refused.

    python rpc_test.py BUILD_DIR
"""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from coordinator import Coordinator  # tests/python/coordinator.py

SOURCE = Path(__file__).resolve().parents[2]
BUILD = Path(sys.argv.pop(1) if len(sys.argv) > 1 else SOURCE / "build").resolve()

SWEEP = """name: rpc
base:
  model: {preset: tiny-0.03m}
  data: {train: none/train.bin, val: none/val.bin}
  steps: 10
axes:
  grid:
    optim.lr: [1e-3, 3e-3]
seeds: [0, 1]
"""


class RpcClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="gammalab-rpc-"))
        package = BUILD / "python/package"
        assert (package / "gammalab/v1/gammalab_pb2_grpc.py").exists(), f"build the repository first: {package}"
        shutil.copytree(package, cls.dir / "src")  # pip writes its build files beside the sources
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                        "--no-build-isolation", "--no-index", "--target", str(cls.dir / "site"), str(cls.dir / "src")],
                       check=True)
        sys.path.insert(0, str(cls.dir / "site"))
        from gammalab import rpc
        from gammalab.client import Client
        assert Path(rpc.__file__).is_relative_to(cls.dir / "site"), rpc.__file__
        cls.rpc = rpc
        cls.server = Coordinator(BUILD, cls.dir)
        cls.address = cls.server.grpc
        cls.coordinator = rpc.connect(cls.address, token_file=str(cls.dir / "user.token"))
        cls.http = Client(cls.server.http, token_file=str(cls.dir / "user.token"))

    @classmethod
    def tearDownClass(cls):
        cls.coordinator.close()
        cls.server.stop()
        shutil.rmtree(cls.dir)

    def test_a_sweep_submitted_listed_watched_and_cancelled_with_typed_messages(self):
        sweep_file = self.dir / "rpc.yaml"
        sweep_file.write_text(SWEEP)
        answer = self.coordinator.submit(str(sweep_file))
        self.assertIsInstance(answer, self.rpc.pb.SubmitSweepResponse)
        self.assertEqual((answer.sweep.name, answer.jobs_created, answer.jobs_reused), ("rpc", 4, 0))
        # The same sweep and jobs as the HTTP API lists them.
        listed = {s.id: s for s in self.coordinator.sweeps()}
        self.assertIn(answer.sweep.id, listed)
        self.assertEqual(listed[answer.sweep.id].total_jobs, 4)
        http = {s["id"]: s for s in self.http.sweeps()}
        self.assertEqual(http[answer.sweep.id]["name"], "rpc")
        jobs = self.coordinator.jobs(answer.sweep.id)
        self.assertEqual(sorted(j.id for j in jobs), sorted(j["id"] for j in self.http.jobs(answer.sweep.id)))
        self.assertTrue(all(self.rpc.pb.JobState.Name(j.state) == "JOB_STATE_PENDING" for j in jobs), jobs)
        # No worker: cancelling ends every job, and the watch says the sweep is complete.
        self.assertEqual(self.coordinator.cancel_sweep(answer.sweep.id), 4)
        for update in self.coordinator.watch(answer.sweep.id):
            if update.complete:
                break
        self.assertEqual(sorted(self.rpc.pb.JobState.Name(j.state) for j in update.jobs), ["JOB_STATE_CANCELLED"] * 4)
        self.assertEqual({j["state"] for j in self.http.jobs(answer.sweep.id)}, {"cancelled"})

    def test_a_refused_file_comes_back_with_its_problems_and_no_sweep(self):
        answer = self.coordinator.submit("name: bad\nbase:\n  optim: {lr: fast}\n", file_name="bad.yaml")
        self.assertFalse(answer.HasField("sweep"))
        self.assertTrue(answer.problems, answer)
        self.assertTrue(any(p.file == "bad.yaml" and p.line == 3 and p.path == "base.optim.lr" for p in answer.problems), answer.problems)
        self.assertNotIn("bad", [s.name for s in self.coordinator.sweeps()])

    def test_a_call_without_a_token_is_refused(self):
        import grpc
        with self.rpc.connect(self.address, token="") as anonymous:
            with self.assertRaises(grpc.RpcError) as refused:
                anonymous.sweeps()
        self.assertEqual(refused.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
        self.assertIn("no token", refused.exception.details())


if __name__ == "__main__":
    unittest.main()

"""The Python client (python/gammalab) as a user gets it: built and installed with pip from the repository's
python/ folder (offline, into a scratch folder), then its metric lines read back by the same rules the worker
applies (core/metric.h): a NaN is the string "nan", never a bare NaN; bad steps and values are refused at the
call; the checkpoint it resumes from is the newest at or before what the coordinator stores."""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "python"


class InstalledClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = Path(tempfile.mkdtemp(prefix="gammalab-client-"))
        shutil.copytree(SOURCE, cls.scratch / "src")  # pip writes its build files beside the sources
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                        "--no-build-isolation", "--no-index", "--target", str(cls.scratch / "site"),
                        str(cls.scratch / "src")], check=True)
        sys.path.insert(0, str(cls.scratch / "site"))
        import gammalab
        cls.gammalab = gammalab
        assert Path(gammalab.__file__).is_relative_to(cls.scratch / "site"), gammalab.__file__

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch)

    def line(self, *args, **kwargs):
        out = io.StringIO()
        self.gammalab.log(*args, file=out, **kwargs)
        text = out.getvalue()
        self.assertTrue(text.endswith("\n") and text.count("\n") == 1, text)
        return json.loads(text)

    def test_the_installed_package_says_its_protocol_and_is_typed(self):
        self.assertEqual(self.gammalab.PROTOCOL, 1)
        self.assertEqual(self.gammalab.__version__, "0.1.0")
        self.assertTrue((Path(self.gammalab.__file__).parent / "py.typed").exists())

    def test_a_line_is_the_metric_line_format(self):
        self.assertEqual(self.line(20, {"train/loss": 2.5, "lr": 1e-3}, tokens=5120),
                         {"step": 20, "metrics": {"train/loss": 2.5, "lr": 0.001}, "tokens": 5120})
        self.assertEqual(self.line(3, {"train/loss": float("nan"), "grad_norm": float("inf")})["metrics"],
                         {"train/loss": "nan", "grad_norm": "inf"})

    def test_a_bad_call_is_refused_naming_the_argument(self):
        for step in (-1, 2.5, True, "3"):
            with self.assertRaisesRegex(ValueError, "step"):
                self.gammalab.log(step, {"lr": 1.0}, file=io.StringIO())
        with self.assertRaisesRegex(TypeError, "metric 'lr'"):
            self.gammalab.log(1, {"lr": "fast"}, file=io.StringIO())
        with self.assertRaisesRegex(ValueError, "tokens"):
            self.gammalab.log(1, {"lr": 1.0}, tokens=-5, file=io.StringIO())

    def test_only_rank_zero_prints_and_every_rank_checks(self):
        for rank, printed in (("0", True), ("1", False), ("7", False)):
            out = io.StringIO()
            with unittest.mock.patch.dict(os.environ, {"RANK": rank}):
                self.gammalab.log(5, {"lr": 1.0}, file=out)
                with self.assertRaisesRegex(ValueError, "step"):
                    self.gammalab.log(-1, {"lr": 1.0}, file=out)
            self.assertEqual(out.getvalue() != "", printed, rank)

    def test_it_resumes_from_the_newest_checkpoint_the_coordinator_has_the_lines_of(self):
        ckpt = self.scratch / "ckpt"
        os.environ["GAMMALAB_CHECKPOINT_DIR"] = str(ckpt)
        try:
            for step in (20, 40, 60):
                self.gammalab.checkpoint_path(step).write_text("x")
            (ckpt / "notes.txt").write_text("not a checkpoint")
            os.environ["GAMMALAB_STORED_THROUGH_STEP"] = "-1"
            self.assertIsNone(self.gammalab.resume_checkpoint(), "a first attempt starts over")
            os.environ["GAMMALAB_STORED_THROUGH_STEP"] = "55"
            self.assertEqual(self.gammalab.resume_checkpoint(), (40, ckpt / "step-000000000040.ckpt"),
                             "60 is newer than what is stored: resuming there would leave a hole")
            os.environ["GAMMALAB_STORED_THROUGH_STEP"] = "60"
            self.assertEqual(self.gammalab.resume_checkpoint()[0], 60)
            # A job under a reused id (a database restored from a backup) finds the old job's checkpoints in its
            # directory: it writes and resumes only its own, named by its uid.
            os.environ["GAMMALAB_JOB_UID"] = "a" * 32
            self.assertIsNone(self.gammalab.resume_checkpoint(), "the files of a job without this uid")
            self.gammalab.checkpoint_path(40).write_text("mine")
            self.assertEqual(self.gammalab.resume_checkpoint(), (40, ckpt / f"{'a' * 32}-step-000000000040.ckpt"))
            os.environ["GAMMALAB_JOB_UID"] = "b" * 32
            self.assertIsNone(self.gammalab.resume_checkpoint(), "another job's, under the same id")
        finally:
            for name in ("GAMMALAB_CHECKPOINT_DIR", "GAMMALAB_STORED_THROUGH_STEP", "GAMMALAB_JOB_UID"):
                os.environ.pop(name, None)

    def test_outside_a_job_it_reads_no_config(self):
        os.environ.pop("GAMMALAB_CONFIG", None)
        self.assertFalse(self.gammalab.in_job())
        self.assertEqual(self.gammalab.config(), {})


if __name__ == "__main__":
    unittest.main()

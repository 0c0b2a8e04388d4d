"""Reading a coordinator's sweeps, runs, metrics and fits from Python, over its HTTP API (docs/dashboard.md).

    from gammalab.client import Client
    c = Client("http://127.0.0.1:8080", token_file="user.token")
    runs = c.runs("demo")              # a pandas DataFrame: one row per job, its config flattened to columns
    points = c.points("demo")          # every metric point of every job: job, name, step, tokens, value

The routes and their limits are the HTTP API's; every point comes back (never a downsampled curve), read a
step range at a time when a job holds more than one answer's worth. pandas is needed for the DataFrames only.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, List, Optional, Tuple

# The most points one answer holds without max_points (the HTTP API refuses more): a job with more is read in
# step ranges, each asked for whole.
_MAX_POINTS_PER_ANSWER = 1_000_000


class ApiError(RuntimeError):
    """The coordinator refused a request: its status and its words."""

    def __init__(self, status: int, message: str, path: str, problems: Optional[List[Dict[str, Any]]] = None):
        lines = [f"{p.get('file')}:{p.get('line')}:{p.get('column')}: {p.get('path')}: {p.get('message')}"
                 for p in problems or []]
        super().__init__("\n".join([f"{path}: HTTP {status}: {message}", *lines]))
        self.status = status
        self.message = message
        self.problems = problems or []


class Client:
    """A user's connection to a coordinator's HTTP API. The token comes from `token`, else `token_file`, else
    the environment's GAMMALAB_TOKEN; the address from `url`, else GAMMALAB_HTTP, else 127.0.0.1:8080."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, token_file: Optional[str] = None,
                 timeout: float = 60.0):
        self.url = (url or os.environ.get("GAMMALAB_HTTP") or "http://127.0.0.1:8080").rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            self.url = "http://" + self.url
        if token is None and token_file is not None:
            with open(token_file, encoding="utf-8") as f:
                token = f.read().strip()
        self._token = token if token is not None else os.environ.get("GAMMALAB_TOKEN", "")
        self.timeout = timeout

    # ---- the routes -------------------------------------------------------------------------------------------

    def sweeps(self) -> List[Dict[str, Any]]:
        return self._list("/api/sweeps")

    def sweep(self, sweep: str) -> Dict[str, Any]:
        """A sweep by id or by its unique name."""
        return self._get(f"/api/sweeps/{_segment(sweep)}")[0]

    def jobs(self, sweep: str) -> List[Dict[str, Any]]:
        """Every job of the sweep, as the API lists them (config_json is each one's resolved config)."""
        return self._list(f"/api/sweeps/{_segment(sweep)}/jobs")

    def fits(self, sweep: str) -> Dict[str, Any]:
        """The coordinator's newest fits of the sweep, {"version": V, "fits": [...]} (each report as JSON text under
        report_json); {"version": 0, "fits": []} before its first fit."""
        return self._get(f"/api/sweeps/{_segment(sweep)}/fits")[0]

    def submit(self, sweep_file: str, rerun: bool = False, file_name: Optional[str] = None) -> Dict[str, Any]:
        """Submits a sweep file (a path, or its YAML text with `file_name`): {"sweep": ..., "jobs_created": n,
        "jobs_reused": n}. A file with problems raises ApiError (422) whose `problems` list each with its line."""
        text, file_name = sweep_file_text(sweep_file, file_name)
        params = {"file_name": file_name, "rerun": "1" if rerun else "0"}
        return self._get("/api/sweeps", params, method="POST", body=text.encode("utf-8"))[0]

    def cancel_sweep(self, sweep: str) -> int:
        """Cancels every pending and running job of the sweep; returns how many."""
        return int(self._get(f"/api/sweeps/{_segment(sweep)}/cancel", method="POST")[0]["cancelled"])

    def cancel(self, job: str) -> Dict[str, Any]:
        return self._get(f"/api/jobs/{_segment(job)}/cancel", method="POST")[0]

    def retry(self, job: str) -> Dict[str, Any]:
        return self._get(f"/api/jobs/{_segment(job)}/retry", method="POST")[0]

    def job_points(self, job: str, names: Optional[Iterable[str]] = None) -> List[Tuple[str, int, int, float]]:
        """Every stored point of one job as (name, step, tokens, value), by name then step. NaN for null."""
        job_info = self._get(f"/api/jobs/{_segment(job)}")[0]
        total = max(1, int(job_info.get("total_steps") or 1))
        out: List[Tuple[str, int, int, float]] = []
        self._points_in(str(job), names, 0, total, out)
        out.sort(key=lambda p: (p[0], p[1]))
        return out

    # ---- DataFrames -------------------------------------------------------------------------------------------

    def runs(self, sweep: str):
        """One row per job: the API's run row (id, name, state, stage, variant, params, tokens, compute, loss, ...)
        with every field of the job's resolved config as a column named by its dot path (config.optim.lr)."""
        import pandas as pd

        configs = {job["id"]: _flatten(json.loads(job.get("config_json") or "{}"), "config") for job in self.jobs(sweep)}
        rows = []
        for run in self._list(f"/api/sweeps/{_segment(sweep)}/runs"):
            row = dict(run)
            row.update(configs.get(run["id"], {}))
            rows.append(row)
        frame = pd.DataFrame(rows)
        return frame.sort_values("id", key=lambda ids: ids.astype(int)).reset_index(drop=True) if len(frame) else frame

    def points(self, sweep: str, names: Optional[Iterable[str]] = None):
        """Every metric point of every job of the sweep: columns job, name, step, tokens, value."""
        import pandas as pd

        names = list(names) if names is not None else None
        rows = []
        for job in self.jobs(sweep):
            for name, step, tokens, value in self.job_points(job["id"], names):
                rows.append((job["id"], name, step, tokens, value))
        return pd.DataFrame(rows, columns=["job", "name", "step", "tokens", "value"])

    # ---- plumbing ---------------------------------------------------------------------------------------------

    def _points_in(self, job: str, names, lo: int, hi: int, out: list) -> None:
        params = {"from_step": lo, "to_step": hi}
        if names:
            params["names"] = ",".join(names)
        try:
            answer = self._get(f"/api/jobs/{job}/metrics", params)[0]
        except ApiError as e:
            # More than one answer's worth: halve the range (each half holds fewer points).
            if e.status == 400 and "the answer would hold more than" in e.message and hi > lo:
                mid = (lo + hi) // 2
                self._points_in(job, names, lo, mid, out)
                self._points_in(job, names, mid + 1, hi, out)
                return
            raise
        for name, series in answer.items():
            for step, tokens, value in zip(series["step"], series["tokens"], series["value"]):
                out.append((name, int(step), int(tokens), float("nan") if value is None else float(value)))

    def _list(self, path: str) -> List[Dict[str, Any]]:
        items: List[Dict[str, Any]] = []
        token = ""
        while True:
            params = {"page_size": 5000}
            if token:
                params["page_token"] = token
            page, headers = self._get(path, params)
            items.extend(page)
            token = headers.get("X-Next-Page-Token", "")
            if not token:
                return items

    def _get(self, path: str, params: Optional[Dict[str, Any]] = None, method: str = "GET", body: bytes = b""):
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        request = urllib.request.Request(url, method=method, data=body if method == "POST" else None)
        if self._token:
            request.add_header("Authorization", "Bearer " + self._token)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8")), response.headers
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
            try:
                answer = json.loads(body)
            except ValueError:
                answer = {"error": body}
            raise ApiError(e.code, answer.get("error", body), path, answer.get("problems", [])) from None


def sweep_file_text(sweep_file: str, file_name: Optional[str]) -> Tuple[str, str]:
    """A sweep file's text and the name its problems are reported under: read from the path `sweep_file`, or
    `sweep_file` is the text itself when `file_name` is given (submit's two ways, over HTTP and gRPC)."""
    if file_name is not None:
        return sweep_file, file_name
    with open(sweep_file, encoding="utf-8") as f:
        return f.read(), os.path.basename(sweep_file)


def _segment(value: Any) -> str:
    return urllib.parse.quote(str(value), safe="")


def _flatten(value: Any, prefix: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        return {prefix: json.dumps(value) if isinstance(value, list) else value}
    out: Dict[str, Any] = {}
    for key, inner in value.items():
        out.update(_flatten(inner, f"{prefix}.{key}"))
    return out

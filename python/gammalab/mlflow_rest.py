"""An MLflow tracking server over its REST API (``/api/2.0/mlflow/...``, MLflow's documented wire protocol), for
``export --mlflow`` and ``convert --mlflow``: no MLflow package is needed on the client's side. Only the calls
those two make, each checked: an MLflow error comes back as MlflowError with its code and message.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional

# log-batch's limits (MLflow's REST API): at most 1000 metrics, 100 params and 1000 items in all per call.
MAX_BATCH_METRICS = 1000
MAX_BATCH_PARAMS = 100


class MlflowError(RuntimeError):
    def __init__(self, path: str, status: int, code: str, message: str):
        super().__init__(f"{path}: HTTP {status}: {code}: {message}")
        self.status = status
        self.code = code


class Mlflow:
    def __init__(self, url: str, timeout: float = 60.0):
        self.url = url.rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            self.url = "http://" + self.url
        self.timeout = timeout

    def call(self, path: str, body: Optional[Dict[str, Any]] = None, query: Optional[Dict[str, Any]] = None):
        url = f"{self.url}/api/2.0/mlflow/{path}" + ("?" + urllib.parse.urlencode(query) if query else "")
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8") or "{}")
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                answer = json.loads(text)
            except ValueError:
                answer = {"error_code": "HTTP_ERROR", "message": text[:500]}
            raise MlflowError(path, e.code, answer.get("error_code", ""), answer.get("message", "")) from None

    # ---- experiments and runs ---------------------------------------------------------------------------------

    def experiment_id(self, name: str, create: bool = False) -> str:
        try:
            return self.call("experiments/get-by-name", query={"experiment_name": name})["experiment"]["experiment_id"]
        except MlflowError as e:
            if e.code != "RESOURCE_DOES_NOT_EXIST" or not create:
                raise
        return self.call("experiments/create", {"name": name})["experiment_id"]

    def create_run(self, experiment_id: str, name: str, start_ms: int, tags: Dict[str, str]) -> str:
        body = {"experiment_id": experiment_id, "run_name": name, "start_time": start_ms,
                "tags": [{"key": k, "value": v} for k, v in tags.items()]}
        return self.call("runs/create", body)["run"]["info"]["run_id"]

    def log_batch(self, run_id: str, metrics: List[Dict[str, Any]] = (), params: List[Dict[str, str]] = ()) -> None:
        metrics, params = list(metrics), list(params)
        for at in range(0, len(params), MAX_BATCH_PARAMS):
            self.call("runs/log-batch", {"run_id": run_id, "params": params[at:at + MAX_BATCH_PARAMS]})
        for at in range(0, len(metrics), MAX_BATCH_METRICS):
            self.call("runs/log-batch", {"run_id": run_id, "metrics": metrics[at:at + MAX_BATCH_METRICS]})

    def finish_run(self, run_id: str, end_ms: int) -> None:
        self.call("runs/update", {"run_id": run_id, "status": "FINISHED", "end_time": end_ms})

    def runs(self, experiment_id: str) -> Iterator[Dict[str, Any]]:
        token = None
        while True:
            body = {"experiment_ids": [experiment_id], "max_results": 1000, "order_by": ["attributes.start_time ASC"]}
            if token:
                body["page_token"] = token
            page = self.call("runs/search", body)
            yield from page.get("runs", [])
            token = page.get("next_page_token")
            if not token:
                return

    def history(self, run_id: str, key: str) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        token = None
        while True:
            query = {"run_id": run_id, "metric_key": key, "max_results": 25000}
            if token:
                query["page_token"] = token
            page = self.call("metrics/get-history", query=query)
            out.extend(page.get("metrics", []))
            token = page.get("next_page_token")
            if not token:
                return out

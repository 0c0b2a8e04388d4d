"""The coordinator's gRPC API from Python, with its typed messages: the stubs that the build generates from
proto/ (python/CMakeLists.txt: `pip install build/python/package`), the token sent as the CLI sends it.

    from gammalab import rpc
    with rpc.connect("127.0.0.1:50051", token_file="user.token") as coordinator:
        for sweep in coordinator.sweeps():                 # gammalab.v1.Sweep messages
            print(sweep.id, sweep.name, sweep.total_jobs)
        answer = coordinator.submit("sweep.yaml")          # a SubmitSweepResponse
        coordinator.cancel_sweep(answer.sweep.id)
        # Any other call of the service, with the token:
        fits = coordinator.call("GetFits", rpc.pb.GetFitsRequest(sweep_id=answer.sweep.id, latest_only=True))

A refused call raises grpc.RpcError, whose code() and details() are the coordinator's (a sweep file's problems
come back in SubmitSweepResponse.problems, each with its line). grpcio and protobuf are needed by this module
only: the package installed from python/ alone has no stubs, and importing this module then says how to get them.
"""
from __future__ import annotations

import os
from typing import Any, Iterator, List, Optional

from gammalab.client import sweep_file_text

try:
    import grpc
    from gammalab.v1 import gammalab_pb2 as pb
    from gammalab.v1 import gammalab_pb2_grpc as pb_grpc
except ImportError as e:  # pragma: no cover - said to the user, not tested for
    raise ImportError(
        "gammalab.rpc needs grpcio and protobuf, and the stubs the build generates from proto/: "
        "build the repository, then `pip install build/python/package` (python/CMakeLists.txt)") from e

__all__ = ["Coordinator", "connect", "pb"]

# Pages as large as the coordinator gives (its limit for sweeps and jobs).
_PAGE = 5000


class Coordinator:
    """A user's connection to a coordinator's gRPC API. `stub` is the generated CoordinatorStub; `metadata`
    the token's header, which every call through `call` and the helpers sends."""

    def __init__(self, channel: "grpc.Channel", token: str):
        self.channel = channel
        self.stub = pb_grpc.CoordinatorStub(channel)
        self.metadata = (("authorization", "Bearer " + token),) if token else ()

    def call(self, method: str, request: Any, timeout: Optional[float] = 60.0) -> Any:
        """The RPC `method` of the Coordinator service (its name in proto/gammalab/v1/gammalab.proto)."""
        return getattr(self.stub, method)(request, metadata=self.metadata, timeout=timeout)

    def sweeps(self) -> List["pb.Sweep"]:
        """Every sweep, oldest first, read a page at a time."""
        out: List[pb.Sweep] = []
        token = ""
        while True:
            page = self.call("ListSweeps", pb.ListSweepsRequest(page_size=_PAGE, page_token=token))
            out.extend(page.sweeps)
            token = page.next_page_token
            if not token:
                return out

    def jobs(self, sweep_id: str) -> List["pb.Job"]:
        """Every job of a sweep, read a page at a time."""
        out: List[pb.Job] = []
        token = ""
        while True:
            page = self.call("ListJobs", pb.ListJobsRequest(sweep_id=str(sweep_id), page_size=_PAGE, page_token=token))
            out.extend(page.jobs)
            token = page.next_page_token
            if not token:
                return out

    def submit(self, sweep_file: str, rerun: bool = False, file_name: Optional[str] = None) -> "pb.SubmitSweepResponse":
        """Submits a sweep file (a path, or its YAML text with `file_name`). A refused file's problems are in
        the answer's `problems`, and its `sweep` is absent."""
        text, file_name = sweep_file_text(sweep_file, file_name)
        return self.call("SubmitSweep", pb.SubmitSweepRequest(yaml=text, file_name=file_name, rerun=rerun))

    def cancel_sweep(self, sweep_id: str) -> int:
        """Cancels every unfinished job of the sweep; returns how many."""
        return self.call("CancelSweep", pb.CancelSweepRequest(sweep_id=str(sweep_id))).cancelled

    def watch(self, sweep_id: str) -> Iterator["pb.SweepUpdate"]:
        """The sweep's updates as they happen, until it is complete (a server stream)."""
        return self.stub.WatchSweep(pb.WatchSweepRequest(sweep_id=str(sweep_id)), metadata=self.metadata)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Coordinator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def connect(address: Optional[str] = None, token: Optional[str] = None, token_file: Optional[str] = None,
            tls_ca_file: Optional[str] = None) -> Coordinator:
    """A connection to the coordinator at `address` (HOST:PORT; else GAMMALAB_SERVER, else 127.0.0.1:50051), with
    the token from `token`, else `token_file`, else GAMMALAB_TOKEN. With `tls_ca_file` (PEM) over TLS, the
    server's certificate checked against it; else plain gRPC, as the CLI without --tls-ca."""
    address = address or os.environ.get("GAMMALAB_SERVER") or "127.0.0.1:50051"
    if token is None and token_file is not None:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
    if token is None:
        token = os.environ.get("GAMMALAB_TOKEN", "")
    if tls_ca_file:
        with open(tls_ca_file, "rb") as f:
            channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=f.read()))
    else:
        channel = grpc.insecure_channel(address)
    return Coordinator(channel, token)

"""A real coordinator for the Python tests: tokens made with `gammalab-server token create`, the server started
on free ports of the loopback (its first stdout line says which), stopped and its folder's logs closed after."""
import json
import subprocess
import time
from pathlib import Path


class Coordinator:
    def __init__(self, build: Path, folder: Path, roles=("user",)):
        server = build / "server/gammalab-server"
        self.tokens = {}
        for role in roles:
            self.tokens[role] = folder / f"{role}.token"
            subprocess.run([str(server), "token", "create", "--role", role, "--name", f"test-{role}", "--db",
                            str(folder / "gammalab.db"), "--out", str(self.tokens[role])], check=True,
                           stdout=subprocess.DEVNULL)
        self.logs = [open(folder / "server.out", "w"), open(folder / "server.log", "w")]
        self.process = subprocess.Popen([str(server), "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--db",
                                         str(folder / "gammalab.db"), "--shared-root", str(folder / "shared")],
                                        stdout=self.logs[0], stderr=self.logs[1])
        for _ in range(200):
            text = (folder / "server.out").read_text()
            if "listening" in text:
                break
            time.sleep(0.05)
        ports = json.loads(text.splitlines()[0])
        self.grpc = f"127.0.0.1:{ports['grpc_port']}"
        self.http = f"127.0.0.1:{ports['http_port']}"

    def stop(self):
        self.process.kill()
        self.process.wait()
        for log in self.logs:
            log.close()

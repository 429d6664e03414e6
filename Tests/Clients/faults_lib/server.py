"""The server process: `custos serve` launched, waited for, killed, stopped and restarted on the same
data, its admin commands (API keys, `admin audit verify`), its log, and SQLite's integrity check."""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import time

import requests


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# MARK: The server process


class ServerFailed(Exception):
    pass


class Server:
    """`custos serve` on a data directory (and a PostgreSQL database), on one port across restarts."""

    def __init__(self, binary: str, data_dir: str, log_path: str, database_url: str = None, extra=()):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = log_path
        self.database_url = database_url
        self.extra = list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.starts = 0

    def store_options(self) -> list:
        return ["--data-dir", self.data_dir] + (["--database-url", self.database_url] if self.database_url else [])

    def cli(self, arguments: list, timeout: float = 300) -> subprocess.CompletedProcess:
        environment = {name: value for name, value in os.environ.items() if not name.startswith("CUSTOS_")}
        return subprocess.run([self.binary] + arguments, capture_output=True, text=True, timeout=timeout, env=environment)

    def create_key(self, scope: str) -> dict:
        made = self.cli(["admin", "apikey", "create", "--scope", scope, "--label", f"faults-{scope}", "--json"] + self.store_options())
        if made.returncode != 0:
            raise ServerFailed(f"admin apikey create exited {made.returncode}: {made.stderr.strip()}")
        return json.loads(made.stdout)

    def arguments(self) -> list:
        return ([self.binary, "serve", "--dev", "--idv=false", "--port", str(self.port), "--issuer", self.url,
                 "--argon2-memory-kib", "64", "--argon2-iterations", "1", "--rate-limit-per-ip", "0", "--rate-limit-per-user", "0",
                 "--notify-max-pending-per-user", "1000", "--webhook-timeout", "2", "--webhook-connect-timeout", "1",
                 "--webhook-backoff-ms", "200", "--webhook-max-attempts", "30", "--oidc-access-token-lifetime", "3600",
                 "--oidc-code-lifetime", "120", "--shutdown-grace", "3", "--log-level", "warning"]
                + self.store_options() + self.extra)

    def launch(self):
        """Starts the process without waiting for it (see `wait_ready`)."""
        self.starts += 1
        with open(self.log_path, "a") as handle:
            handle.write(f'{{"faults":"start {self.starts}"}}\n')
        environment = {name: value for name, value in os.environ.items() if not name.startswith("CUSTOS_")}
        self.process = subprocess.Popen(self.arguments(), stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"),
                                        env=environment, start_new_session=True)

    def wait_ready(self, timeout: float = 60) -> float:
        """Seconds until /healthz answered; raises when the process ended first or never answered."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise ServerFailed(f"custos serve exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if requests.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return time.monotonic() - started
            except requests.RequestException:
                pass
            time.sleep(0.05)
        raise ServerFailed(f"custos serve did not answer /healthz within {timeout} s:\n{self.log_tail()}")

    def start(self, attempts: int = 3) -> float:
        """Starts and waits for /healthz; retries when the port is still held by the killed process."""
        for attempt in range(attempts):
            self.launch()
            try:
                return self.wait_ready()
            except ServerFailed:
                if attempt == attempts - 1 or self.process.poll() is None:
                    raise
                time.sleep(1)
        raise AssertionError("unreachable")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM; the exit status (negative: the signal that ended it)."""
        if not self.alive():
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return -signal.SIGKILL

    def audit_verify(self, expect_head: str = None):
        """(intact, the head to expect next time, what it printed). With a head: the whole chain
        again (`--full`), not only what follows the head, as a kill may have hurt any part."""
        arguments = ["admin", "audit", "verify", "--dev"] + self.store_options() + (["--expect-head", expect_head, "--full"] if expect_head else [])
        verified = self.cli(arguments)
        text = (verified.stdout + verified.stderr).strip()
        head = None
        if "--expect-head " in text:
            head = text.rsplit("--expect-head ", 1)[1].rstrip(")").strip()
        return verified.returncode == 0 and "audit chain intact" in text, head, text

    def log_tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path) as handle:
                return "".join(handle.readlines()[-lines:])
        except OSError:
            return ""

    def crashed_in_log(self) -> list:
        """Log lines that say the process hit a fatal error."""
        try:
            with open(self.log_path, errors="replace") as handle:
                return [line.strip() for line in handle if "Fatal error" in line or "Segmentation" in line or "panic" in line.lower()]
        except OSError:
            return []


def sqlite_integrity(data_dir: str) -> str:
    """`PRAGMA integrity_check` of the server's database: the sqlite3 command where installed, else Python's sqlite3."""
    path = os.path.join(data_dir, "custos.sqlite")
    if shutil.which("sqlite3"):
        checked = subprocess.run(["sqlite3", path, "PRAGMA integrity_check;"], capture_output=True, text=True, timeout=60)
        return (checked.stdout + checked.stderr).strip()
    with sqlite3.connect(path) as connection:
        return "\n".join(row[0] for row in connection.execute("PRAGMA integrity_check"))

"""The uploads scenario: the server's memory under a burst of concurrent large uploads.

A user with a session starts a biometric opt-in (workflow 10) and gets its challenge; then UPLOADS
POSTs of about 6 MB each (`/v1/idv/transactions/{id}/frames`, three frames of 1.5 MB of bytes that
open like a JPEG and are not one, base64) are sent at once, their client sockets bound to several
loopback source addresses (Linux's loopback takes any 127/8 source), so that the server sees
several clients. The server reserves each upload's declared Content-Length from its upload memory
(all clients together, and one client address) before it buffers the body, and refuses past it
(503 `server_busy`, 429 `too_many_uploads`). The process's resident memory (VmRSS) is sampled
every 100 ms: idle before the first burst (after one upload alone), the peak during each burst and
5 s after it, each against that idle. Three bursts on one server: from two addresses (each client
address's budget binds), from sixteen (together more than the total: the total budget binds), and
from sixteen again (what a burst leaves held must not add to the next). The server runs with its
default upload memory limits.
"""
import base64
import collections
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

import requests

from .client import Api
from .ledger import activated_user
from .load import log_in
from .postgres import Postgres
from .report import Report, log
from .scenario import describe, report_clean_stop
from .server import Server

UPLOADS = 250
FRAMES = 3
FRAME_BYTES = 1_500_000          # raw; base64 makes 2,000,000 of each, about 6 MB a body
BURSTS = (("2 addresses", [f"127.0.0.{n}" for n in (1, 2)]),
          ("16 addresses", [f"127.0.0.{n}" for n in range(1, 17)]),
          ("16 addresses again", [f"127.0.0.{n}" for n in range(1, 17)]))
PEAK_MARGIN_MIB = 150            # peak RSS - idle <= the total upload budget + this
AFTER_MARGIN_MIB = 100           # RSS 5 s after a burst <= idle + this
SETTLE_SECONDS = 5.0
MIB = 1024 * 1024


# MARK: Memory


class RssSampler(threading.Thread):
    """VmRSS of one process every 100 ms: (time.monotonic(), bytes)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True, name="faults-rss")
        self.pid = pid
        self.samples = []
        self.stopping = threading.Event()

    def read(self):
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None

    def run(self):
        while not self.stopping.is_set():
            rss = self.read()
            if rss is not None:
                self.samples.append((time.monotonic(), rss))
            time.sleep(0.1)

    def between(self, start: float, end: float) -> list:
        return [rss for moment, rss in list(self.samples) if start <= moment <= end]


def help_default(binary: str, flag: str):
    """The default `custos serve --help` states for `flag` (a number), or None."""
    shown = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=60)
    match = re.search(re.escape(flag) + r"\s.*?\(default (\d+)\)", shown.stdout + shown.stderr)
    return int(match.group(1)) if match else None


def mib(value: float) -> str:
    return f"{value / MIB:.0f} MiB"


# MARK: Uploads


def challenge(api: Api, token: str):
    """A biometric opt-in's transaction id and the nonce of its liveness challenge."""
    started = api.call("POST", "/v1/idv/transactions", token=token, expect=201,
                       json={"workflow": 10, "consent": {"accepted": True, "version": "faults"}})
    transaction = started.body["idv_audit_transaction_id"]
    confirmed = api.call("POST", f"/v1/idv/transactions/{transaction}/confirm", "/v1/idv/transactions/{id}/confirm",
                         token=token, expect=200)
    return transaction, confirmed.body["nonce"]


def frames_body(nonce: str) -> bytes:
    """About 6 MB of JSON: frames that start like a JPEG (the server reads them as one and fails)."""
    frame = base64.b64encode((b"\xff\xd8\xff\xe0" + bytes(range(256)) * (FRAME_BYTES // 256 + 1))[:FRAME_BYTES]).decode()
    return json.dumps({"nonce": nonce, "frames": [{"captured_at_ms": 1000 + 200 * index, "image": frame}
                                                  for index in range(FRAMES)]}).encode()


def upload(port: int, path: str, token: str, body: bytes, source: str):
    """One POST from `source`: (status, error code) or (the exception's name, None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        connection.request("POST", path, body=body, headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        text = response.read()
        try:
            error = json.loads(text).get("error")
            code = error.get("code") if isinstance(error, dict) else None
        except (ValueError, AttributeError):
            code = None
        return response.status, code
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__, None
    finally:
        connection.close()


def burst(port: int, path: str, token: str, body: bytes, sources: list) -> list:
    """UPLOADS uploads released at once, round-robin over `sources`; their (status, code)."""
    answers = [None] * UPLOADS
    gate = threading.Barrier(UPLOADS + 1)

    def one(index: int):
        gate.wait()
        answers[index] = upload(port, path, token, body, sources[index % len(sources)])

    threads = [threading.Thread(target=one, args=(index,), daemon=True) for index in range(UPLOADS)]
    for thread in threads:
        thread.start()
    gate.wait()
    for thread in threads:
        thread.join(180)
    return [answer or ("no answer in 180 s", None) for answer in answers]


# MARK: Scenario: concurrent large uploads


def uploads_scenario(options, report: Report, store: str, postgres: "Postgres" = None):
    """The bursts one after another on one `custos serve`, each measured against its idle memory
    before the first: what one burst leaves behind counts in the next."""
    name = f"uploads/{store}"
    total_mib = help_default(options.binary, "--upload-memory-mib")
    client_mib = help_default(options.binary, "--upload-memory-per-client-mib")
    log(f"\n== {name}: {UPLOADS} concurrent uploads of about {len(frames_body('x')) / 1e6:.0f} MB ({FRAMES} frames of "
        f"{FRAME_BYTES / 1e6:.1f} MB, base64) per burst, RSS sampled every 100 ms; default upload memory limits: "
        f"--upload-memory-mib {total_mib}, --upload-memory-per-client-mib {client_mib}; rate limits off "
        f"(--rate-limit-per-ip 0, --rate-limit-per-user 0)")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    database, server, sampler = None, None, None
    try:
        if total_mib is None or client_mib is None:
            raise RuntimeError("custos serve --help names no default for --upload-memory-mib or --upload-memory-per-client-mib")
        database = postgres.create_database() if postgres else None
        # Server biometrics on: the frames are decoded and judged as in production.
        server = Server(options.binary, os.path.join(work, "data"), os.path.join(work, "server.log"), database, ["--idv=true"])
        rp = server.create_key("rp")
        server.start()
        sampler = RssSampler(server.process.pid)
        sampler.start()
        api = Api(server.url, options.request_timeout)
        user = activated_user(api, rp["key"], f"u{os.getpid()}-{int(time.time()) % 100000}", "uploads-password")
        # One upload first: what the first upload allocates once is not the bursts'.
        transaction, nonce = challenge(api, user.token)
        warm = upload(server.port, f"/v1/idv/transactions/{transaction}/frames", user.token, frames_body(nonce), "127.0.0.1")
        time.sleep(2.0)
        idle = statistics.median(sampler.between(time.monotonic() - 2.0, time.monotonic()) or [sampler.read()])
        log(f"  pid {server.process.pid}; a first upload alone answered {warm[0]} {warm[1] or ''}; idle RSS {mib(idle)}")
        for label, sources in BURSTS:
            transaction, nonce = challenge(api, user.token)
            body = frames_body(nonce)
            before = sampler.read()
            began = time.monotonic()
            answers = burst(server.port, f"/v1/idv/transactions/{transaction}/frames", user.token, body, sources)
            ended = time.monotonic()
            peak = max(sampler.between(began, ended + 0.5), default=before)
            time.sleep(SETTLE_SECONDS)
            after = sampler.read()
            binding = min(total_mib, client_mib * len(sources)) if client_mib else total_mib
            counted = collections.Counter(f"{status} {code}" if code else f"{status}" for status, code in answers)
            log(f"  burst from {label} ({', '.join(sources[:2])}{', …' if len(sources) > 2 else ''}): {UPLOADS} uploads answered in "
                f"{ended - began:.1f} s; the budget that binds: {binding} MiB "
                f"({'each address ' + str(client_mib) + ' MiB' if binding < total_mib else 'all addresses together'})")
            log(f"    answers: {', '.join(f'{key} x{count}' for key, count in sorted(counted.items(), key=lambda item: -item[1]))}")
            log(f"    RSS idle {mib(idle)}, before this burst {mib(before)}, peak {mib(peak)} ({(peak - idle) / MIB:+.0f} MiB over idle), "
                f"{SETTLE_SECONDS:g} s after {mib(after)} ({(after - idle) / MIB:+.0f} MiB)")
            report.check(f"{name}: {label}: peak memory bounded", peak - idle <= (total_mib + PEAK_MARGIN_MIB) * MIB,
                         f"peak - idle = {mib(peak - idle)}, limit {total_mib} MiB (--upload-memory-mib) + {PEAK_MARGIN_MIB} MiB")
            report.check(f"{name}: {label}: memory returns", after - idle <= AFTER_MARGIN_MIB * MIB,
                         f"{SETTLE_SECONDS:g} s after: {mib(after)}, idle {mib(idle)}, limit idle + {AFTER_MARGIN_MIB} MiB")
            wrong = {key: count for key, count in counted.items()
                     if not key.split()[0].isdigit() or (int(key.split()[0]) >= 500 and key != "503 server_busy")}
            report.check(f"{name}: {label}: every upload answered, no 5xx but 503 server_busy", not wrong,
                         f"{sum(wrong.values())} others: {wrong}" if wrong else f"{UPLOADS} answered")
        health = requests.get(server.url + "/healthz", timeout=10)
        try:
            log_in(api, user)
            login = "a login let in"
        except Exception as error:
            login = f"a login failed: {error}"
        report.check(f"{name}: serves afterwards", health.status_code == 200 and login == "a login let in" and server.alive(),
                     f"/healthz {health.status_code}; {login}")
        report_clean_stop(report, name, server)
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error) + (f"\n{server.log_tail()}" if server else ""))
    finally:
        if sampler:
            sampler.stopping.set()
        if server and server.alive():
            server.stop()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)

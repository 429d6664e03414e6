"""The slow-clients scenario: connections that trickle their headers hold no connection for ever,
and probes keep a way in while they hold them all.

CONNECTIONS sockets from ADDRESSES loopback source addresses (Linux's loopback takes any 127/8
source; each address stays under the per-address connection limit) open to the main port, send a
request line and then one header line a second, never the blank line that ends the headers: far
below the idle timeout, so only the header deadline can end them. The server runs with
`--max-connections CONNECTIONS` (they take every connection) and `--probe-port`. While they hold
on, the main port's `/healthz` is tried (its answer is printed: with every connection taken it
has none to give) and the probe port's `/healthz` and `/readyz` are asked once a second. Checks:
every probe answered 200; every trickling connection was cut by the server within the header
deadline and HEADER_SLACK seconds; the main port answers again once they are gone; the server
stops cleanly.
"""
import os
import select
import shutil
import socket
import statistics
import tempfile
import time

import requests

from .report import Report, log
from .scenario import describe, report_clean_stop
from .server import Server, free_port

CONNECTIONS = 1000
ADDRESSES = 50
HEADER_DEADLINE = 10      # --header-deadline for the run (the default is 30 s)
HEADER_SLACK = 3.0        # the sweep runs once a second; a loaded machine adds a little


def open_trickler(port: int, source: str) -> socket.socket:
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.bind((source, 0))
    connection.settimeout(5)
    connection.connect(("127.0.0.1", port))
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: custos\r\n")
    connection.setblocking(False)
    return connection


def ask(url: str, timeout: float = 2.0):
    """(status or the error's name, seconds)."""
    began = time.monotonic()
    try:
        status = requests.get(url, timeout=timeout).status_code
    except requests.RequestException as error:
        status = type(error).__name__
    return status, time.monotonic() - began


def slow_clients_scenario(options, report: Report):
    name = "slow-clients"
    log(f"\n== {name}: {CONNECTIONS} connections from {ADDRESSES} addresses trickle a header line a second; "
        f"--max-connections {CONNECTIONS}, --header-deadline {HEADER_DEADLINE}, --probe-port")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    server, open_sockets = None, {}
    try:
        probe_port = free_port()
        server = Server(options.binary, os.path.join(work, "data"), os.path.join(work, "server.log"), None,
                        ["--max-connections", str(CONNECTIONS), "--max-connections-per-ip", str(CONNECTIONS // ADDRESSES + 8),
                         "--header-deadline", str(HEADER_DEADLINE), "--probe-port", str(probe_port)])
        server.start()
        probe = f"http://127.0.0.1:{probe_port}"
        sources = [f"127.0.{1 + n // 250}.{1 + n % 250}" for n in range(ADDRESSES)]
        began = time.monotonic()
        refused = 0
        for n in range(CONNECTIONS):
            try:
                connection = open_trickler(server.port, sources[n % ADDRESSES])
                open_sockets[connection] = time.monotonic()
            except OSError:
                refused += 1
        opened = time.monotonic()
        log(f"  {len(open_sockets)} opened in {opened - began:.1f} s ({refused} refused)")
        main_status, main_seconds = ask(server.url + "/healthz")
        log(f"  main port /healthz with every connection taken: {main_status} after {main_seconds:.2f} s")

        probes, cut = [], []
        # poll, not select: the descriptors may lie past select's 1,024 (a test runner holds many).
        poller, by_descriptor = select.poll(), {}
        for connection in open_sockets:
            poller.register(connection, select.POLLIN)
            by_descriptor[connection.fileno()] = connection

        def closed(connection):
            cut.append(time.monotonic() - open_sockets.pop(connection))
            poller.unregister(connection)
            del by_descriptor[connection.fileno()]
            connection.close()

        deadline = opened + HEADER_DEADLINE + HEADER_SLACK + 5
        next_line, next_probe = time.monotonic(), time.monotonic()
        while open_sockets and time.monotonic() < deadline:
            now = time.monotonic()
            if now >= next_line:
                for connection in list(open_sockets):
                    try:
                        connection.send(b"X-Trickle: a\r\n")
                    except OSError:
                        closed(connection)
                next_line = now + 1.0
            if now >= next_probe:
                probes.append(ask(probe + "/healthz"))
                probes.append(ask(probe + "/readyz"))
                next_probe = now + 1.0
            for descriptor, _ in poller.poll(200):
                connection = by_descriptor.get(descriptor)
                if connection is None:
                    continue
                try:
                    data = connection.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed(connection)
        held = len(open_sockets)
        seconds = sorted(cut)
        if seconds:
            log(f"  cut by the server: {len(seconds)}, after p50 {statistics.median(seconds):.1f} s, max {seconds[-1]:.1f} s "
                f"(deadline {HEADER_DEADLINE} s); still open {held}")
        answered = [seconds for status, seconds in probes if status == 200]
        log(f"  probe port: {len(answered)} of {len(probes)} /healthz and /readyz answered 200"
            + (f", slowest {max(answered) * 1000:.0f} ms" if answered else ""))
        report.check(f"{name}: probes answer while every connection is taken", bool(probes) and len(answered) == len(probes),
                     f"{len(answered)}/{len(probes)} answered 200" + ("" if len(answered) == len(probes)
                                                                       else f"; others: {[s for s, _ in probes if s != 200][:5]}"))
        report.check(f"{name}: trickling connections are cut at the header deadline",
                     held == 0 and bool(seconds) and seconds[-1] <= HEADER_DEADLINE + HEADER_SLACK,
                     f"{len(seconds)} cut, max {seconds[-1]:.1f} s, limit {HEADER_DEADLINE} s + {HEADER_SLACK:g} s; {held} still open"
                     if seconds else f"none cut; {held} still open")
        after_status, after_seconds = ask(server.url + "/healthz", timeout=5)
        report.check(f"{name}: the main port answers again", after_status == 200, f"/healthz {after_status} in {after_seconds:.2f} s")
        report_clean_stop(report, name, server)
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error) + (f"\n{server.log_tail()}" if server else ""))
    finally:
        for connection in open_sockets:
            connection.close()
        if server and server.alive():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

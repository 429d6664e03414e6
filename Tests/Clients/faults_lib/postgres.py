"""PostgreSQL control: scripts/with-postgres.sh's cluster, a database of our own in it, and its stop
and start (or freeze and thaw)."""
import os
import secrets
import subprocess
from urllib.parse import parse_qsl, urlparse, urlunparse

from .server import ServerFailed


class Postgres:
    """scripts/with-postgres.sh's cluster: a database of our own, and its stop and start."""

    def __init__(self):
        environment = os.environ
        self.url = environment.get("CUSTOS_TEST_DATABASE_URL", "")
        self.pg_ctl = environment.get("CUSTOS_TEST_PG_CTL", "")
        self.bin = environment.get("CUSTOS_TEST_PG_BIN", "/usr/lib/postgresql/15/bin")
        query = dict(parse_qsl(urlparse(self.url).query)) if self.url else {}
        self.socket = environment.get("CUSTOS_TEST_PG_SOCKET") or query.get("host", "")
        self.port = environment.get("CUSTOS_TEST_PG_PORT") or query.get("port", "5432")

    @property
    def available(self) -> bool:
        return bool(self.url)

    def client(self, tool: str, *arguments) -> subprocess.CompletedProcess:
        return subprocess.run([os.path.join(self.bin, tool), "-h", self.socket, "-p", self.port, "-U", "postgres", *arguments],
                              capture_output=True, text=True, timeout=60)

    def create_database(self) -> str:
        """A fresh database, so that the run neither sees nor disturbs what the tests keep in custos_test."""
        name = "faults_" + secrets.token_hex(6)
        made = self.client("createdb", name)
        if made.returncode != 0:
            raise ServerFailed(f"createdb {name}: {made.stderr.strip()}")
        parsed = urlparse(self.url)
        return urlunparse(parsed._replace(path="/" + name))

    def drop_database(self, url: str):
        self.client("dropdb", "--if-exists", "--force", urlparse(url).path.lstrip("/"))

    def control(self, action: str) -> int:
        """`stop`, `start`, `freeze` or `thaw` through $CUSTOS_TEST_PG_CTL (scripts/pg-ctl.sh); `freeze`
        and `thaw` stop and continue the cluster's processes (SIGSTOP, SIGCONT): PostgreSQL
        unresponsive rather than gone."""
        return subprocess.run([self.pg_ctl, action], capture_output=True, text=True, timeout=90).returncode

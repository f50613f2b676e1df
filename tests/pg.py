"""A throwaway PostgreSQL server for the tests (Debian's binaries, loopback only), and a fresh schema per test."""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import asyncpg

from tests.timeouts import scaled

DATABASE = "companion"
# Like a managed PostgreSQL (ICU, root locale; PostgreSQL 15+): a time column without COLLATE "C" compares wrongly.
ICU_LOCALE = ["--locale-provider=icu", "--icu-locale=und"]


class Unavailable(Exception):
    """No PostgreSQL server can be had; the message says why."""


def find_bin() -> Path:
    """The newest /usr/lib/postgresql/*/bin, or the directory in PG_BIN_DIR."""
    if os.environ.get("PG_BIN_DIR"):
        candidates = [os.environ["PG_BIN_DIR"]]
    else:
        candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: major(Path(p).parent.name))
    for directory in reversed(candidates):
        if (Path(directory) / "initdb").is_file():
            return Path(directory)
    where = candidates[0] if candidates else "/usr/lib/postgresql/*/bin"
    raise Unavailable(f"no initdb in {where} (install Debian's postgresql, or set TEST_DATABASE_URL)")


def major(version: str) -> int:
    digits = version.split(".")[0]
    return int(digits) if digits.isdigit() else 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A PostgreSQL server in a fresh directory under /tmp, run as the user postgres when we are root."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        # /tmp and a 755 directory: the user postgres must be able to reach it (pytest's tmp_path is 0700).
        self.dir = Path(tempfile.mkdtemp(prefix="pg-test-", dir="/tmp"))
        self.dir.chmod(0o755)
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.dir, self.user)
        self.port = 0
        self.url = ""

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [str(self.bin / args[0]), *args[1:]], user=self.user, cwd=self.dir, capture_output=True, text=True
        )
        if result.returncode != 0:
            log = self.dir / "log"
            tail = log.read_text(errors="replace")[-1000:] if log.exists() else ""
            raise Unavailable(f"{args[0]} failed: {(result.stderr or result.stdout).strip()[-1000:]} {tail}".strip())

    def start(self) -> str:
        data = str(self.dir / "data")
        version = subprocess.run([str(self.bin / "initdb"), "--version"], capture_output=True, text=True).stdout
        found = re.search(r"PostgreSQL\) (\d+)", version)  # "initdb (PostgreSQL) 15.18 (Debian …)"
        icu = ICU_LOCALE if found and int(found.group(1)) >= 15 else []
        self._run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C", *icu)
        # Durability is pointless for a throwaway server; the port may be taken between free_port() and start.
        options = f"-k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        for attempt in range(3):
            self.port = free_port()
            try:
                self._run("pg_ctl", "-D", data, "-o", f"-p {self.port} {options}", "-l", str(self.dir / "log"),
                          "-w", "-t", str(round(scaled(60))), "start")
                break
            except Unavailable:
                if attempt == 2:
                    raise
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", DATABASE)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"
        return self.url

    def stop(self) -> None:
        if (self.dir / "data" / "postmaster.pid").exists():
            subprocess.run([str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop"],
                           user=self.user, cwd=self.dir, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def start_server() -> Server:
    """Start a throwaway server; raises Unavailable with the reason when it cannot."""
    bin_dir = find_bin()
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root, and there is no user postgres to run the server as") from None
    server = Server(bin_dir)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server


def with_search_path(url: str, schema: str) -> str:
    """The URL with search_path set to schema (asyncpg sends unknown query parameters as server settings)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def create_schema(url: str) -> str:
    """Create a fresh schema t_<8 hex> in the server at url and return its name."""
    schema = f"t_{uuid.uuid4().hex[:8]}"
    try:
        conn = await asyncpg.connect(url, timeout=scaled(10))
    except (OSError, asyncpg.PostgresError, TimeoutError) as e:
        raise Unavailable(f"cannot connect to {url}: {e}") from e
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    return schema


async def drop_schema(url: str, schema: str) -> None:
    conn = await asyncpg.connect(url, timeout=scaled(10))
    try:
        await conn.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await conn.close()

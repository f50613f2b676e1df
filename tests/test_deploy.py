"""The deploy files agree with the code: fly.toml (both modes), fly.postgres.toml, the Dockerfile and its
entrypoint."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from config import Config
from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent
# A turn in flight at SIGTERM gets one more model attempt at most, then its reply is sent.
SHUTDOWN_BOUND_S = Config.model_attempt_timeout_s + 5


def fly(name: str) -> dict:
    return tomllib.loads((ROOT / name).read_text())


def dockerfile() -> list[str]:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def test_polling_fly_toml_keeps_the_database_on_the_volume_and_shuts_down_cleanly():
    config = fly("fly.toml")
    database = PurePosixPath(config["env"]["DATABASE_PATH"])
    mount = PurePosixPath(config["mounts"]["destination"])
    assert mount in database.parents
    assert config["kill_signal"] == "SIGTERM"
    assert config["kill_timeout"] > SHUTDOWN_BOUND_S
    assert "http_service" not in config and "services" not in config
    assert config["vm"][0]["memory"] == "256mb"
    assert config["build"]["dockerfile"] == "Dockerfile"


def test_polling_fly_toml_serves_the_memory_page_once_its_block_is_uncommented():
    text = (ROOT / "fly.toml").read_text()
    block = text[text.index("# [http_service]"):text.index("[[vm]]")]
    config = tomllib.loads(text.replace(block, "\n".join(line.removeprefix("#").removeprefix(" ")
                                                         for line in block.splitlines()) + "\n"))
    service = config["http_service"]
    assert service["internal_port"] == Config.port and service["force_https"] is True
    assert service["auto_stop_machines"] == "off" and service["min_machines_running"] == 1
    assert service["checks"][0]["path"] == "/healthz"
    assert "WEBAPP_URL=https://<app>.fly.dev/memory/" in text


@pytest.mark.parametrize("name", ["fly.toml", "fly.webhook.toml", "fly.postgres.toml"])
def test_each_fly_toml_has_metrics_on_a_private_port_once_uncommented(name):
    text = (ROOT / name).read_text()
    assert "metrics" not in fly(name)  # off until asked for
    block = text[text.index("# [metrics]"):]
    block = block[:block.index("\n\n")]
    config = tomllib.loads(text.replace(block, "\n".join(line.removeprefix("#").removeprefix(" ")
                                                         for line in block.splitlines())))
    assert config["metrics"] == {"port": 9091, "path": "/metrics"}
    assert config["metrics"]["port"] != Config.port  # never the published port: it has no token
    assert "METRICS_PORT=9091" in text


def test_webhook_fly_toml_serves_the_port_and_keeps_a_machine_running():
    config = fly("fly.webhook.toml")
    service = config["http_service"]
    assert service["internal_port"] == int(config["env"]["PORT"]) == Config.port
    assert service["auto_stop_machines"] == "off" and service["min_machines_running"] == 1
    assert service["checks"][0]["path"] == "/healthz"
    assert PurePosixPath(config["mounts"]["destination"]) in PurePosixPath(config["env"]["DATABASE_PATH"]).parents
    assert config["kill_timeout"] > SHUTDOWN_BOUND_S


def test_postgres_fly_toml_runs_two_webhook_machines_without_a_volume_and_deploys_one_at_a_time():
    config = fly("fly.postgres.toml")
    service = config["http_service"]
    assert service["internal_port"] == int(config["env"]["PORT"]) == Config.port
    assert service["auto_stop_machines"] == "off" and service["min_machines_running"] == 2
    assert service["checks"][0]["path"] == "/healthz"
    assert "mounts" not in config and "DATABASE_PATH" not in config["env"]  # DATABASE_URL is a secret
    assert config["deploy"]["strategy"] == "rolling"
    assert config["kill_signal"] == "SIGTERM" and config["kill_timeout"] > SHUTDOWN_BOUND_S


def test_dockerfile_slim_image_dependencies_first_no_env_file():
    lines = dockerfile()
    assert lines[0] == "FROM python:3.11-slim"
    copies = [i for i, line in enumerate(lines) if line.startswith("COPY")]
    install = next(i for i, line in enumerate(lines) if line.startswith("RUN pip install"))
    assert lines[copies[0]] == "COPY requirements.txt ." and copies[0] < install < copies[1]
    assert not any(re.match(r"COPY \. ", line) or ".env" in line for line in lines if line.startswith(("COPY", "ADD")))
    assert any("DATABASE_PATH=/data/bot.db" in line for line in lines)
    assert ".env" in (ROOT / ".dockerignore").read_text().split()


def test_the_bot_runs_as_a_non_root_user():
    lines = dockerfile()
    assert any(line.startswith("RUN useradd") and "companion" in line for line in lines)
    entrypoint = (ROOT / "docker-entrypoint.sh").read_text()
    assert 'exec setpriv --reuid=companion --regid=companion --init-groups "$@"' in entrypoint
    # setpriv keeps root's HOME, where the bot's user may not look (asyncpg reads ~/.postgresql).
    assert entrypoint.index("export HOME=/home/companion") < entrypoint.index("exec setpriv")
    assert os.access(ROOT / "docker-entrypoint.sh", os.X_OK)
    assert lines[-2] == 'ENTRYPOINT ["./docker-entrypoint.sh"]' and lines[-1] == 'CMD ["python", "bot.py"]'


def copied_sources() -> list[str]:
    """Every path the Dockerfile's COPY lines name as a source (the last word of a line is its destination)."""
    sources = []
    for line in dockerfile():
        if line.startswith("COPY ") and "--from" not in line:
            sources += line.split()[1:-1]
    return sources


def copy_image_files(folder: Path) -> None:
    """Copy exactly what the COPY lines name into `folder`, as Docker would: nothing else is there."""
    for source in copied_sources():
        origin = ROOT / source
        if origin.is_dir():
            shutil.copytree(origin, folder / source, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, folder / source)


def test_the_image_file_set_alone_starts_the_bot_far_enough_to_import_everything(tmp_path):
    copy_image_files(tmp_path)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH",)}
    env.update(TELEGRAM_BOT_TOKEN="123456:" + "A" * 35, OPENAI_API_KEY="sk-test", DATABASE_PATH=str(tmp_path / "x.db"))
    done = subprocess.run([sys.executable, "bot.py", "--check"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=scaled(120))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: settings valid,") and "modules imported" in done.stdout
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages <= {PurePosixPath(source).parts[0] for source in copied_sources()}
    assert not (tmp_path / "x.db").exists()  # a check writes nothing


def test_the_check_names_a_module_the_image_would_lack(tmp_path):
    copy_image_files(tmp_path)
    (tmp_path / "memory" / "continuity.py").unlink()
    env = dict(os.environ, TELEGRAM_BOT_TOKEN="123456:" + "A" * 35, OPENAI_API_KEY="sk-test")
    done = subprocess.run([sys.executable, "bot.py", "--check"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=scaled(120))
    assert done.returncode != 0 and "continuity" in done.stderr

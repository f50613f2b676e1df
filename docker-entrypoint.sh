#!/bin/sh
# Fly mounts volumes owned by root: give /data to the bot's user, then drop root for good.
set -e
if [ "$(id -u)" = "0" ]; then
    mkdir -p "$(dirname "${DATABASE_PATH:-/data/bot.db}")"
    chown -R companion "$(dirname "${DATABASE_PATH:-/data/bot.db}")"
    # setpriv keeps root's environment; HOME must be the bot's own (asyncpg reads ~/.postgresql).
    export HOME=/home/companion
    exec setpriv --reuid=companion --regid=companion --init-groups "$@"
fi
exec "$@"

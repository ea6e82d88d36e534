# The bot in a slim image, as a non-root user, with PostgreSQL and metrics support.
#   docker build -t ttt .
#   docker run --env-file .env -v ttt-data:/data ttt          (one process, SQLite)
# compose.yaml runs several processes on one PostgreSQL.

# Build: a wheel with ultimate tic-tac-toe's compiled search (engine/ultimate/_csearch.c).
# The slim image has no compiler, and without one the extension (optional) is skipped and
# ultimate plays with the Python search: about 50 times fewer playouts in its think time.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Python's headers too where the image lacks them (a Debian-packaged Python's are in
# python3-dev; the official image's own build has them).
RUN include="$(python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
    && headers="$([ -e "$include/Python.h" ] || echo python3-dev)" \
    && apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev $headers \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
# The wheel must hold the compiled search and the puzzle set with its daily schedule.
RUN pip wheel --no-deps --wheel-dir /wheels . \
    && python -m zipfile -l /wheels/ttt-*.whl | grep -Eq "engine/ultimate/_csearch\.[^ ]*\.so" \
    && python -m zipfile -l /wheels/ttt-*.whl | grep -q "engine/data/puzzles\.jsonl" \
    && python -m zipfile -l /wheels/ttt-*.whl | grep -q "engine/data/puzzle_schedule\.txt"

# Run: the slim image, the wheel installed with its dependencies, no compiler.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY --from=build /wheels /wheels
RUN pip install "$(ls /wheels/ttt-*.whl)[postgres,metrics]" && rm -rf /wheels \
    && useradd --create-home --uid 10001 ttt \
    && mkdir /data && chown ttt /data

USER ttt
# SQLite lives on the /data volume when TTT_DATABASE_URL is not set; the health server
# listens on every interface inside the container so Prometheus can scrape it.
ENV TTT_DATABASE=/data/ttt.sqlite3 \
    TTT_HEALTH_PORT=8080 \
    TTT_HEALTH_HOST=0.0.0.0
VOLUME /data
EXPOSE 8080

# /healthz answers from start-up (also while the bot connects); on TTT_HEALTH_PORT, so a
# container on the host's network with a port of its own is checked on that one.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('TTT_HEALTH_PORT') or '8080'; sys.exit(urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4).status != 200)"]

# SIGTERM (docker stop) lets moves in flight finish, then exits 0.
STOPSIGNAL SIGTERM
CMD ["ttt-bot"]

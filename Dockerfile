# The bot in a slim image, as a non-root user, with PostgreSQL and metrics support.
#   docker build -t ttt .
#   docker run --env-file .env -v ttt-data:/data ttt          (one process, SQLite)
# compose.yaml runs several processes on one PostgreSQL.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
RUN pip install ".[postgres,metrics]" \
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

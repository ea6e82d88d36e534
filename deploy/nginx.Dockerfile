# nginx for compose.http.yaml, with deploy/nginx.conf in it.
#   docker build -f deploy/nginx.Dockerfile -t ttt-nginx deploy
# Debian's nginx on the base the bot's image already uses (python:3.11-slim is Debian
# bookworm), not the official nginx image: a host that builds the bot pulls no other
# image, and one with Debian's mirror but no Docker Hub (see ../shared/docker-kit)
# builds it as it is. It is also the nginx tests/test_http_cluster.py runs, without Docker.
FROM python:3.11-slim

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default

# The one configuration (compose.http.yaml names the processes; nginx resolves them when
# it starts). Debian's nginx logs errors to stderr; the access log goes to /dev/stdout.
COPY nginx.conf /etc/nginx/nginx.conf

EXPOSE 8080
# SIGQUIT: nginx finishes the requests in flight, then exits (SIGTERM would drop them).
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]

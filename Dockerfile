# The bot's image: Debian 12's Python in a virtualenv with the kozel wheel (its catalogs
# compiled in) and its dependencies, run as an unprivileged user.
#
#   docker build -t kozel-bot .          (or: docker compose build; see compose.yaml)
#
# BASE is pinned by digest. CI builds this file with buildah from a base it makes out of
# Debian's packages (deploy/make-base: debootstrap --variant=minbase bookworm, trimmed like
# the slim image) passed as --build-arg BASE=..., and runs the result (deploy/image-test).
ARG BASE=debian:bookworm-20260918-slim@sha256:3783cc01769c7b2b1b83a5c5ad96c815348e28ed7da68e2e3687004faa906251

FROM ${BASE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/kozel
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md babel.cfg ./
COPY kozel_rules ./kozel_rules
COPY bot ./bot
COPY locales ./locales
# The wheel is built (setup.py compiles the catalogs into it) and installed; the tools that
# built it stay behind in this stage.
RUN /opt/kozel/bin/pip install --no-cache-dir . \
    && /opt/kozel/bin/pip uninstall --yes --no-cache-dir pip setuptools

FROM ${BASE}
# python3 for the virtualenv's interpreter; ca-certificates for TLS to a database.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
    && useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin kozel \
    && mkdir /data \
    && chown kozel:kozel /data
COPY --from=build /opt/kozel /opt/kozel

# The token comes only from the environment: docker run -e KOZEL_BOT_TOKEN=...
ENV PATH=/opt/kozel/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    KOZEL_DB=/data/kozel.sqlite3 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
VOLUME ["/data"]
WORKDIR /data
USER kozel
# The web server (webhook mode, the Mini App, GET /healthz) listens here (KOZEL_LISTEN).
EXPOSE 8080
# Asks GET /healthz when the web server runs; polling without it has no endpoint (the check
# then passes, and a crash shows as an exited container).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/opt/kozel/bin/python", "-m", "bot.healthcheck"]
ENTRYPOINT ["/opt/kozel/bin/kozel-bot"]

FROM python:3.11-slim

RUN useradd --create-home --uid 10001 kozel
WORKDIR /app
COPY pyproject.toml README.md ./
COPY kozel_rules ./kozel_rules
COPY bot ./bot
COPY locales ./locales
RUN pip install --no-cache-dir . && mkdir -p /data && chown kozel /data

# The token comes only from the environment: docker run -e KOZEL_BOT_TOKEN=...
ENV KOZEL_DB=/data/kozel.sqlite3 \
    KOZEL_LOCALES=/app/locales \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
USER kozel
# The web server (webhook mode, the Mini App, GET /healthz) listens here (KOZEL_LISTEN).
EXPOSE 8080
# Asks GET /healthz when the web server runs; polling without it has no endpoint (the check
# then passes, and a crash shows as an exited container).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]
ENTRYPOINT ["kozel-bot"]

# flavor-exporter: one image for the API and the worker.
#   docker build -t flavor-exporter .
#   docker compose up     (see docker-compose.yml)
FROM python:3.11-slim AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev git \
    && rm -rf /var/lib/apt/lists/*
# pbr takes the version from git, so the checkout comes with its .git.
COPY . /src
RUN python -m venv /venv \
    && /venv/bin/pip install --no-cache-dir /src

FROM python:3.11-slim
COPY --from=build /venv /venv
COPY etc/flavor-exporter /etc/flavor-exporter
RUN useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin \
        flavor-exporter
ENV PATH=/venv/bin:$PATH
USER flavor-exporter
EXPOSE 8780
# Mount the real flavor-exporter.conf (and clouds.yaml, if used) over
# /etc/flavor-exporter; set [api] host_ip = 0.0.0.0 with keystone auth.
CMD ["flavor-exporter-api", "--config-file", "/etc/flavor-exporter/flavor-exporter.conf"]

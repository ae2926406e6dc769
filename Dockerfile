# flavor-exporter: one image for the API and the worker.
#   docker build -t flavor-exporter .      (or podman build)
#   docker compose up -d                    (see docker-compose.yml)
# Every dependency installs from a wheel: no compiler in either stage.
FROM python:3.11-slim AS build
# pbr takes the version from git, so the checkout comes with its .git; from
# a tree without one, give it: --build-arg PBR_VERSION=1.2.3
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
# The dependencies first, in a layer of their own: a change to the code
# alone rebuilds from here on only.
COPY requirements.txt /src/requirements.txt
RUN python -m venv /venv \
    && /venv/bin/pip install --no-cache-dir -r /src/requirements.txt
ARG PBR_VERSION
COPY . /src
RUN /venv/bin/pip install --no-cache-dir --no-deps /src

FROM python:3.11-slim
COPY --from=build /venv /venv
COPY etc/flavor-exporter /etc/flavor-exporter
# A fixed uid and gid, so that configuration files on the host can be
# given to them: files mounted with mode 600 must be owned by 42480, mode
# 640 by group 42480 (README.rst, "Docker").
RUN groupadd --system --gid 42480 flavor-exporter \
    && useradd --system --uid 42480 --gid 42480 --home-dir /nonexistent \
        --shell /usr/sbin/nologin flavor-exporter
# openstacksdk looks for clouds.yaml (and secure.yaml) in the working
# directory, ~/.config/openstack and /etc/openstack; here it is beside
# flavor-exporter.conf, in the one directory an operator mounts.
ENV PATH=/venv/bin:$PATH \
    OS_CLIENT_CONFIG_FILE=/etc/flavor-exporter/clouds.yaml \
    OS_CLIENT_SECURE_FILE=/etc/flavor-exporter/secure.yaml
USER 42480:42480
EXPOSE 8780
# Mount the real flavor-exporter.conf (and clouds.yaml, if used) over
# /etc/flavor-exporter. Inside a container the API must listen on
# [api] host_ip = 0.0.0.0; publish the port on loopback only unless
# [DEFAULT] auth_strategy is keystone (the default) or http_basic
# (docker-compose.yml).
CMD ["flavor-exporter-api", "--config-file", "/etc/flavor-exporter/flavor-exporter.conf"]

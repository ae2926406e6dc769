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
# The image's own configuration: enough to run from OS_* variables alone
# (docker run --env-file); a directory mounted over /etc/flavor-exporter
# replaces it.
COPY etc/container/flavor-exporter.conf /etc/flavor-exporter/flavor-exporter.conf
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
# The API and the worker in one process, on /etc/flavor-exporter's
# flavor-exporter.conf: the image's own (etc/container/: [api] host_ip =
# 0.0.0.0, [document_cache] backend = memory), so that
#   docker run --env-file ./env.file -p 8780:8780 flavor-exporter
# serves from OS_* variables alone (the cloud's, as an openrc sets them,
# and oslo.config's OS_<GROUP>__<OPTION>: doc/source/install/migrating.rst);
# or an operator's, mounted over /etc/flavor-exporter. docker-compose.yml
# runs the worker and the API as services of their own instead.
CMD ["flavor-exporter-all", "--config-file", "/etc/flavor-exporter/flavor-exporter.conf"]

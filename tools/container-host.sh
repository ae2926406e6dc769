#!/bin/bash
# Make this machine able to build and run the project's image with podman:
# what .ci/run does before the container tests (tox -e container).
#
#  1. Installs podman (with runc) when it is missing.
#  2. On a machine without a podman configuration of its own, writes one
#     that works in an unprivileged sandbox such as CI's: vfs storage
#     (overlay needs a kernel and mounts a sandbox may not give), runc,
#     cgroupfs, no default ulimits. A configuration someone else wrote is
#     left alone.
#  3. Makes sure the base images the Dockerfile and docker-compose.yml
#     name are there: pulled from their registry when it answers, otherwise
#     built as stand-ins from Debian bookworm packages (debootstrap, from
#     the Debian mirror apt already uses). A stand-in is not the official
#     image (its Python is Debian's, in /usr/bin), but what builds and runs
#     on it builds and runs on the real one. It carries this machine's CA
#     bundle and a pip.conf naming it, so that pip in a build trusts the
#     same TLS proxy, if any, this machine's own pip trusts.
#
# Run as root. Idempotent: images already there are kept
# (CONTAINER_HOST_REBUILD=1 builds the stand-ins again). A developer whose
# podman or docker already pulls images needs none of this.
set -euo pipefail

# What the Dockerfile (FROM) and docker-compose.yml (image:) name; the
# unit test test_container_files checks that the lists agree.
PYTHON_IMAGE=docker.io/library/python:3.11-slim
MEMCACHED_IMAGE=docker.io/library/memcached:1.6
# Generous for a registry that answers; what a pull takes to fail when
# none does is what bounds this.
PULL_TIMEOUT=${CONTAINER_HOST_PULL_TIMEOUT:-60}

say() { echo "container-host: $*" >&2; }

[ "$(id -u)" = 0 ] || { say "run me as root"; exit 1; }

need=()
for command in podman runc; do
    command -v "$command" >/dev/null || need+=("$command")
done
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" \
        >/dev/null
fi

MARK='# written by flavor-exporter tools/container-host.sh'
ours() { [ ! -e "$1" ] || head -n 1 "$1" | grep -qxF "$MARK"; }
mkdir -p /etc/containers
if ours /etc/containers/containers.conf; then
    cat >/etc/containers/containers.conf <<CONF
$MARK
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
fi
if ours /etc/containers/storage.conf; then
    cat >/etc/containers/storage.conf <<CONF
$MARK
[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
CONF
fi

present() {
    podman image exists "$1" && [ -z "${CONTAINER_HOST_REBUILD:-}" ]
}

pulled() {
    timeout "$PULL_TIMEOUT" podman pull -q "$1" >/dev/null 2>&1
}

missing=()
for image in "$PYTHON_IMAGE" "$MEMCACHED_IMAGE"; do
    if present "$image"; then
        continue
    fi
    if [ -z "${CONTAINER_HOST_REBUILD:-}" ] && pulled "$image"; then
        say "pulled $image"
    else
        missing+=("$image")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    say "ready"
    exit 0
fi

say "no registry answers; building stand-ins for ${missing[*]}"
command -v debootstrap >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap \
        >/dev/null
}
mirror=${CONTAINER_HOST_MIRROR:-$(sed -n 's/^URIs: *//p' \
    /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security \
    | head -n 1)}
if [ -z "$mirror" ]; then
    mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list \
        2>/dev/null || true)
fi
[ -n "$mirror" ] || {
    say "no Debian mirror in apt's sources; set CONTAINER_HOST_MIRROR"
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "debootstrap bookworm from $mirror"
DEBIAN_FRONTEND=noninteractive debootstrap --variant=minbase bookworm \
    "$work/base" "$mirror" \
    >"$work/debootstrap.log" 2>&1 || {
    tail -n 5 "$work/debootstrap.log" >&2
    exit 1
}

# $1: image name; $2: Debian packages to add; the rest: podman import
# --change instructions.
standin() {
    local image=$1 packages=$2 root="$work/rootfs"
    shift 2
    rm -rf "$root"
    cp -a "$work/base" "$root"
    chroot "$root" /bin/sh -c \
        "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages" \
        >"$work/apt.log" 2>&1 || {
        tail -n 5 "$work/apt.log" >&2
        exit 1
    }
    # After the packages: installing ca-certificates rewrites the bundle.
    mkdir -p "$root/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' \
        >"$root/etc/pip.conf"
    chroot "$root" /bin/sh -c 'apt-get clean; rm -rf /var/lib/apt/lists/*'
    local changes=()
    for change in "$@"; do
        changes+=(--change "$change")
    done
    tar -C "$root" -c . | podman import -q "${changes[@]}" - "$image" \
        >/dev/null
    rm -rf "$root"
    say "built stand-in $image"
}

for image in "${missing[@]}"; do
    case $image in
        "$PYTHON_IMAGE")
            # python and pip on PATH, and the official image's environment;
            # Debian's pip refuses system-wide installs without the flag.
            standin "$image" \
                'python3 python3-venv python3-pip python-is-python3 ca-certificates' \
                'ENV PIP_BREAK_SYSTEM_PACKAGES=1' 'ENV LANG=C.UTF-8' \
                'CMD ["python3"]'
            ;;
        "$MEMCACHED_IMAGE")
            # The official entrypoint runs memcached with the arguments
            # given, as this one does.
            standin "$image" memcached 'USER memcache' \
                'ENTRYPOINT ["memcached"]' 'EXPOSE 11211'
            ;;
    esac
done
say "ready"

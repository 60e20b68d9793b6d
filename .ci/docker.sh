#!/usr/bin/env bash
# Start a local Docker engine for the docker-sandbox tests and build the skeleton base image.
#
# Installs Debian's docker.io when dockerd is missing, starts dockerd in the background with
# --iptables=false --bridge=none (containers use network_mode=none), waits for it, and imports
# `harnessx/base:local`: a skeleton root (empty mount points, /bin -> usr/bin links) labelled
# harnessx.host-mounts=1, into which the sandbox mounts the host's system directories read-only.
# No registry is needed. Stop the engine with: kill "$(cat "$HARNESSX_DOCKER_STATE/dockerd.pid")"
set -euo pipefail

STATE=${HARNESSX_DOCKER_STATE:-/tmp/harnessx-docker}
IMAGE=${HARNESSX_DOCKER_IMAGE:-harnessx/base:local}
mkdir -p "$STATE"

if ! command -v dockerd >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  nohup dockerd --iptables=false --bridge=none --pidfile "$STATE/dockerd.pid" >"$STATE/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    echo "dockerd did not start; last log lines:" >&2
    tail -20 "$STATE/dockerd.log" >&2
    exit 1
  fi
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  root=$(mktemp -d)
  mkdir -p "$root"/{app,tests,data,logs,tmp,root,proc,dev,sys,etc,usr,opt,run,var/lib/dpkg}
  for top in bin sbin lib lib32 lib64 libx32; do
    if [ -L "/$top" ]; then ln -s "$(readlink "/$top")" "$root/$top"; fi
  done
  tar -C "$root" -c . | docker import --change 'LABEL harnessx.host-mounts=1' - "$IMAGE" >/dev/null
  rm -rf "$root"
fi

echo "docker engine ready; image $IMAGE built locally"
if [ -f "$STATE/dockerd.pid" ]; then
  echo "stop it with: kill \"\$(cat $STATE/dockerd.pid)\""
fi

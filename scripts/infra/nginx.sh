#!/usr/bin/env bash
# nginx from Debian's nginx package: the edge of the distributed mode (k8s/base/edge/memstream.conf).
# Only installed here, never started: each test starts its own (harness/edge.ts), pointed at its own
# processes' ports, so there is no shared edge to keep running.
# usage: nginx.sh install
source "$(dirname "$0")/common.sh"

install() {
  # Debian puts it in /usr/sbin, which an unprivileged user's PATH often lacks.
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] && return 0
  [ "$(id -u)" = 0 ] || { log "nginx is missing: run 'apt-get install nginx' as root"; exit 1; }
  log "installing nginx from Debian"
  (apt-get install -y -qq nginx >/dev/null 2>&1) || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
}

case "${1:-}" in install) install ;; *) echo "usage: $0 install" >&2; exit 2 ;; esac

#!/usr/bin/env bash
# Prints the path of a Prometheus server binary for the real-Prometheus test
# (test/observability/prometheus-server.test.ts), getting one when there is none: the
# system's prometheus if installed, else Debian's package unpacked into a cache folder
# (RATELAB_PROMETHEUS_DIR, default .cache/prometheus, git-ignored) with `apt-get download` and
# `dpkg -x`. Nothing is installed and no service is configured. Called by .ci/run before the
# tests; the test itself only looks (a missing binary fails it, saying to run this script).
# Diagnostics go to stderr; the only line on stdout is the path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RATELAB_PROMETHEUS_DIR:-$root/.cache/prometheus}

say() { printf 'fetch-prometheus: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if [ -x "$cache/prometheus" ]; then
  echo "$cache/prometheus"
  exit 0
fi
installed=$(command -v prometheus || true)
if [ -n "$installed" ] && [ -x "$installed" ]; then
  echo "$installed"
  exit 0
fi

command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 \
  || die "prometheus is not installed and apt-get/dpkg are not here to unpack Debian's package"

# apt-get download PKG into the current folder; once with fresh package lists if it fails (as root).
download() {
  apt-get download -qq "$1" >&2 && return 0
  [ "$(id -u)" -eq 0 ] || return 1
  say "apt-get download $1 failed; updating the package lists once"
  apt-get update -qq >&2 && apt-get download -qq "$1" >&2
}

mkdir -p "$(dirname "$cache")"
work=$(mktemp -d "$(dirname "$cache")/.ratelab-prometheus.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Readable by others: apt's sandbox user downloads into it.
chmod 755 "$work"
cd "$work"

download prometheus || die "could not download Debian's prometheus package"
dpkg -x "$(ls -t prometheus_*.deb | head -n 1)" root
[ -x root/usr/bin/prometheus ] || die "Debian's prometheus package holds no usr/bin/prometheus"
# The server is one Go binary needing only libc: kept alone, the package's web assets aside.
mv root/usr/bin/prometheus prometheus
rm -rf root ./*.deb
./prometheus --version 2>&1 | grep -q '^prometheus, version' || die "the unpacked prometheus does not run: $(./prometheus --version 2>&1 | tr '\n' ' ')"

# Another run may have finished first: then its copy stands and this one is dropped.
mv -T "$work" "$cache" 2>/dev/null || [ -x "$cache/prometheus" ] || die "could not move the unpacked prometheus to $cache"
trap - EXIT
rm -rf "$work"
say "prometheus unpacked into $cache"
echo "$cache/prometheus"

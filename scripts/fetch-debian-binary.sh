#!/usr/bin/env bash
# Prints the path of a server binary the tests run as a fixture, getting one when there is none:
#   nginx       the audit tests' nginx (test/audit/fixtures/nginx.ts, which calls this script itself)
#   prometheus  the real-Prometheus test (test/observability/prometheus-server.test.ts, which only looks)
# An unpacked copy in the cache folder (RATELAB_NGINX_DIR, default node_modules/.cache/ratelab-nginx;
# RATELAB_PROMETHEUS_DIR, default .cache/prometheus; both git-ignored), else the system's, else
# Debian's package unpacked into the cache with `apt-get download` and `dpkg -x`, plus any shared
# library it needs that the system lacks. Nothing is installed and no service is configured.
# .ci/run calls it for both before the tests. Diagnostics go to stderr; the only line on stdout is
# the path.
#
#   bash scripts/fetch-debian-binary.sh nginx|prometheus
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}

say() { printf 'fetch-debian-binary %s: %s\n' "$name" "$*" >&2; }
die() { say "$*"; exit 1; }

# Per binary: its cache, the packages that may hold it (first that does wins: which package holds
# /usr/sbin/nginx moved between releases), its path inside them, how it prints its version, and
# whether it needs the shared libraries its package depends on (nginx) or is one static binary
# kept alone, its package's web assets and their libjs-* dependencies aside (prometheus).
case "$name" in
  nginx)
    cache=${RATELAB_NGINX_DIR:-$root/node_modules/.cache/ratelab-nginx}
    packages="nginx nginx-core"
    inside=usr/sbin/nginx
    installed="$(command -v nginx || true) /usr/sbin/nginx"
    version_flag=-v
    version_line='nginx version'
    libraries=yes
    ;;
  prometheus)
    cache=${RATELAB_PROMETHEUS_DIR:-$root/.cache/prometheus}
    packages=prometheus
    inside=usr/bin/prometheus
    installed="$(command -v prometheus || true)"
    version_flag=--version
    version_line='^prometheus, version'
    libraries=no
    ;;
  *) die "expected nginx or prometheus, got '${name}'" ;;
esac

for candidate in "$cache/$name" $installed; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "$candidate"
    exit 0
  fi
done

command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 \
  || die "$name is not installed and apt-get/dpkg are not here to unpack Debian's package"

# apt-get download PKG into the current folder; once with fresh package lists if it fails (as root).
download() {
  apt-get download -qq "$1" >&2 && return 0
  [ "$(id -u)" -eq 0 ] || return 1
  say "apt-get download $1 failed; updating the package lists once"
  apt-get update -qq >&2 && apt-get download -qq "$1" >&2
}

installed_package() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

mkdir -p "$(dirname "$cache")"
work=$(mktemp -d "$(dirname "$cache")/.ratelab-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Readable by others: apt's sandbox user downloads into it, and tests may run as another user.
chmod 755 "$work"
cd "$work"

deb=""
for package in $packages; do
  download "$package" || continue
  candidate=$(ls -t "$package"_*.deb | head -n 1)
  dpkg -x "$candidate" root
  if [ -x "root/$inside" ]; then
    deb=$candidate
    break
  fi
done
[ -n "$deb" ] || die "no Debian package here holds /$inside (tried $packages)"

if [ "$libraries" = yes ]; then
  # The shared libraries its package depends on, fetched beside it when the system lacks them.
  for dependency in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | awk '{ print $1 }' | grep -E '^(lib|zlib)'); do
    installed_package "$dependency" && continue
    say "unpacking $dependency (not installed)"
    download "$dependency" || die "could not download $dependency, which $name needs"
    dpkg -x "$(ls -t "$dependency"_*.deb | head -n 1)" root
  done
else
  mv "root/$inside" binary
  rm -rf root
  mkdir -p "root/$(dirname "$inside")"
  mv binary "root/$inside"
fi

# Runs the unpacked binary with the unpacked libraries (if any) on the library path; `exec` keeps
# the pid, so a fixture's signals reach the server itself.
cat >"$name" <<WRAPPER
#!/bin/sh
here=\$(cd "\$(dirname "\$0")" && pwd)
libraries=""
for dir in "\$here"/root/lib/*-linux-gnu "\$here"/root/usr/lib/*-linux-gnu; do
  [ -d "\$dir" ] && libraries="\$libraries\${libraries:+:}\$dir"
done
if [ -n "\$libraries" ]; then
  LD_LIBRARY_PATH="\$libraries\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
exec "\$here/root/$inside" "\$@"
WRAPPER
chmod +x "$name"
rm -f ./*.deb
# Running it is the check that the loader finds every shared library (ldd's "not found").
"./$name" "$version_flag" 2>&1 | grep -q "$version_line" \
  || die "the unpacked $name does not run: $("./$name" "$version_flag" 2>&1 | tr '\n' ' ')"

# Another run may have finished first: then its copy stands and this one is dropped.
mv -T "$work" "$cache" 2>/dev/null || [ -x "$cache/$name" ] || die "could not move the unpacked $name to $cache"
trap - EXIT
rm -rf "$work"
say "unpacked into $cache"
echo "$cache/$name"

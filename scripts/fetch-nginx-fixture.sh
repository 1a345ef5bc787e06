#!/usr/bin/env bash
# Prints the path of an nginx binary for the audit tests' nginx fixture (test/audit/fixtures/nginx.ts),
# getting one when there is none: the system's nginx if installed, else Debian's package unpacked
# into a cache folder (RATELAB_NGINX_DIR, default node_modules/.cache/ratelab-nginx) with
# `apt-get download` and `dpkg -x`, plus any shared library it needs that the system lacks. Nothing
# is installed and no service is configured. Called by the fixture and by .ci/run before the tests.
# Diagnostics go to stderr; the only line on stdout is the path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RATELAB_NGINX_DIR:-$root/node_modules/.cache/ratelab-nginx}

say() { printf 'fetch-nginx-fixture: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for installed in "$(command -v nginx || true)" /usr/sbin/nginx; do
  if [ -n "$installed" ] && [ -x "$installed" ]; then
    echo "$installed"
    exit 0
  fi
done
if [ -x "$cache/nginx" ]; then
  echo "$cache/nginx"
  exit 0
fi

command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 \
  || die "nginx is not installed and apt-get/dpkg are not here to unpack Debian's package"

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
work=$(mktemp -d "$(dirname "$cache")/.ratelab-nginx.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Readable by others: apt's sandbox user downloads into it, and tests may run as another user.
chmod 755 "$work"
cd "$work"

# Which package holds /usr/sbin/nginx moved between releases (nginx since Debian 12, nginx-core before).
deb=""
for package in nginx nginx-core; do
  download "$package" || continue
  candidate=$(ls -t "$package"_*.deb | head -n 1)
  dpkg -x "$candidate" root
  if [ -x root/usr/sbin/nginx ]; then
    deb=$candidate
    break
  fi
done
[ -n "$deb" ] || die "no Debian package here holds /usr/sbin/nginx (tried nginx, nginx-core)"

# The shared libraries its package depends on, fetched beside it when the system lacks them.
for dependency in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | awk '{ print $1 }' | grep -E '^(lib|zlib)'); do
  installed_package "$dependency" && continue
  say "unpacking $dependency (not installed)"
  download "$dependency" || die "could not download $dependency, which nginx needs"
  dpkg -x "$(ls -t "$dependency"_*.deb | head -n 1)" root
done

# Runs the unpacked binary with the unpacked libraries (if any) on the library path; `exec` keeps
# the pid, so the fixture's signals reach nginx itself.
cat >nginx <<'WRAPPER'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
libraries=""
for dir in "$here"/root/lib/*-linux-gnu "$here"/root/usr/lib/*-linux-gnu; do
  [ -d "$dir" ] && libraries="$libraries${libraries:+:}$dir"
done
if [ -n "$libraries" ]; then
  LD_LIBRARY_PATH="$libraries${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
exec "$here/root/usr/sbin/nginx" "$@"
WRAPPER
chmod +x nginx
rm -f ./*.deb
# Running it is the check that the loader finds every shared library (ldd's "not found").
./nginx -v 2>&1 | grep -q 'nginx version' || die "the unpacked nginx does not run: $(./nginx -v 2>&1 | tr '\n' ' ')"

# Another run may have finished first: then its copy stands and this one is dropped.
mv -T "$work" "$cache" 2>/dev/null || [ -x "$cache/nginx" ] || die "could not move the unpacked nginx to $cache"
trap - EXIT
rm -rf "$work"
say "nginx unpacked into $cache"
echo "$cache/nginx"

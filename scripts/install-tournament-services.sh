#!/bin/sh
# Install Debian's Redis and PostgreSQL for tournament mode (docs/tournament.md). Nothing is
# started or enabled as a system service: scripts/tournament-services.sh runs private copies.
set -eu
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if command -v redis-server >/dev/null 2>&1 && [ -n "$(pg_bin)" ]; then
    redis-server --version
    "$(pg_bin)/postgres" --version
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
# Another apt run (a browser being installed, say) holds the lock: wait for it, up to 10 min.
tries=0
while pgrep -x apt-get >/dev/null 2>&1 || pgrep -x apt >/dev/null 2>&1 || pgrep -x dpkg >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -gt 120 ]; then
        echo "install-tournament-services: apt is still busy after 10 minutes" >&2
        exit 1
    fi
    sleep 5
done
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    redis-server postgresql
redis-server --version
"$(pg_bin)/postgres" --version

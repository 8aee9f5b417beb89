#!/bin/sh
# Private Redis and PostgreSQL on loopback, in a folder of their own (no system service).
#
#   scripts/tournament-services.sh start DIR     start both; DIR/env holds their URLs
#   scripts/tournament-services.sh stop DIR      stop both
#   scripts/tournament-services.sh run -- CMD    a temporary DIR: start, run CMD with
#                                                DOMINOCAM_REDIS_URL and DOMINOCAM_DATABASE_URL
#                                                set, stop (also when CMD fails); CMD's status
#
# PostgreSQL refuses to run as root: as root, its files belong to the `postgres` user (made by
# Debian's package) and it runs as that user. Ports are free ones chosen at start unless
# DOMINOCAM_REDIS_PORT / DOMINOCAM_PG_PORT say otherwise.
set -eu

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$PG_BIN" ] || ! command -v redis-server >/dev/null 2>&1; then
    echo "tournament-services: redis-server or postgresql is not installed;" \
        "run scripts/install-tournament-services.sh" >&2
    exit 2
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

as_pg() {
    if [ "$(id -u)" = "0" ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    dir=$1
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    redis_port=${DOMINOCAM_REDIS_PORT:-$(free_port)}
    pg_port=${DOMINOCAM_PG_PORT:-$(free_port)}
    mkdir -p "$dir/redis" "$dir/pg"
    redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
        --dir "$dir/redis" --daemonize yes --pidfile "$dir/redis/redis.pid" \
        --logfile "$dir/redis/redis.log"
    if [ "$(id -u)" = "0" ]; then
        chown postgres "$dir/pg"
        chmod 0700 "$dir/pg"
    fi
    if [ ! -f "$dir/pg/data/PG_VERSION" ]; then
        as_pg "$PG_BIN/initdb" -D "$dir/pg/data" -U dominocam --auth=trust -E UTF8 \
            --no-locale >"$dir/pg/initdb.log" 2>&1 || {
            cat "$dir/pg/initdb.log" >&2
            exit 1
        }
    fi
    # fsync off: a test or demo database; a real event runs its own PostgreSQL (docs).
    as_pg "$PG_BIN/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w -t 60 start \
        -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir/pg -c fsync=off -c max_connections=200" \
        >/dev/null
    as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$pg_port" -U dominocam dominocam 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
        sleep 0.2
    done
    cat >"$dir/env" <<ENV
DOMINOCAM_REDIS_URL=redis://127.0.0.1:$redis_port/0
DOMINOCAM_DATABASE_URL=postgresql://dominocam@127.0.0.1:$pg_port/dominocam
ENV
    echo "tournament-services: Redis on 127.0.0.1:$redis_port, PostgreSQL on 127.0.0.1:$pg_port ($dir)"
}

stop() {
    dir=$(cd "$1" && pwd)
    if [ -f "$dir/redis/redis.pid" ]; then
        kill "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true
        rm -f "$dir/redis/redis.pid"
    fi
    if [ -f "$dir/pg/data/postmaster.pid" ]; then
        as_pg "$PG_BIN/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    echo "tournament-services: stopped ($dir)"
}

case "${1:-}" in
start) start "${2:?start DIR}" ;;
stop) stop "${2:?stop DIR}" ;;
run)
    shift
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || { echo "usage: $0 run -- CMD ..." >&2; exit 2; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/dominocam-services.XXXXXX")
    chmod 0755 "$dir"
    trap 'stop "$dir"; rm -rf "$dir"' EXIT
    trap 'exit 130' INT TERM
    start "$dir"
    set -a
    . "$dir/env"
    set +a
    status=0
    "$@" || status=$?
    exit "$status"
    ;;
*)
    echo "usage: $0 start DIR | stop DIR | run -- CMD ..." >&2
    exit 2
    ;;
esac

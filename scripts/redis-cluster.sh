#!/usr/bin/env bash
# A real Redis Cluster on this machine, for CI and the failover test: 6 `redis-server` processes on free ports
# of 127.0.0.1 (3 masters with a replica each, made by `redis-cli --cluster create`), no persistence, a short
# cluster-node-timeout so a failed master's replica takes over within seconds. Everything lives in one
# temporary directory (each node's redis.conf, nodes.conf, pid file and log), removed by `stop`.
#
# Usage: eval "$(scripts/redis-cluster.sh start)"   # sets REDIS_CLUSTER_NODES and REDIS_CLUSTER_DIR
#        scripts/redis-cluster.sh stop "$REDIS_CLUSTER_DIR"
# REDIS_CLUSTER_NODE_TIMEOUT_MS overrides the node timeout (1000 ms).
set -euo pipefail

NODES=6

free_ports() { # free_ports <count>: distinct free TCP ports of 127.0.0.1, one a line
  node -e '
    const net = require("net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", r)))).then(() => {
      console.log(servers.map((s) => s.address().port).join("\n"));
      servers.forEach((s) => s.close());
    });
  ' "$1"
}

stop() {
  local dir="${1:?usage: redis-cluster.sh stop <dir>}"
  [ -d "$dir" ] || return 0
  local pidfile pid
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill -9 "$pid" 2>/dev/null || true
  done
  # SIGKILL is immediate but asynchronous: wait for the ports to be given back before the directory goes.
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$dir"
}

start() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    { echo "redis-cluster: needs redis-server and redis-cli" >&2; exit 1; }
  local dir ports seeds="" i port bus
  dir="$(mktemp -d "${TMPDIR:-/tmp}/redis-cluster.XXXXXX")"
  trap 'stop "$dir"' ERR
  # Each node takes a client port and a cluster-bus port (not client port + 10000: it may not exist).
  mapfile -t ports < <(free_ports $((NODES * 2)))
  for i in $(seq 0 $((NODES - 1))); do
    port="${ports[$i]}"
    bus="${ports[$((NODES + i))]}"
    mkdir "$dir/$port"
    cat >"$dir/$port/redis.conf" <<CONF
port $port
cluster-port $bus
bind 127.0.0.1
cluster-enabled yes
cluster-config-file $dir/$port/nodes.conf
cluster-node-timeout ${REDIS_CLUSTER_NODE_TIMEOUT_MS:-1000}
dir $dir/$port
save ""
appendonly no
# A replica's first sync starts at once (not after the default 5 s wait for more replicas).
repl-diskless-sync-delay 0
daemonize yes
pidfile $dir/$port/redis.pid
logfile $dir/$port/redis.log
CONF
    redis-server "$dir/$port/redis.conf"
    seeds="$seeds${seeds:+ }127.0.0.1:$port"
  done
  for port in "${ports[@]:0:$NODES}"; do
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  done
  # shellcheck disable=SC2086 # one argument per node
  redis-cli --cluster create $seeds --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 ||
    { cat "$dir/create.log" >&2; exit 1; }
  # Ready when every node sees every slot served and every replica has synced with its master (`create`
  # returns before): a replica that never synced refuses to take over (cluster-replica-validity-factor).
  for port in "${ports[@]:0:$NODES}"; do
    for _ in $(seq 1 300); do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' &&
        ! redis-cli -p "$port" info replication 2>/dev/null | grep -q '^master_link_status:down' && break
      sleep 0.1
    done
    redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' ||
      { echo "redis-cluster: node $port never saw the cluster ok" >&2; exit 1; }
    ! redis-cli -p "$port" info replication | grep -q '^master_link_status:down' ||
      { echo "redis-cluster: replica $port never synced with its master" >&2; exit 1; }
  done
  trap - ERR
  echo "REDIS_CLUSTER_NODES=${seeds// /,}"
  echo "REDIS_CLUSTER_DIR=$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-${REDIS_CLUSTER_DIR:-}}" ;;
  *) echo "usage: $0 start | stop <dir>" >&2; exit 2 ;;
esac

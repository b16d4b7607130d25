#!/usr/bin/env bash
# Start, stop or query a real, local Elasticsearch or OpenSearch for tests and development.
#
#   scripts/search-engine.sh start|stop|status elasticsearch|opensearch
#
#   ES_URL=$(scripts/search-engine.sh start elasticsearch)   # -> http://127.0.0.1:9200
#
# `start` prints exactly one line on stdout, the engine's URL; everything else goes to stderr.
# Recipe and background: docs in /work/shared/guides/services.md ("Elasticsearch", "OpenSearch").
#
# - The distribution is Maven Central's integ-test zip (no Debian/npm package ships a server),
#   downloaded once with mvn into ${SEARCHDESK_CACHE:-$HOME/.cache/searchdesk}, outside the clone.
# - Each start unpacks it into a fresh directory under
#   ${SEARCHDESK_ENGINE_DIR:-/tmp/searchdesk-engines}/<engine>/ and runs it as the unprivileged
#   system user `esrunner` (both engines refuse to run as root), daemonized with a pidfile.
#
# Environment:
#   ES_PORT (9200) / OS_PORT (9201)  HTTP port; the transport port is HTTP port + 100
#   SEARCHDESK_CACHE                 download cache (default $HOME/.cache/searchdesk)
#   SEARCHDESK_ENGINE_DIR            runtime directory (default /tmp/searchdesk-engines)
#   SEARCHDESK_JAVA_HOME             JDK to run the engine with (default: Temurin 25 if installed,
#                                    else the system default JDK if new enough)
#   SEARCHDESK_ENGINE_TIMEOUT        seconds to wait for yellow health (default 120)
#   SEARCHDESK_ENGINE_HEAP           JVM heap (default 512m)
#
# Must run as root for start/stop (it creates the user and starts the process through runuser).
set -euo pipefail

# Everything on stdout goes to stderr, except what is written to fd 3 (the URL for `start`,
# running/stopped for `status`).
exec 3>&1 1>&2

readonly ES_VERSION=8.19.21
readonly OS_VERSION=3.6.0
readonly RUN_USER=esrunner
readonly DEP_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy

log() { printf 'search-engine: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}
usage() {
  echo "usage: $0 start|stop|status elasticsearch|opensearch" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
action=$1
engine=$2

case "$engine" in
  elasticsearch | es)
    engine=elasticsearch
    version=$ES_VERSION
    artifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
    port=${ES_PORT:-9200}
    port_var=ES_PORT
    min_java=17
    main_class=org.elasticsearch.bootstrap.Elasticsearch
    ;;
  opensearch | os)
    engine=opensearch
    version=$OS_VERSION
    artifact="org.opensearch.distribution.integ-test-zip:opensearch:${OS_VERSION}:zip"
    port=${OS_PORT:-9201}
    port_var=OS_PORT
    min_java=21 # OpenSearch 3.x needs Java 21+
    main_class=org.opensearch.bootstrap.OpenSearch
    ;;
  *) usage ;;
esac
case "$action" in start | stop | status) ;; *) usage ;; esac
[[ "$port" =~ ^[0-9]+$ ]] || die "port must be a number, got '$port'"

cache_dir=${SEARCHDESK_CACHE:-$HOME/.cache/searchdesk}
engine_root=${SEARCHDESK_ENGINE_DIR:-/tmp/searchdesk-engines}/$engine
zip_path=$cache_dir/$engine-$version.zip
url="http://127.0.0.1:$port"
current_link=$engine_root/current-$port # -> the run directory of the engine on this port
timeout=${SEARCHDESK_ENGINE_TIMEOUT:-120}
heap=${SEARCHDESK_ENGINE_HEAP:-512m}

# HTTP status of the yellow-health probe ("000" when nothing answers).
health_code() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    "$url/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null || true
}
healthy() { [[ "$(health_code)" == 200 ]]; }

# The pid of the engine process we started on this port, if it is still alive.
live_pid() {
  local run pid
  run=$(readlink -f "$current_link" 2>/dev/null) || return 1
  [[ -f "$run/engine.pid" ]] || return 1
  pid=$(tr -dc 0-9 <"$run/engine.pid")
  [[ -n "$pid" ]] || return 1
  # Guard against a recycled pid: it must be this engine's JVM.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$main_class" || return 1
  echo "$pid"
}

require_root() {
  [[ $EUID -eq 0 ]] || die "'$action' must run as root (it starts the engine as user $RUN_USER via runuser)"
}

java_major() { # $1 = JAVA_HOME
  local v
  v=$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)
  v=${v#1.}
  echo "${v%%[.+-]*}"
}

pick_java_home() {
  local c major candidates=()
  if [[ -n "${SEARCHDESK_JAVA_HOME:-}" ]]; then
    [[ -x "$SEARCHDESK_JAVA_HOME/bin/java" ]] || die "SEARCHDESK_JAVA_HOME=$SEARCHDESK_JAVA_HOME has no bin/java"
    echo "$SEARCHDESK_JAVA_HOME"
    return
  fi
  candidates+=(/usr/lib/jvm/temurin-25-jdk-amd64)
  if command -v java >/dev/null; then
    c=$(readlink -f "$(command -v java)")
    candidates+=("${c%/bin/java}")
  fi
  candidates+=(/usr/lib/jvm/*)
  for c in "${candidates[@]}"; do
    [[ -x "$c/bin/java" ]] || continue
    major=$(java_major "$c")
    if [[ "$major" =~ ^[0-9]+$ ]] && ((major >= min_java)); then
      echo "$c"
      return
    fi
  done
  die "no JDK >= $min_java found for $engine (looked at ${candidates[*]}); set SEARCHDESK_JAVA_HOME"
}

download() {
  mkdir -p "$cache_dir"
  if [[ -s "$zip_path" ]]; then
    log "using cached $zip_path"
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven) — needed to fetch $artifact"
  local tmp t0=$SECONDS
  tmp=$(mktemp -d "$cache_dir/.download.XXXXXX")
  log "downloading $artifact from Maven Central into $cache_dir"
  # Run in the temp dir so mvn never sees (or writes next to) a project pom.
  # (Debian's Maven 3.8 prints stray ANSI resets even with -B; strip them.)
  if ! (cd "$tmp" && mvn -B -q "$DEP_PLUGIN" -Dartifact="$artifact" -DoutputDirectory="$tmp" </dev/null 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g' >&2); then
    rm -rf "$tmp"
    die "mvn could not fetch $artifact"
  fi
  local got
  got=$(find "$tmp" -maxdepth 1 -name '*.zip' | head -n1)
  [[ -n "$got" ]] || {
    rm -rf "$tmp"
    die "mvn finished but no zip in $tmp"
  }
  mv -f "$got" "$zip_path" # atomic within the cache dir: no half-written zip is ever "cached"
  rm -rf "$tmp"
  log "downloaded $(du -h "$zip_path" | cut -f1) in $((SECONDS - t0))s"
}

ensure_user() {
  id -u "$RUN_USER" >/dev/null 2>&1 && return
  log "creating system user $RUN_USER"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER" ||
    id -u "$RUN_USER" >/dev/null 2>&1 || die "useradd $RUN_USER failed"
}

log_tail() { # $1 = run dir
  local f
  for f in "$1/launcher.out" "$1/logs/$engine.log"; do
    [[ -s "$f" ]] || continue
    echo "----- tail of $f -----" >&2
    tail -n 60 "$f" >&2
  done
}

# Kill the engine on this port (if we started it) and wait for it to exit. Idempotent.
do_stop() {
  local pid run waited=0
  run=$(readlink -f "$current_link" 2>/dev/null || true)
  if pid=$(live_pid); then
    log "stopping $engine (pid $pid, port $port)"
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
      if ((waited >= 60)); then
        log "$engine did not exit after 60s, sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
      fi
      sleep 1
      waited=$((waited + 1))
    done
    log "stopped $engine after ${waited}s"
  else
    if healthy; then
      log "something answers on $url but it was not started by this script (no live pidfile); leaving it alone"
    else
      log "$engine is not running on port $port"
    fi
  fi
  # Keep the last run's logs for post-mortems; drop the unpacked distribution and data.
  if [[ -n "$run" && -d "$run" ]]; then
    rm -rf "$engine_root/last-logs-$port"
    [[ -d "$run/logs" ]] && mv "$run/logs" "$engine_root/last-logs-$port"
    rm -rf "$run"
  fi
  rm -f "$current_link"
}

wait_healthy() { # $1 = run dir
  local deadline=$((SECONDS + timeout)) code pid
  while ((SECONDS < deadline)); do
    code=$(health_code)
    [[ "$code" == 200 ]] && return 0
    # OpenSearch's launcher can return before the pidfile exists: allow a few seconds for it.
    if ! pid=$(live_pid) && [[ -s "$1/engine.pid" || $((SECONDS - deadline + timeout)) -gt 15 ]]; then
      log "$engine exited before becoming healthy (no live process for $1/engine.pid)"
      return 1
    fi
    sleep 1
  done
  log "$engine not healthy on $url after ${timeout}s (last HTTP status: $code)"
  return 1
}

do_start() {
  local t0=$SECONDS pid
  if healthy; then
    log "$engine already answering on $url; reusing it"
    echo "$url" >&3
    return
  fi
  mkdir -p "$engine_root"
  # One start per engine+port at a time (parallel CI steps, double invocations).
  exec 9>"$engine_root/.lock-$port"
  flock 9
  if healthy; then
    log "$engine became healthy on $url while waiting for the lock; reusing it"
    echo "$url" >&3
    return
  fi
  if pid=$(live_pid); then
    log "$engine (pid $pid) is already starting on port $port; waiting for it"
    if wait_healthy "$(readlink -f "$current_link")"; then
      echo "$url" >&3
      return
    fi
    log_tail "$(readlink -f "$current_link")"
    exit 1
  fi
  # Something else on the HTTP port that is not a healthy engine: fail early and clearly.
  if (exec 2>/dev/null; : </dev/tcp/127.0.0.1/"$port"); then
    die "port $port is in use by something that is not a healthy $engine (choose another with $port_var=...)"
  fi
  do_stop 2>/dev/null || true # clean up the leftovers of a previous, dead run on this port

  download
  ensure_user
  local java_home run dist
  java_home=$(pick_java_home)
  run=$(mktemp -d "$engine_root/run-$port-$(date +%Y%m%d-%H%M%S)-XXXXXX")
  log "unpacking $engine $version into $run"
  unzip -q "$zip_path" -d "$run/dist-unpack"
  dist=$(find "$run/dist-unpack" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [[ -x "$dist/bin/$engine" ]] || die "unexpected zip layout: no bin/$engine under $run/dist-unpack"
  mv "$dist" "$run/dist"
  rmdir "$run/dist-unpack"
  mkdir -p "$run/data" "$run/logs" "$run/tmp"
  chown -R "$RUN_USER:" "$run/dist" "$run/data" "$run/logs" "$run/tmp"
  chown "$RUN_USER:" "$run" # the engine writes its pidfile here
  chmod 755 "$run"
  ln -sfn "$run" "$current_link"

  local -a jenv settings
  settings=(
    -Ediscovery.type=single-node
    -Enetwork.host=127.0.0.1
    -Ehttp.port="$port"
    -Etransport.port="$((port + 100))"
    -Ecluster.routing.allocation.disk.threshold_enabled=false
    -Epath.data="$run/data"
    -Epath.logs="$run/logs"
  )
  if [[ $engine == elasticsearch ]]; then
    jenv=(ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms$heap -Xmx$heap" ES_TMPDIR="$run/tmp")
    settings+=(-Expack.security.enabled=false)
  else
    jenv=(OPENSEARCH_JAVA_HOME="$java_home" OPENSEARCH_JAVA_OPTS="-Xms$heap -Xmx$heap" OPENSEARCH_TMPDIR="$run/tmp")
  fi
  log "starting $engine $version on $url as $RUN_USER with $java_home"
  # The daemon must not inherit fd 3 (our stdout: a caller's $(...) would never see EOF) or
  # fd 9 (the start lock); OpenSearch's launcher passes every open fd on to its JVM.
  if ! (cd "$run" && runuser -u "$RUN_USER" -- env -u JAVA_HOME -u ES_PATH_CONF -u OPENSEARCH_PATH_CONF \
    HOME="$run/tmp" "${jenv[@]}" "$run/dist/bin/$engine" -d -p "$run/engine.pid" "${settings[@]}" \
    </dev/null >"$run/launcher.out" 2>&1 3>&- 9>&-); then
    log "$engine launcher failed"
    log_tail "$run"
    do_stop 2>/dev/null || true
    exit 1
  fi
  if ! wait_healthy "$run"; then
    log_tail "$run"
    # Keep the failed run's files for inspection, but do not leave a half-started engine behind.
    if pid=$(live_pid); then kill -KILL "$pid" 2>/dev/null || true; fi
    exit 1
  fi
  pid=$(live_pid || echo '?')
  log "$engine $version healthy on $url (pid $pid) after $((SECONDS - t0))s"
  echo "$url" >&3
}

do_status() {
  local pid
  if pid=$(live_pid); then
    log "$engine pid $pid on $url (run dir $(readlink -f "$current_link"))$(healthy || echo ', not healthy yet')"
    echo running >&3
  elif healthy; then
    log "$engine answers on $url (not started by this script)"
    echo running >&3
  else
    echo stopped >&3
  fi
}

case "$action" in
  start)
    require_root
    do_start
    ;;
  stop)
    require_root
    do_stop
    ;;
  status) do_status ;;
esac

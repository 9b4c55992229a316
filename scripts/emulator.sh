#!/usr/bin/env bash
# Google's Bigtable emulator (bttest) for keyspread's tests and benchmarks.
#
#   scripts/emulator.sh start [--latency 5ms] [--port N] [--owner PID] [--no-record]   prints ONLY 127.0.0.1:PORT
#   scripts/emulator.sh stop [127.0.0.1:PORT | --port N]    no argument: every instance started here
#
# start installs Debian's golang-go + golang-google-cloud-dev if missing, builds emulator/main.go
# into .emulator/ when the source changed, starts a new instance in the background and waits
# until it answers. Without --port it takes the first free port from 8086 (KEYSPREAD_EMULATOR_PORT);
# with --port it reuses an instance of ours already running there with the same settings.
# With --owner the emulator exits by itself once that process is gone (a killed test run).
# Each instance records CreateTable requests and every data request's table, app profile and routing header
# (which the emulator itself ignores) in .emulator/run/PORT.requests.jsonl, for tests; benchmarks
# start it with --no-record (a line written per call is server work a benchmark would time).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STATE="$ROOT/.emulator"
RUN="$STATE/run"
BIN="$STATE/emulator"
BTTEST=/usr/share/gocode/src/cloud.google.com/go/bigtable/bttest
FIRST_PORT="${KEYSPREAD_EMULATOR_PORT:-8086}"
WAIT_SECONDS=20

fail() { echo "emulator.sh: $*" >&2; exit 1; }
usage() { fail "usage: emulator.sh start [--latency DURATION] [--port N] [--owner PID] [--no-record] | stop [HOST:PORT | --port N]"; }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
alive() { [[ -f "$RUN/$1.pid" ]] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

install_go() {
  command -v go >/dev/null && [[ -d "$BTTEST" ]] && return
  echo "emulator.sh: installing golang-go and golang-google-cloud-dev (apt)" >&2
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go golang-google-cloud-dev; } >&2 ||
    fail "could not install golang-go golang-google-cloud-dev with apt-get"
}

build() {
  local source="$ROOT/emulator/main.go" digest
  digest="$( (sha256sum "$source"; go version) | sha256sum | cut -d' ' -f1)"
  [[ -x "$BIN" && "$(cat "$STATE/emulator.sha256" 2>/dev/null)" == "$digest" ]] && return
  echo "emulator.sh: building $BIN" >&2
  (cd "$ROOT/emulator" && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= go build -o "$BIN.tmp" .) >&2 ||
    fail "go build of emulator/main.go failed"
  mv "$BIN.tmp" "$BIN"
  echo "$digest" >"$STATE/emulator.sha256"
}

# Starts an instance on $1 with latency $2, owner $3 and recording $4 (yes/no); returns 1 if it
# exited (e.g. lost the port).
launch() {
  local port="$1" latency="$2" owner="$3" record="$4" pid args
  args=(--port "$port" --latency "$latency" --owner "$owner")
  [[ "$record" == yes ]] && args+=(--record "$RUN/$port.requests.jsonl")
  rm -f "$RUN/$port.requests.jsonl"
  # 9>&-: the emulator must not inherit (and hold) the start lock.
  nohup "$BIN" "${args[@]}" </dev/null >"$RUN/$port.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$RUN/$port.pid"
  echo "latency=$latency record=$record" >"$RUN/$port.settings"
  for ((i = 0; i < WAIT_SECONDS * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$RUN/$port".{pid,settings}; return 1; }
    answers "$port" && return 0
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  rm -f "$RUN/$port".{pid,settings}
  fail "emulator on port $port did not answer within ${WAIT_SECONDS}s; log: $RUN/$port.log"
}

start() {
  local latency=0s port="" owner=0 record=yes
  while (($#)); do
    case "$1" in
      --no-record) record=no; shift ;;
      --latency) latency="${2:?--latency needs a duration like 5ms}"; shift 2 ;;
      --port) port="${2:?--port needs a number}"; shift 2 ;;
      --owner) owner="${2:?--owner needs a process id}"; shift 2 ;;
      *) usage ;;
    esac
  done
  [[ "$latency" =~ ^(0|[0-9]+(\.[0-9]+)?(ns|us|ms|s))$ ]] || fail "--latency is '$latency'; allowed: a duration like 0s, 500us, 5ms"
  [[ -z "$port" || "$port" =~ ^[0-9]+$ && "$port" -ge 1 && "$port" -le 65535 ]] || fail "--port is '$port'; allowed: 1..65535"
  [[ "$owner" =~ ^[0-9]+$ ]] || fail "--owner is '$owner'; allowed: a process id"
  mkdir -p "$RUN"
  # One start at a time per checkout: installs, builds and port picks must not race.
  exec 9>"$STATE/start.flock"
  flock 9
  install_go
  build

  if [[ -n "$port" ]]; then
    if alive "$port" && [[ "$(cat "$RUN/$port.settings" 2>/dev/null)" == "latency=$latency record=$record" ]] && answers "$port"; then
      echo "127.0.0.1:$port"
      return
    fi
    answers "$port" && fail "port $port is in use by something else (or by an instance with other settings)"
    launch "$port" "$latency" "$owner" "$record" || fail "emulator exited at start; log: $RUN/$port.log"
    echo "127.0.0.1:$port"
    return
  fi
  for ((port = FIRST_PORT; port < FIRST_PORT + 100; port++)); do
    answers "$port" && continue
    if launch "$port" "$latency" "$owner" "$record"; then
      echo "127.0.0.1:$port"
      return
    fi
  done
  fail "no free port in $FIRST_PORT..$((FIRST_PORT + 99)) (or the emulator keeps exiting; see $RUN/*.log)"
}

stop_port() {
  local port="$1" pid
  if alive "$port"; then
    pid="$(cat "$RUN/$port.pid")"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$RUN/$port".{pid,settings,log,requests.jsonl}
}

stop() {
  case "${1:-}" in
    "") for file in "$RUN"/*.pid; do [[ -e "$file" ]] && stop_port "$(basename "$file" .pid)"; done ;;
    --port) stop_port "${2:?--port needs a number}" ;;
    *:*) stop_port "${1##*:}" ;;
    *) usage ;;
  esac
  return 0
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) usage ;;
esac

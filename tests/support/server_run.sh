# Sourced by the suites' run.sh: runs a server command in the background on
# a free port and stops it again.
#
#   abx_server_start PREFIX LOG COMMAND...   sets abx_server_pid and abx_server_port
#   abx_server_stop                          SIGTERM, up to 10 s, then SIGKILL
#
# COMMAND must print 'listening on 127.0.0.1:PORT' (serve --port 0 does).
# abx_server_start exits 1 with the log when the server exits first or does
# not listen within 30 s. A watchdog kills the server if the calling script
# is killed outright (a CTest timeout).
abx_server_pid="" abx_server_port=""

abx_server_start() {
  local prefix=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1 &
  abx_server_pid=$!
  local pid=$abx_server_pid parent=$$
  ( trap '' TERM INT; while kill -0 "$parent" 2>/dev/null; do sleep 1; done; kill -KILL "$pid" 2>/dev/null ) &
  for _ in $(seq 300); do
    abx_server_port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$log" | head -1)"
    [ -n "$abx_server_port" ] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$prefix: the server exited before listening:" >&2; cat "$log" >&2; exit 1
    fi
    sleep 0.1
  done
  echo "$prefix: the server did not print 'listening on' in 30 s:" >&2; cat "$log" >&2; exit 1
}

abx_server_stop() {
  local pid=$abx_server_pid
  abx_server_pid=""
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

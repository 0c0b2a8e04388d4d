#!/usr/bin/env bash
# The CLI's conventions, on the built binary (no coordinator needed): --version names the build's commit; global
# options after the command; the documented exit statuses (cli/exit_status.h: 0 ok, 1 error, 2 usage); under
# --json an error is a JSON object on stderr, for usage errors and for a coordinator that cannot be reached.
set -uo pipefail
cli="$1"
sweep="$2"
fail() { echo "FAIL: $*"; exit 1; }
json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"][sys.argv[1]])' "$1"; }

out=$("$cli" --version) || fail "--version exited $?"
re='^gammalab [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7,}\)$'
[[ "$out" =~ $re ]]   || fail "--version printed '$out'"

"$cli" no-such-command >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown command must exit 2 (usage)"
"$cli" validate >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing argument must exit 2 (usage)"
# A misspelt command is named, with the command it is closest to; global options before it are skipped.
err=$("$cli" --server 127.0.0.1:9 jbos 1 2>&1 >/dev/null); code=$?
[ $code -eq 2 ] || fail "a misspelt command must exit 2, got $code"
[ "$err" = "gammalab: 'jbos' is not a command (did you mean 'jobs'?); gammalab --help lists them" ] ||
  fail "a misspelt command: '$err'"

# --json after the command is the global flag, not an error.
out=$("$cli" validate "$sweep" --json) || fail "validate FILE --json exited $?"
python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out" || fail "validate --json (after the command) printed no JSON: $out"

err=$("$cli" no-such-command --json 2>&1 >/dev/null); code=$?
[ $code -eq 2 ] || fail "a usage error under --json must exit 2, got $code"
[ "$(json_field kind <<<"$err")" = usage ] || fail "a usage error under --json: stderr '$err'"
[ "$(json_field exit_status <<<"$err")" = 2 ] || fail "exit_status in '$err'"

# A coordinator that is not there (a port nobody listens on): an error (1), as JSON under --json.
err=$("$cli" --server 127.0.0.1:9 jobs 1 --json 2>&1 >/dev/null); code=$?
[ $code -eq 1 ] || fail "an unreachable coordinator must exit 1, got $code ($err)"
[ "$(json_field kind <<<"$err")" = error ] || fail "stderr under --json: '$err'"
msg=$(json_field message <<<"$err")
[[ "$msg" == *127.0.0.1:9* ]] || fail "the error must name the address it tried: '$msg'"
err=$("$cli" --server 127.0.0.1:9 jobs 1 2>&1 >/dev/null)
[[ "$err" == gammalab:* ]] || fail "without --json an error is a line of text: '$err'"
# Hardware figures only for the device the sweep asks for: a CPU sweep gets no GPU-hours.
out=$("$cli" plan "$sweep" --no-power) || fail "plan exited $?"
[[ "$out" == *"every job runs on the CPU: no GPU-hours"* && "$out" != *"GPU-hours at"* ]] || fail "plan of a CPU sweep: $(tail -3 <<<"$out")"

# A URL for --server, and an HTTP/1 server's port given for the gRPC one: messages that name the mistake.
err=$("$cli" --server http://127.0.0.1:9 jobs 1 2>&1 >/dev/null); code=$?
[ $code -eq 1 ] || fail "--server URL must exit 1, got $code"
[[ "$err" == *"a URL; give HOST:PORT"* ]] || fail "--server URL: '$err'"
# No port: named as such, not "127.0.0.1:0 not reachable".
err=$("$cli" --server 127.0.0.1 jobs 1 2>&1 >/dev/null); code=$?
[ $code -eq 1 ] || fail "--server without a port must exit 1, got $code"
[[ "$err" == *"--server: must be host:port, got '127.0.0.1'"*"(no port given)"* && "$err" != *":0"* ]] ||
  fail "--server without a port: '$err'"
http_log=$(mktemp)
python3 -u -m http.server 0 --bind 127.0.0.1 >"$http_log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null; rm -f "$http_log"' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$http_log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "python's http.server did not start: $(cat "$http_log")"
err=$("$cli" --server "127.0.0.1:$port" jobs 1 2>&1 >/dev/null); code=$?
[ $code -eq 1 ] || fail "an HTTP/1 port must exit 1, got $code"
[[ "$err" == *"is it the dashboard's --http port?"* ]] || fail "an HTTP/1 port for --server: '$err'"
echo "ok: --version, global options after the command, exit statuses 0/1/2, JSON errors, --server mistakes named, a misspelt command"

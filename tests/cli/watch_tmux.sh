#!/usr/bin/env bash
# `gammalab watch` in real terminals (tmux) of 80×24 and 200×60, both following one live sweep of a real
# coordinator and worker: at every capture while the sweep runs, the frame starts at the top with the sweep line
# (it never scrolled), has no line the terminal had to wrap, and leaves the last row free; when the sweep ends,
# the terminal is back on its normal screen with the final table and watch's exit status 0. Nothing here waits
# on a speed: the captures run for as long as the sweep does.
set -uo pipefail
bin="$(realpath "$1")"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
socket="gammalab-watch-$$"
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null
  # The worker first, while its coordinator still answers its goodbye; then the coordinator.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null
    wait "${pids[i]}" 2>/dev/null
  done
  rm -rf "$work"
}
pids=()
trap cleanup EXIT

# Data: some text as byte-level shards, through the trainer's own `prepare`.
python3 -c 'import random; r = random.Random(7); w = "the of and a to in is was he for it with as his on be at by".split()
print(" ".join(r.choice(w) for _ in range(60000)))' >"$work/text.txt"
"$bin/worker/trainer/gammalab-train" prepare --input "$work/text.txt" --out "$work/data/d" --tokenizer byte \
  --val-fraction 0.05 >/dev/null 2>&1 || fail "prepare"

# A coordinator and one worker, with the tokens a deployment has.
"$bin/server/gammalab-server" token create --role worker --name w --db "$work/gammalab.db" --out "$work/worker.token" >/dev/null
"$bin/server/gammalab-server" token create --role user --name u --db "$work/gammalab.db" --out "$work/user.token" >/dev/null
"$bin/server/gammalab-server" --listen 127.0.0.1:0 --http 127.0.0.1:0 --db "$work/gammalab.db" \
  --shared-root "$work/shared" >"$work/server.out" 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 200); do grep -q listening "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*"grpc_port":\([0-9]*\).*/\1/p' "$work/server.out")
[ -n "$port" ] || fail "coordinator did not start: $(cat "$work/server.log")"
export GAMMALAB_SERVER="127.0.0.1:$port"
"$bin/worker/gammalab-worker" --coordinator "$GAMMALAB_SERVER" --slots 1 --shared-root "$work/shared" \
  --data-dir "$work/data" --hostname watch-test --trainer "$bin/worker/trainer/gammalab-train" \
  --token-file "$work/worker.token" 2>"$work/worker.log" &
pids+=($!)

# 30 short jobs with long names: taller than 24 rows, wider than 80 columns.
cat >"$work/sweep.yaml" <<'YAML'
name: watch-terminal-with-a-long-sweep-name
base:
  model: {preset: tiny-0.03m}
  optim: {name: adamw, lr: 0.01}
  data: {train: d/train.bin, val: d/val.bin, eval_windows: 4}
  batch_tokens: 512
  steps: 12
  eval_every: 12
  log_every: 2
  threads: 1
  device: cpu
axes:
  grid:
    scale.variant: [baseline, unified, none]
seeds: 10
YAML
sweep=$("$bin/cli/gammalab" --token-file "$work/user.token" --json submit "$work/sweep.yaml" | sed -n 's/.*"id": *"\([0-9]*\)".*/\1/p' | head -1)
[ -n "$sweep" ] || fail "submit"

for size in 80x24 200x60; do
  tmux -L "$socket" new-session -d -s "s$size" -x "${size%x*}" -y "${size#*x}" \
    "env GAMMALAB_SERVER=$GAMMALAB_SERVER $bin/cli/gammalab --token-file $work/user.token watch $sweep; echo WATCH-EXIT=\$?; sleep 600" \
    || fail "tmux $size"
done

# check SIZE: the pane's invariants while watch draws its frame; prints "done" once watch has exited.
check() {
  local size=$1 columns=${1%x*} rows=${1#*x} pane joined last
  pane=$(tmux -L "$socket" capture-pane -p -t "s$size") || fail "capture $size"
  if grep -q '^WATCH-EXIT=' <<<"$pane"; then echo done; return; fi
  grep -q ': 30/30 done, finished' <<<"$pane" && return 0  # the final table, being printed on the normal screen
  # Off the alternate screen: the final table is being printed, and in 24 rows it scrolls its sweep line away
  # before the exit line comes.
  [ "$(tmux -L "$socket" display -p -t "s$size" '#{alternate_on}')" = 1 ] || return 0
  [ -n "$(tr -d '[:space:]' <<<"$pane")" ] || return 0  # not drawn yet
  joined=$(tmux -L "$socket" capture-pane -p -J -t "s$size")
  head -1 <<<"$pane" | grep -q "^sweep $sweep 'watch-terminal" || fail "$size: the frame does not start at the top:"$'\n'"$pane"
  python3 -c 'import sys
for line in sys.stdin.read().split("\n"):
    if len(line) > int(sys.argv[1]):
        sys.exit("wrapped: " + line)' "$columns" <<<"$joined" || fail "$size: a line wider than the terminal"
  last=$(tmux -L "$socket" capture-pane -p -S $((rows - 1)) -E $((rows - 1)) -t "s$size")
  [ -z "$(tr -d '[:space:]' <<<"$last")" ] || fail "$size: the last row is not free:"$'\n'"$pane"
  echo frame
}
frames_80=0 frames_200=0 finished=""
for _ in $(seq 3000); do  # ends when both watches have exited, however long the sweep takes (10 minutes at most)
  finished=""
  r=$(check 80x24) || { echo "$r"; exit 1; }
  [ "$r" = frame ] && frames_80=$((frames_80 + 1))
  [ "$r" = done ] && finished="80"
  r=$(check 200x60) || { echo "$r"; exit 1; }
  [ "$r" = frame ] && frames_200=$((frames_200 + 1))
  [ "$r" = done ] && finished="$finished 200"
  [ "$finished" = "80 200" ] && break
  sleep 0.2
done
[ "$finished" = "80 200" ] || fail "watch did not end: $(tail -5 "$work/worker.log")"
[ $frames_80 -gt 0 ] && [ $frames_200 -gt 0 ] || fail "no frame captured while the sweep ran ($frames_80, $frames_200)"
for size in 80x24 200x60; do
  pane=$(tmux -L "$socket" capture-pane -p -S -200 -t "s$size")
  grep -q '^WATCH-EXIT=0$' <<<"$pane" || fail "$size: watch's exit status:"$'\n'"$pane"
  grep -q "^sweep $sweep 'watch-terminal[^']*…': 30/30 done, finished; 30 succeeded$" <<<"$pane" \
    || fail "$size: no final sweep line on the normal screen:"$'\n'"$pane"
done
# Watching the sweep once it has finished: a summary of a few lines, not a row per job.
tmux -L "$socket" new-session -d -s after -x 80 -y 24 \
  "env GAMMALAB_SERVER=$GAMMALAB_SERVER $bin/cli/gammalab --token-file $work/user.token watch $sweep; echo WATCH-EXIT=\$?; sleep 600" \
  || fail "tmux after"
for _ in $(seq 300); do
  pane=$(tmux -L "$socket" capture-pane -p -J -t after)
  grep -q '^WATCH-EXIT=' <<<"$pane" && break
  sleep 0.2
done
grep -q '^WATCH-EXIT=0$' <<<"$pane" || fail "watch of a finished sweep:"$'\n'"$pane"
summary=$(sed -n '/^sweep /,/^WATCH-EXIT/p' <<<"$pane" | sed '$d')
[ "$(wc -l <<<"$summary")" -le 4 ] || fail "watch of a finished sweep printed more than a summary:"$'\n'"$summary"
grep -q "^next: gammalab jobs $sweep · gammalab fit $sweep\$" <<<"$summary" || fail "no way on in:"$'\n'"$summary"
echo "ok: watch at 80x24 ($frames_80 frames) and 200x60 ($frames_200 frames): fits, never scrolls, ends on the normal screen; a finished sweep gets a summary"

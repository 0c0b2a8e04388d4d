#!/usr/bin/env bash
# The CLI's long outputs in a real 80×24 terminal (tmux): `fit` of a study (from a CSV of runs, no coordinator
# needed), `plan` of the demo's sweep with its power section and its next move, and `--help`. No line may be
# wider than the terminal (tmux's joined capture shows a line the terminal had to wrap as one long line), `fit`
# leads with its verdict, and the tables behind it are left to --detail.
set -uo pipefail
cli="$(realpath "$1")"
sweep_file="$(realpath "$2")"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
socket="gammalab-narrow-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null; rm -rf "$work"' EXIT

# A ladder study: 4 sizes, 3 paired seeds, the baseline and two variants about 1.3x and 1.1x better.
python3 - "$work/runs.csv" <<'PY'
import math, random, sys
r = random.Random(11)
with open(sys.argv[1], "w") as f:
    f.write("params,tokens,loss,group,seed\n")
    for n in (1e7, 3e7, 1e8, 3e8):
        d = 20 * n
        for seed in range(3):
            shared = r.gauss(0, 0.006)
            for group, m in (("baseline", 1.0), ("unified", 1.3), ("qknorm", 1.1)):
                c = 6 * n * d * m
                loss = 1.5 + 40 * c ** -0.15 + shared + r.gauss(0, 0.004)
                f.write(f"{int(n)},{int(d)},{loss:.6f},{group},{seed}\n")
PY

# run NAME COMMAND: COMMAND's output in an 80x24 pane, every line of it (history included), joined as the
# terminal wrapped it, in $work/NAME.txt.
run() {
  local name=$1; shift
  tmux -L "$socket" new-session -d -s "$name" -x 80 -y 24 "$* ; echo EXIT-CODE=\$?; sleep 600" || fail "tmux $name"
  for _ in $(seq 600); do
    tmux -L "$socket" capture-pane -p -J -S -5000 -t "$name" >"$work/$name.txt" 2>/dev/null
    grep -q '^EXIT-CODE=' "$work/$name.txt" && break
    sleep 0.2
  done
  grep -q '^EXIT-CODE=0$' "$work/$name.txt" || fail "$name did not exit 0:"$'\n'"$(tail -20 "$work/$name.txt")"
  python3 -c 'import sys
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    if len(line) > 80:
        sys.exit("wrapped at 80 columns: " + line)' "$work/$name.txt" || fail "$name"
}

run fit "$cli" fit --points "$work/runs.csv" --law c --bootstrap 100
head -5 "$work/fit.txt" | grep -q '^verdict:$' || fail "fit does not lead with its verdict:"$'\n'"$(head -8 "$work/fit.txt")"
grep -q '^  unified reaches baseline.s loss with' "$work/fit.txt" || fail "fit: no headline for unified:"$'\n'"$(cat "$work/fit.txt")"
grep -q -- '--detail)$' "$work/fit.txt" || fail "fit: the tables behind the verdict are not offered"
grep -q '^group baseline:' "$work/fit.txt" && fail "fit without --detail prints the groups' tables"
# After the verdict, what the study should run next towards a width (core/scaling/adaptive_step.h).
run fitnext "$cli" fit --points "$work/runs.csv" --law c --bootstrap 100 --next --target-width 1.15
grep -q '^next (towards every headline 1.150× wide): ' "$work/fitnext.txt" ||
  fail "fit --next: no next step:"$'\n'"$(tail -8 "$work/fitnext.txt")"
grep -q '^  why: the widest interval (' "$work/fitnext.txt" || fail "fit --next: no reason"
# A cheap stage's gate: each arm promoted or dropped, with its evidence (core/scaling/arm_gate.h).
run gate "$cli" fit --points "$work/runs.csv" --gate 1.05 --bootstrap 100
grep -q '^gate: each arm over baseline, promoted while' "$work/gate.txt" ||
  fail "fit --gate: no gate:"$'\n'"$(cat "$work/gate.txt")"
grep -Eq '^unified +promoted +1\.[0-9]+× +\[' "$work/gate.txt" ||
  fail "fit --gate: unified not promoted with its interval"
run plan "$cli" plan "$sweep_file"
grep -q '^(fitted to 80 columns: ' "$work/plan.txt" || fail "plan: its table does not say how it was fitted"
grep -q 'power to exclude 1' "$work/plan.txt" || fail "plan: no power section"
# The next move and the path to a width, beside the fixed design that reaches it (core/scaling/next_move.h).
run next "$cli" plan "$sweep_file" --no-power --next --target-width 1.4 --max-moves 3
grep -q '^  best: one more paired seed at ' "$work/next.txt" ||
  fail "plan --next: no best move:"$'\n'"$(cat "$work/next.txt")"
grep -q '^move  *at FLOPs  *runs  *cost  *hi/lo after' "$work/next.txt" || fail "plan --next: no table of moves"
grep -q '^towards 1.400× wide' "$work/next.txt" || fail "plan --next: no path to the target width"
grep -Eq '^  (reached the target|stopped)' "$work/next.txt" || fail "plan --next: the path does not say how it ended"
grep -q 'the fixed design that reaches it: ' "$work/next.txt" || fail "plan --next: no fixed design to compare"
run help "$cli" fit --help
echo "ok: fit, fit --next, fit --gate, plan, plan --next and --help at 80x24: no wrapped line, the verdict first"

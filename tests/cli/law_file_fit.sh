#!/usr/bin/env bash
# `gammalab fit --law-file`, run as a user runs it: a CSV with a column the built-in laws do not know (experts)
# fitted with a shipped law file, no recompiling; --json carries every parameter with its interval; --predict
# predicts other rows; a hostile law file is refused with its field named and exit status 1.
set -uo pipefail
cli="$(realpath "$1")"
source_dir="$(realpath "$2")"
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Clark et al.'s form with a=-0.08, b=-0.05, c=0.002, d=2.5, three seeds with a small scatter (awk's rand, seeded).
awk 'BEGIN { srand(7)
  print "params,experts,seed,loss,note"
  split("1e8 3e8 1e9 3e9 1e10", sizes, " "); split("1 4 16 64", experts, " ")
  for (i = 1; i <= 5; i++) for (j = 1; j <= 4; j++) for (s = 0; s < 3; s++) {
    n = sizes[i]; e = experts[j]
    l = exp(2.5 - 0.08 * log(n) - 0.05 * log(e) + 0.002 * log(n) * log(e)) * exp(0.003 * (rand() + rand() + rand() - 1.5))
    printf "%g,%g,%d,%.6f,free text\n", n, e, s, l
  }
}' >"$work/runs.csv"
printf 'params,experts,label\n3e10,16,next\n' >"$work/next.csv"

out=$("$cli" fit --points "$work/runs.csv" --law-file "$source_dir/configs/laws/moe-experts.yaml" --bootstrap 50 \
  --predict "$work/next.csv" --json) || fail "fit --law-file exited $?"
python3 - "$out" <<'PY' || fail "the JSON of fit --law-file: $out"
import json, math, sys
r = json.loads(sys.argv[1])
assert r["law"] == "moe_experts", r["law"]
g = r["groups"][0]
assert g["delta_source"] == "seeds' scatter", g["delta_source"]
truth = {"a": -0.08, "b": -0.05, "c": 0.002, "d": 2.5}
for p in g["parameters"]:
    lo, hi = p["interval"]
    # One draw: the interval holds the estimate, and the planted value is near it (coverage itself is
    # calibrated over many draws in tests/core/law_form_calibration_test.cpp).
    assert lo <= p["value"] <= hi, p
    assert abs(p["value"] - truth[p["name"]]) <= 3 * (hi - lo), p
(pred,) = r["predictions"]
want = math.exp(2.5 - 0.08 * math.log(3e10) - 0.05 * math.log(16) + 0.002 * math.log(3e10) * math.log(16))
assert abs(pred["predicted"] - want) < 0.005 * want, (pred, want)
assert pred["label"] == "next" and pred["interval"][0] <= pred["predicted"] <= pred["interval"][1], pred
PY

text=$(COLUMNS=80 "$cli" fit --points "$work/runs.csv" --law-file "$source_dir/configs/laws/moe-experts.yaml" \
  --bootstrap 20) || fail "fit --law-file (text) exited $?"
grep -q '^law moe_experts (Clark et al. (2022)' <<<"$text" || fail "no law line: $text"
grep -q '^  parameter  ' <<<"$text" || fail "no parameter table: $text"
profiled=$(COLUMNS=80 "$cli" fit --points "$work/runs.csv" --law-file "$source_dir/configs/laws/moe-experts.yaml" \
  --bootstrap 0 --profile c) || fail "fit --profile exited $?"
grep -q "^  profile of c: the fit's objective allows 0.00" <<<"$profiled" || fail "no profile of c: $profiled"

# Two files compared by how well each predicts the largest size from the others: the form the runs came from.
choice=$(COLUMNS=80 "$cli" fit --points "$work/runs.csv" --law-file "$source_dir/configs/laws/n.yaml" \
  --law-file "$source_dir/configs/laws/moe-experts.yaml" --bootstrap 0) || fail "two law files exited $?"
grep -q '^predicts best: moe_experts, missing the largest size by' <<<"$choice" || fail "no choice: $choice"
grep -q '^== law moe_experts, the form that predicts best$' <<<"$choice" || fail "the best form's fit: $choice"

printf 'law: bad\nvariables: [params]\nloss: E + A / params^alpha + gamma\nparameters:\n  E: {bounds: [0, 10]}\n  A: {bounds: [0, 1e9]}\n  alpha: {bounds: [0, 2]}\n' >"$work/bad.yaml"
"$cli" fit --points "$work/runs.csv" --law-file "$work/bad.yaml" >"$work/out" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "a bad law file exited $status, not 1: $(cat "$work/out")"
grep -q "bad.yaml: loss: unknown name 'gamma'" "$work/out" || fail "the refusal does not name the field: $(cat "$work/out")"
printf 'law: x\nvariables: [unique_tokens]\nloss: a * unique_tokens\nparameters: {a: {bounds: [0, 1]}}\n' >"$work/col.yaml"
"$cli" fit --points "$work/runs.csv" --law-file "$work/col.yaml" >"$work/out" 2>&1
grep -q "header has no column 'unique_tokens', a variable of the law" "$work/out" || fail "a missing column: $(cat "$work/out")"
echo "ok"

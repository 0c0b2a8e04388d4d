#!/usr/bin/env bash
# Every command's --help ends with examples and fits 80 columns (into a pipe; a terminal gets its own width:
# descriptions wrapped at word boundaries, never cut mid-word by the terminal), and `gammalab completion` gives bash, zsh and fish scripts that
# complete the commands and their options: checked by running each shell's own completion machinery on the
# script the built binary writes (no coordinator needed).
set -uo pipefail
cli="$(realpath "$1")"
fail() { echo "FAIL: $*"; exit 1; }

# The commands, as `gammalab --help` lists them (CLI11: "Subcommands:" then "  NAME  description").
commands=$("$cli" --help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z]\+\) .*/\1/p')
[ "$(wc -w <<<"$commands")" -ge 16 ] || fail "gammalab --help lists too few commands: $commands"
for c in $commands; do
  help=$("$cli" "$c" --help) || fail "$c --help exited $?"
  grep -q '^Examples:$' <<<"$help" || fail "$c --help has no examples"
  grep -q "^  gammalab $c\b\|^  source <(gammalab $c\|^  gammalab $c " <<<"$help" || fail "$c --help: no example runs $c"
  wide=$(awk 'length($0) > 80' <<<"$help")
  [ -z "$wide" ] || fail "$c --help has lines over 80 columns: $wide"
done
wide=$("$cli" --help | awk 'length($0) > 80')
[ -z "$wide" ] || fail "gammalab --help has lines over 80 columns: $wide"
# A wrapped description goes on under its column: the option's words stay whole and in order.
"$cli" fit --help | tr -s ' \n' ' ' | grep -q "the laws' Huber delta in ln L, used as given (default: 1.345 x the seeds'" ||
  fail "fit --help: --huber-delta's description is not whole after wrapping"

# bash: the function, called as bash's programmable completion would.
script=$(mktemp)
trap 'rm -f "$script"' EXIT
"$cli" completion bash >"$script" || fail "completion bash exited $?"
complete_bash() {  # words... : what bash offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gammalab; echo "${COMPREPLY[*]}"' _ "$script" "$@"
}
[ "$(complete_bash gammalab jo)" = jobs ] || fail "bash: 'gammalab jo' gave '$(complete_bash gammalab jo)'"
[ "$(complete_bash gammalab --server h:1 wa)" = watch ] || fail "bash: a global option's value is not the command"
[[ " $(complete_bash gammalab plan x.yaml --no) " == *" --noise "*" --no-power "* ]] || fail "bash: plan's options: '$(complete_bash gammalab plan x.yaml --no)'"
[[ " $(complete_bash gammalab jobs 3 --j) " == *" --json "* ]] || fail "bash: a global option after the command"
[ -z "$(complete_bash gammalab validate conf)" ] || fail "bash: a file argument is left to bash's file names"
"$cli" completion powershell >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown shell is a usage error (2)"

# zsh: the same function through bashcompinit, loaded by zsh itself.
"$cli" completion zsh >"$script" || fail "completion zsh exited $?"
zsh -n "$script" || fail "zsh: the script does not parse"
# (zsh's compgen leaves the matching against the word typed to zsh itself: the candidates are checked here.)
complete_zsh() {
  zsh -fc 'autoload -U compinit && compinit -u -D; source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _gammalab; echo " ${COMPREPLY[*]} "' _ "$script" "$@" 2>&1
}
out=$(complete_zsh gammalab fi)
[[ "$out" == *" fit "* && "$out" == *" --server "* ]] || fail "zsh: 'gammalab fi' gave '$out'"
out=$(complete_zsh gammalab --server h:1 jobs 3 --js)
[[ "$out" == *" --json "* && "$out" != *" validate "* ]] || fail "zsh: after the command, its options only: '$out'"

# fish: its own `complete` lines, asked through fish's `complete -C`.
"$cli" completion fish >"$script" || fail "completion fish exited $?"
out=$(fish --no-config -c "source $script; complete -C 'gammalab sub'" 2>&1)
[[ "$out" == submit* ]] || fail "fish: 'gammalab sub' gave '$out'"
out=$(fish --no-config -c "source $script; complete -C 'gammalab export 3 --for'" 2>&1)
[[ "$out" == --format* ]] || fail "fish: export's --format: '$out'"
echo "ok: examples in every command's --help; completion for bash, zsh and fish"

#!/usr/bin/env bash
# An outside oracle for `bot hook claude-code`: every file of cmd/bot/testdata/hook is
# type-checked against the Claude Agent SDK's own types (@anthropic-ai/claude-agent-sdk,
# sdk.d.ts) with tsc --strict. The inputs (*.input.json, what Claude Code writes on a hook's
# stdin) must be a PermissionRequestHookInput or an ElicitationHookInput; the golden outputs
# (*.output.json, byte for byte what the hook prints, compared by cmd/bot/hook_test.go) must be a
# SyncHookJSONOutput whose hookSpecificOutput is a PermissionRequestHookSpecificOutput or an
# ElicitationHookSpecificOutput. Object literals get TypeScript's excess-property check, so an
# unknown field, a missing required one or a wrong value is an error.
# Versions are pinned in .ci/agent-sdk-types/package.json and package-lock.json (npm ci
# --omit=optional: the SDK's optional per-platform Claude Code binary, some 400 MB, is not
# installed, since only its types are read; for the same reason tsc is TypeScript 5.9, whose
# compiler is JavaScript, where TypeScript 7's is a native binary in an optional package).
# Arguments, if any, are the files to check instead (to try the check on a broken copy).
set -euo pipefail
files=("$@")
for i in "${!files[@]}"; do files[i]=$(realpath "${files[i]}"); done
cd "$(dirname "$0")/.."
[ ${#files[@]} -gt 0 ] || files=(cmd/bot/testdata/hook/*.json)
dir=.ci/agent-sdk-types

# shellcheck source=.ci/lib.sh
source .ci/lib.sh
npm_install "$dir" --omit=optional
echo "@anthropic-ai/claude-agent-sdk $(node -p "require('./$dir/node_modules/@anthropic-ai/claude-agent-sdk/package.json').version"), $(cd "$dir" && npx --no-install tsc --version)"

golden_reset "$dir"
import="import type { ElicitationHookInput, ElicitationHookSpecificOutput, PermissionRequestHookInput, PermissionRequestHookSpecificOutput, SyncHookJSONOutput } from '@anthropic-ai/claude-agent-sdk';"
n=0
for f in "${files[@]}"; do
  name=$(basename "$f" .json)
  case "$name" in
    *.input) type="PermissionRequestHookInput | ElicitationHookInput" ;;
    *.output) type="SyncHookJSONOutput & { hookSpecificOutput: PermissionRequestHookSpecificOutput | ElicitationHookSpecificOutput }" ;;
    *) echo "$f: neither *.input.json nor *.output.json"; exit 1 ;;
  esac
  golden_ts "$dir" "$name" "$import" "$type" "$f"
  n=$((n + 1))
done
tsc_goldens "$dir" json "$n" \
  "$n hook inputs and outputs type-check against the Claude Agent SDK's types" \
  "the Claude Agent SDK's types refuse a hook input or output (above)"

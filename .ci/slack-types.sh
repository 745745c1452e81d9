#!/usr/bin/env bash
# A second, outside oracle for Block Kit: every golden file of blockkit (blockkit/testdata/*.golden:
# a message {"text", "blocks"} and, for a question, the "modal" it opens, or an App Home view
# {"home"}) is type-checked against
# Slack's own TypeScript definitions, @slack/types, with tsc --strict. Blocks must be KnownBlock
# (never the catch-all Block, whose type is any string), a modal a ModalView whose blocks are
# KnownBlock too; object literals get TypeScript's excess-property check, so an unknown block or
# element type, an unknown property, a missing required one or a wrong type is an error.
# Versions are pinned in .ci/slack-types/package.json and package-lock.json (npm ci).
# Arguments, if any, are the golden files to check instead (to try the check on a broken copy).
set -euo pipefail
files=("$@")
for i in "${!files[@]}"; do files[i]=$(realpath "${files[i]}"); done
cd "$(dirname "$0")/.."
[ ${#files[@]} -gt 0 ] || files=(blockkit/testdata/*.golden)
dir=.ci/slack-types

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "@slack/types $(node -p "require('./$dir/node_modules/@slack/types/package.json').version"), $(cd "$dir" && npx --no-install tsc --version)"

gen="$dir/generated"
rm -rf "$gen"
mkdir -p "$gen"
# The JSON of a golden file starts on line $first of its .ts file, so that tsc's line numbers map
# back to the golden file's.
first=4
n=0
for f in "${files[@]}"; do
  name=$(basename "$f" .golden)
  {
    echo "import type { HomeView, KnownBlock, ModalView } from '@slack/types';"
    echo "type Golden = { text: string; blocks: KnownBlock[]; modal?: Omit<ModalView, 'blocks'> & { blocks: KnownBlock[] } } | { home: Omit<HomeView, 'blocks'> & { blocks: KnownBlock[] } };"
    echo "// from $f"
    printf 'export const golden: Golden = '
    cat "$f"
    echo ';'
  } >"$gen/$name.ts"
  n=$((n + 1))
done
if [ "$n" -eq 0 ]; then echo "no golden files to check"; exit 1; fi

if out=$(cd "$dir" && npx --no-install tsc -p tsconfig.json --strict --noEmit --pretty false 2>&1); then
  echo "$n golden files type-check against @slack/types (KnownBlock[], ModalView, HomeView)"
else
  # generated/NAME.ts(L,C): error ... -> NAME.golden:L':C: error ... (the golden file's own line)
  echo "$out" | awk -v first="$first" '{
    if (match($0, /^generated\/[^(]+\.ts\([0-9]+,[0-9]+\)/)) {
      head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
      split(head, p, /[(),]/); name = p[1]; sub(/^generated\//, "", name); sub(/\.ts$/, "", name)
      printf "%s.golden:%d:%d%s\n", name, p[2] - first + 1, p[3], rest
    } else print
  }'
  echo "@slack/types refuses what blockkit renders (above)"
  exit 1
fi

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

# shellcheck source=.ci/lib.sh
source .ci/lib.sh
npm_install "$dir"
echo "@slack/types $(node -p "require('./$dir/node_modules/@slack/types/package.json').version"), $(cd "$dir" && npx --no-install tsc --version)"

golden_reset "$dir"
import="import type { HomeView, KnownBlock, ModalView } from '@slack/types';"
type="{ text: string; blocks: KnownBlock[]; modal?: Omit<ModalView, 'blocks'> & { blocks: KnownBlock[] } } | { home: Omit<HomeView, 'blocks'> & { blocks: KnownBlock[] } }"
n=0
for f in "${files[@]}"; do
  golden_ts "$dir" "$(basename "$f" .golden)" "$import" "$type" "$f"
  n=$((n + 1))
done
tsc_goldens "$dir" golden "$n" \
  "$n golden files type-check against @slack/types (KnownBlock[], ModalView, HomeView)" \
  "@slack/types refuses what blockkit renders (above)"

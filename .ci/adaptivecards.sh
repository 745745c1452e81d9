#!/usr/bin/env bash
# An outside oracle for the Teams cards: every golden card of adaptivecard
# (adaptivecard/testdata/*.json) is parsed by the adaptivecards npm package, Microsoft's own
# renderer library, and its properties validated (its parse and validation events: an unknown
# element or action type, an input without a unique id, a missing required property, too many
# actions, a wrong property value); any event, or a version other than 1.5, fails the check.
# Versions are pinned in .ci/adaptivecards/package.json and package-lock.json (npm ci).
# Arguments, if any, are the card files to check instead (to try the check on a broken copy).
set -euo pipefail
files=("$@")
for i in "${!files[@]}"; do files[i]=$(realpath "${files[i]}"); done
cd "$(dirname "$0")/.."
[ ${#files[@]} -gt 0 ] || files=("$PWD"/adaptivecard/testdata/*.json)
dir=.ci/adaptivecards

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "adaptivecards $(node -p "require('./$dir/node_modules/adaptivecards/package.json').version")"
if [ "${#files[@]}" -eq 0 ] || [ ! -e "${files[0]}" ]; then echo "no cards to check"; exit 1; fi
(cd "$dir" && node check.js "${files[@]}")
echo "${#files[@]} golden cards parse and validate with adaptivecards (version 1.5, no events)"

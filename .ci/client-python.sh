#!/usr/bin/env bash
# The Python client (clients/python) and the merge gate (deploy/github-action/gate.py), against a
# freshly built bot: the package and the gate parse as Python 3.9 (the oldest supported), the
# package installs with pip from its pyproject.toml (offline: no build isolation, no
# dependencies, since it has none) and imports from there with its py.typed, mypy --strict and
# pyright (strict) pass on it and on a typed use of it (clients/python/examples) and refuse a
# wrong use, and the unittest suite runs against
# the real bot serve (clients/python/tests: the client end to end, and the gate script run with
# the environment a GitHub or GitLab runner gives), again on Python 3.9 when the machine has one.
# A skipped test fails the run, as in .ci/run.
# Needs Go, python3 (3.9 or later) with pip, Node.js with npm (pyright, pinned by
# .ci/pyright/package-lock.json) and Debian's python3-mypy (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$PATH:/usr/local/go/bin"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "$(python3 --version), $(go version | cut -d' ' -f3)"
go build -o "$out/bot" ./cmd/bot

python3 - clients/python/inquiry_bot/*.py clients/python/examples/*.py deploy/github-action/gate.py <<'PY'
import ast, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        ast.parse(f.read(), path, feature_version=(3, 9))
print("Python 3.9 grammar:", len(sys.argv) - 1, "files")
PY

# pip builds the package with setuptools and wheel, offline: the first python3 that has both.
builder=""
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import setuptools, wheel, pip' 2>/dev/null; then builder=$py; break; fi
done
if [ -z "$builder" ]; then
  echo "no python3 with pip, setuptools and wheel to install the package with: apt-get install python3-pip python3-wheel"
  exit 1
fi
"$builder" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-build-isolation --no-deps --target "$out/site" ./clients/python 2>&1 |
  grep -v 'Setuptools is replacing distutils\|warnings.warn' || true
(cd "$out" && PYTHONPATH="$out/site" "$builder" -c 'import inquiry_bot, sys; assert inquiry_bot.__file__.startswith(sys.argv[1]), inquiry_bot.__file__; print("pip-installed inquiry_bot", inquiry_bot.__version__)' "$out/site")
rm -rf clients/python/build clients/python/*.egg-info
if [ ! -f "$out/site/inquiry_bot/py.typed" ]; then
  echo "the installed package has no py.typed, so type checkers ignore its types: list it in clients/python/pyproject.toml's package-data"
  exit 1
fi

# mypy: Debian's python3-mypy (no Python package index is reachable from CI), run by the first
# python3 that has it, installed with apt-get when none has.
mypy_py=""
find_mypy() {
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -m mypy --version >/dev/null 2>&1; then mypy_py=$py; return 0; fi
  done
  return 1
}
if ! find_mypy; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing mypy: apt-get install python3-mypy"
    apt-get install -y -qq python3-mypy >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq python3-mypy >/dev/null 2>&1; } || true
  fi
  if ! find_mypy; then
    echo "mypy cannot be installed here: install Debian's python3-mypy (apt-get install python3-mypy) and run again"
    exit 1
  fi
fi
# pyright: from npm, pinned by .ci/pyright/package-lock.json.
if ! command -v npm >/dev/null || ! (cd .ci/pyright && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
  echo "pyright cannot be installed here: it needs Node.js with npm and the npm registry (cd .ci/pyright && npm ci)"
  exit 1
fi
pyright=$PWD/.ci/pyright/node_modules/.bin/pyright
echo "$("$mypy_py" -m mypy --version) on $("$mypy_py" --version), pyright $("$pyright" --version | sed 's/^pyright //')"

# The package from its sources, with clients/python/pyproject.toml's settings (strict, 3.9).
(cd clients/python && "$mypy_py" -m mypy inquiry_bot examples)
(cd clients/python && "$pyright" -p pyproject.toml)
# The typed use and a wrong use, against the package as pip installed it.
mkdir -p "$out/use"
cp clients/python/examples/usage.py "$out/use/"
cat >"$out/use/wrong.py" <<'WRONG'
from inquiry_bot import Client
bot = Client("http://127.0.0.1:8080", "token")
rec = bot.ask(question="Go?", timeout=0)
print(rec["statuz"])
bot.runs.finish("run-1", status="done")
WRONG
printf '{"extraPaths": ["%s"], "typeCheckingMode": "strict", "pythonVersion": "3.9"}\n' "$out/site" >"$out/use/pyrightconfig.json"
(cd "$out/use" && MYPYPATH="$out/site" "$mypy_py" -m mypy --strict --python-version 3.9 usage.py)
(cd "$out/use" && "$pyright" -p pyrightconfig.json usage.py)
for checker in mypy pyright; do
  if [ "$checker" = mypy ]; then
    wrong=$(cd "$out/use" && MYPYPATH="$out/site" "$mypy_py" -m mypy --strict --python-version 3.9 wrong.py 2>&1) && ok=1 || ok=0
  else
    wrong=$(cd "$out/use" && "$pyright" -p pyrightconfig.json wrong.py 2>&1) && ok=1 || ok=0
  fi
  if [ "$ok" = 1 ] || ! grep -q statuz <<<"$wrong" || ! grep -q "'done'" <<<"$wrong"; then
    echo "$checker accepted a wrong use of the client (an unknown key, a finish status that does not exist), so its types are loose:"
    echo "$wrong"
    exit 1
  fi
done
echo "mypy --strict and pyright (strict) pass on inquiry_bot and examples/usage.py, and refuse a wrong use"

suite() {
  BOT_BIN="$out/bot" "$1" - clients/python/tests <<'PY'
import sys, unittest
suite = unittest.defaultTestLoader.discover(sys.argv[1], top_level_dir=sys.argv[1])
result = unittest.TextTestRunner(verbosity=1).run(suite)
if result.skipped:
    print("%d skipped: CI runs every test" % len(result.skipped))
    sys.exit(1)
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
PY
}
suite python3

# The oldest supported Python runs the suite too when the machine has one (python3.9, or a
# pyenv 3.9): the grammar check above does not catch a library call newer than 3.9.
oldest=""
for py in python3.9 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9.*/bin/python3; do
  if "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 9))' 2>/dev/null; then oldest=$py; break; fi
done
if [ -n "$oldest" ]; then
  echo "the suite again on $("$oldest" --version)"
  suite "$oldest"
else
  echo "no Python 3.9 on this machine: its grammar was checked, its suite not run"
fi

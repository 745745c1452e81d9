#!/usr/bin/env bash
# The Python client (clients/python) and the merge gate (deploy/github-action/gate.py), against a
# freshly built bot: the module and the gate parse as Python 3.9 (the oldest supported), the
# package installs with pip from its pyproject.toml (offline: no build isolation, no
# dependencies, since it has none) and imports from there, and the unittest suite runs against
# the real bot serve (clients/python/tests: the client end to end, and the gate script run with
# the environment a GitHub or GitLab runner gives), again on Python 3.9 when the machine has one.
# A skipped test fails the run, as in .ci/run.
# Needs Go and python3 (3.9 or later) with pip.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$PATH:/usr/local/go/bin"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "$(python3 --version), $(go version | cut -d' ' -f3)"
go build -o "$out/bot" ./cmd/bot

python3 - clients/python/inquiry_bot.py deploy/github-action/gate.py <<'PY'
import ast, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        ast.parse(f.read(), path, feature_version=(3, 9))
print("Python 3.9 grammar:", " ".join(sys.argv[1:]))
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

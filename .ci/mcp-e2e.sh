#!/usr/bin/env bash
# The official TypeScript MCP SDK's client (@modelcontextprotocol/sdk, pinned in
# .ci/mcp-e2e/package.json and package-lock.json) drives a freshly built `bot mcp` over stdio
# against a real bot serve: ask_human with answer_here answered by the client's user through a
# form, a decline recorded as a decline, and a client without elicitation left to the bounded
# wait, and ask_human as a 2025-11-25 task (the SDK's callToolStream) that a person's answer
# completes (.ci/mcp-e2e/check.mjs), and URL mode: the answer page answered as a browser does,
# an editable proposal's edit coming back (here.mjs); then, over streamable HTTP against bot
# serve's /mcp, the bounded wait and get_answer, the 2025-11-25 task, and a task of the 2026
# tasks extension and URL mode over raw JSON-RPC (http.mjs, here.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
check_with_bot .ci/mcp-e2e

#!/usr/bin/env bash
# docs/MCP.md's Claude Code and Codex configurations, read from the document, loaded by the real
# CLIs (@anthropic-ai/claude-code and @openai/codex, pinned in .ci/harness-configs/package.json
# and package-lock.json) and connected to a freshly built bot: claude mcp list and get report
# each snippet's server connected; codex app-server lists ask_human, get_answer and
# permission_prompt for each config.toml and calls ask_human through it
# (.ci/harness-configs/check.mjs). Neither needs a model or an account.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
check_with_bot .ci/harness-configs

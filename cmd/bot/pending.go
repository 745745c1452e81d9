package main

import "context"

// Placeholder until the MCP server is wired (issue 6).
func runMCP(context.Context, *env) error {
	return exitf(exitUsage, "bot mcp is not available in this build")
}

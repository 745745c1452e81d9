package main

import "context"

// Placeholders until the MCP server and the renderer are wired (issues 6 and 4).
func runMCP(context.Context, *env) error {
	return exitf(exitUsage, "bot mcp is not available in this build")
}

func runRender(context.Context, *env) error {
	return exitf(exitUsage, "bot render is not available in this build")
}

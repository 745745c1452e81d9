package inquiry

// The person at an MCP client, asked in the client itself. An agent's harness that supports
// form elicitation can put the agent's own question to its own user (ask_human with
// answer_here): the answer comes from the client's form, not from the model, and is recorded
// via mcp with the name of the token the MCP connection authenticated as.

// ChannelMCP is an MCP client's own user, answering in the client (form elicitation).
const ChannelMCP Channel = "mcp"

// MCPUser is the identity of the person at an MCP client whose connection authenticated as tok:
// answered_by records the token's name, and the answer says via mcp.
func MCPUser(tok *Token) Identity {
	if tok == nil {
		return Identity{}
	}
	return Identity{Channel: ChannelMCP, ID: tok.Name, Token: tok}
}

// mcpMayAnswer is MayAnswer for an MCP client's user: they answer only the question their own
// connection asked, in its namespace, and only one that names nobody who may answer it — a
// question for named people, or several of them, is theirs, not the client's user's.
func mcpMayAnswer(rec *Record, who Identity) Permission {
	t := who.Token
	switch {
	case t == nil:
		return refuse(RefusedNobody, "this answer names no MCP connection that gives it, so it was not taken: answer in the client that asked, in Slack, or through your own link")
	case !t.SeesAll() && rec.Namespace != t.Namespace:
		return refuse(RefusedNamespace, "token %q answers only namespace %q and inquiry %s belongs to another: answer it in the client that asked it", t.Name, t.Namespace, rec.Key)
	case rec.AskedBy != t.Name:
		return refuse(RefusedNotNamed, "inquiry %s was not asked through this MCP connection, so its user may not answer it here: answer it in Slack, through your own link, or with a token of your own", rec.Key)
	case NamesAnswerers(rec):
		return refuse(RefusedNotNamed, "inquiry %s names who may answer it, so the client's own user may not: ask it without answer_here, and the people it names are asked", rec.Key)
	}
	return Permission{Allowed: true}
}

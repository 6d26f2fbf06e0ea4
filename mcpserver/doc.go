// Package mcpserver is memd's Model Context Protocol server on stdio, for
// agents (Claude Code, Cursor, …): tools to recall, chat, see the status,
// add a folder and forget or read a note, and the notes as resources.
// Every call goes to the daemon through api. `memctl mcp` runs it as
// `memd mcp`, so that the MCP SDK and its JSON Schema library stay out of
// the memctl binary that answers recall (every memctl start paid their
// package init). It imports api and the root package memd, never the
// daemon's packages.
package mcpserver

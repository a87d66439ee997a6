"""Noru's MCP server: a session engine over an abstract message stream."""

"""A tiny MCP server on the official Python SDK: the team's glossary, over stdio.

python glossary_server.py          (the harness starts it: config.json's mcp-servers)
"""

from __future__ import annotations

from mcp.server import MCPServer

GLOSSARY = {
    "effective tokens": "1 x input + 0.1 x cache reads + 4 x output + 4 x reasoning: what the budgets count.",
    "safe output": "a write to GitHub the agent asks for and a later job applies, after review.",
    "steering": "notices the harness sends the model as a budget or the deadline nears.",
}

server = MCPServer("glossary")


@server.tool(description="Look a term up in the team's glossary.")
def lookup(term: str) -> str:
    return GLOSSARY.get(term.strip().lower(), f"no entry for {term!r}; known: {', '.join(sorted(GLOSSARY))}")


if __name__ == "__main__":
    server.run()

"""The MCP servers this agent uses: name -> how to start the server.

Each entry has `command` (the program), `args` (its arguments) and `env` (extra environment
variables; a value of the form "${NAME}" is read from the caller's environment at start-up).
"""

mcp_config = {
    "web-search": {
        "command": "uvx",
        "args": ["duckduckgo-mcp-server"],
        "env": {},
    },
    "fetch": {
        "command": "uvx",
        "args": ["mcp-server-fetch"],
        "env": {},
    },
    "filesystem": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "./workspace"],
        "env": {},
    },
}

/** The MCP client hub (loads @modelcontextprotocol/sdk): `import * as Mcp from "custom-agent/mcp"`. */
export * from "./layers/tools/mcp.js"

// The mcp suite's helpers: an official MCP SDK client connected to the
// server's /mcp with one identity's token, and raw JSON-RPC posts for what
// the SDK client never sends (bad JSON, foreign sessions, bad versions).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const BASE = process.env.MCP_BASE_URL;
export const BASE_DIR = process.env.MCP_BASE_DIR;
export const TOKENS = { admin: process.env.MCP_ADMIN_TOKEN, reader: process.env.MCP_READER_TOKEN };

export async function connect(who) {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', BASE), {
    requestInit: { headers: { Authorization: `Bearer ${TOKENS[who]}` } },
  });
  const client = new Client({ name: `abx-mcp-suite-${who}`, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** POST /mcp with @p body (text or object) and extra headers; {status, headers, json}. */
export async function rawPost(who, body, headers = {}) {
  const res = await fetch(new URL('/mcp', BASE), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TOKENS[who]}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = text; }
  return { status: res.status, headers: res.headers, json };
}

/** The text of a CallToolResult's content. */
export function textOf(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

export const b64 = (text) => Buffer.from(text).toString('base64');

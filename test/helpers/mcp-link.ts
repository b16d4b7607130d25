/**
 * An SDK client transport wired to a searchdesk MCP server in the same process (no framing): the
 * SDK's InMemoryTransport pair, with the server's side answering through `server.receive`, as the
 * stdio and HTTP transports do.
 */
import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { JsonRpcMessage } from '../../src/mcp/protocol.js';
import type { McpServer } from '../../src/mcp/server.js';

export async function linkedClientTransport(server: McpServer): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message: JSONRPCMessage) => {
    void server.receive(message as JsonRpcMessage).then((answer) => answer && serverSide.send(answer as JSONRPCMessage));
  };
  await serverSide.start();
  return clientSide;
}

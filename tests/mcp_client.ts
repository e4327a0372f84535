/**
 * MCP SDK clients for tests and benches, patient and with the whole environment.
 *
 * Two SDK defaults broke tests on a busy or freshly set-up machine:
 * - `StdioClientTransport` with an explicit `env` hands the child only HOME, LOGNAME, PATH,
 *   SHELL, TERM and USER (`getDefaultEnvironment`): with `DENO_DIR` or `XDG_CACHE_HOME` set,
 *   the child Deno looked in another cache, downloaded ~600 MB and `initialize` timed out.
 * - Every request fails after 60 s (`DEFAULT_REQUEST_TIMEOUT_MSEC`), a wall-clock limit no
 *   test means to set.
 *
 * ```ts
 * import { childEnv, testClient } from "./mcp_client.ts";
 *
 * const client = testClient("doc");
 * childEnv({ SHELFMARK_EMBEDDER: "none" }).SHELFMARK_EMBEDDER; // "none", beside PATH, DENO_DIR...
 * await client.close();
 * ```
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StdioClientTransport,
  type StdioServerParameters,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ClientRequest } from "@modelcontextprotocol/sdk/types.js";

/**
 * Options of every test request unless the call gives its own: six hours (no practical
 * limit; `setTimeout` cannot wait more than 24.8 days), restarted by progress. A test's
 * own hang guard passes a shorter `timeout` on the call.
 */
export const PATIENT: RequestOptions = { timeout: 6 * 3600_000, resetTimeoutOnProgress: true };

/**
 * The environment of a child process: the parent's whole environment (`DENO_DIR`,
 * `XDG_CACHE_HOME`, proxies, ...) with `extra` on top.
 *
 * @param extra variables to set or override
 * @returns the environment to hand the child
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...Deno.env.toObject(), ...extra };
}

/**
 * An SDK `Client` whose requests (`connect`'s initialize included) use {@linkcode PATIENT}
 * under each call's own options. (A function, not a subclass: under `deno check` the SDK's
 * `Client` type comes out as `any`, and a subclass of it would show no methods.)
 *
 * @param name the client's name in `initialize`
 * @returns the client, not connected
 */
export function testClient(name: string): Client {
  const client = new Client({ name, version: "1" });
  const send = client.request.bind(client);
  client.request = (request: ClientRequest, resultSchema: unknown, options?: RequestOptions) =>
    send(request, resultSchema, { ...PATIENT, ...options });
  return client;
}

/**
 * A stdio transport whose child gets the parent's whole environment with `params.env` on
 * top (see {@linkcode childEnv}).
 *
 * @param params the server's command, arguments, extra environment, cwd and stderr
 * @returns the transport, not started (`client.connect` starts it)
 */
export function stdioTransport(params: StdioServerParameters): StdioClientTransport {
  return new StdioClientTransport({ ...params, env: childEnv(params.env) });
}

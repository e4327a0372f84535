/**
 * A raw HTTP/1.1 request over TCP to 127.0.0.1, headers exactly as given (`fetch` sets
 * `Host` itself): the status line's code and the body.
 *
 * @module
 */

/** Send `GET`/`POST` `path` to `127.0.0.1:port` with `headers`; answer status and body. */
export async function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const head = Object.entries({
      ...headers,
      connection: "close",
      "content-length": String(new TextEncoder().encode(body).length),
    }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    await conn.write(new TextEncoder().encode(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`));
    const text = await new Response(conn.readable).text();
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } catch (e) {
    try {
      conn.close();
    } catch { /* closed by the reader */ }
    throw e;
  }
}

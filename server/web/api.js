// shelfmark web page: calling the server's tools. In the web page, POST /api/tools/<name>
// with the bearer token kept in sessionStorage; inside an MCP App (the McpExtApps bundle
// is present), through the host with the App bridge (callServerTool).
const SM = (globalThis.SM ??= {});

/** A tool's structured error (`{ code, message, hint }`) as an exception. */
class ApiError extends Error {
  constructor(error, status) {
    super(error?.message ?? "Request failed");
    this.code = error?.code ?? "ERROR";
    this.hint = error?.hint;
    this.status = status;
    // The whole error body: facts beside the message (a CONFLICT's `current_version`).
    this.details = error;
  }
}
SM.ApiError = ApiError;

const TOKEN_KEY = "shelfmark.token";

/** Take `#token=...` out of the address (kept in this tab only, never sent in a URL). */
function takeToken() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!m) return false;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  const rest = location.hash.slice(1).split("&").filter((p) => !p.startsWith("token=")).join(
    "&",
  );
  history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  return true;
}

function pageApi() {
  takeToken();
  // A token given later in the address of this tab (`#token=...`): taken before the
  // router sees the address (popstate), or on its own (hashchange).
  addEventListener("popstate", () => takeToken());
  addEventListener("hashchange", () => takeToken() && SM.onToken?.());
  const headers = () => {
    const t = sessionStorage.getItem(TOKEN_KEY);
    return t ? { authorization: `Bearer ${t}` } : {};
  };
  async function request(url, init) {
    const r = await fetch(url, { ...init, headers: { ...init?.headers, ...headers() } });
    if (r.status === 401) SM.onUnauthorized?.();
    if (!r.ok) {
      let body;
      try {
        body = await r.json();
      } catch {
        body = { error: { code: `HTTP_${r.status}`, message: r.statusText } };
      }
      throw new ApiError(body.error, r.status);
    }
    return r;
  }
  return {
    mode: "page",
    /** A tool's JSON answer. */
    async call(name, args = {}) {
      const r = await request(`/api/tools/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      return await r.json();
    },
    /** The original file of a document, as a Blob of its content type. */
    async file(docId) {
      return await (await request(`/api/file/${encodeURIComponent(docId)}`)).blob();
    },
    /** What the server allows (`writes`: re-index) and its version. */
    async info() {
      return await (await request("/api/info")).json();
    },
    setToken(t) {
      if (t) sessionStorage.setItem(TOKEN_KEY, t);
      else sessionStorage.removeItem(TOKEN_KEY);
    },
  };
}

function appApi() {
  const { App } = globalThis.McpExtApps;
  const app = new App({ name: "shelfmark-view", version: "1" }, {}, { autoResize: true });
  // What the host sends about the tool call that opened the view, kept until app.js is ready.
  app.ontoolinput = (
    p,
  ) => (SM.onToolInput ? SM.onToolInput(p.arguments ?? {}) : (SM.pendingInput = p.arguments ?? {}));
  app.ontoolresult = (p) => SM.onToolResult?.(p);
  const ready = app.connect();
  ready.catch((e) => console.error("shelfmark view: host connection failed", e));
  return {
    mode: "app",
    async call(name, args = {}) {
      await ready;
      const r = await app.callServerTool({
        name,
        arguments: { ...args, output_format: "json" },
      });
      const body = r.structuredContent ??
        (() => {
          try {
            return JSON.parse(r.content?.[0]?.text ?? "");
          } catch {
            return { error: { code: "ERROR", message: r.content?.[0]?.text ?? "No answer" } };
          }
        })();
      if (r.isError || body.error) throw new ApiError(body.error);
      return body;
    },
    file() {
      return Promise.reject(
        new ApiError({
          code: "NOT_AVAILABLE",
          message: "The original page is shown in the web page (shelfmark serve --http).",
        }),
      );
    },
    info() {
      return Promise.resolve({ writes: false, app: true });
    },
    setToken() {},
  };
}

SM.api = globalThis.McpExtApps ? appApi() : pageApi();

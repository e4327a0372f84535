// shelfmark web page: the router (the address says what is shown: `?q=` results,
// `?doc=ID#L120-160` a document, `?view=browse|recent|tags|status`), the search form,
// the keyboard, and the MCP App's entry (the tool call that opened the view).
const SM = (globalThis.SM ??= {});
const { h } = SM;
const app = SM.api.mode === "app";

/** The current address: `?...` and `#...` (inside an MCP App, kept here, not in the URL). */
let current = app ? "?" : location.search + location.hash;
SM.hash = app ? "" : location.hash;
let renders = 0;

/** Show an address; `replace` keeps the history entry. */
SM.go = (href, replace = false) => {
  const u = new URL(href || "?", "http://x/");
  current = u.search + u.hash;
  SM.hash = u.hash;
  if (!app) {
    const url = (u.search || location.pathname) + u.hash;
    if (replace) history.replaceState(null, "", url);
    else history.pushState(null, "", url);
  }
  scrollTo(0, 0);
  render();
};

/** Change the line range of the address without showing the view again. */
SM.setHash = (hash) => {
  SM.hash = hash;
  current = current.replace(/#.*$/, "") + hash;
  if (!app) history.replaceState(null, "", location.pathname + location.search + hash);
};

/** Show the view of the current address. */
async function render() {
  const id = ++renders;
  const alive = () => id === renders;
  const params = new URLSearchParams(current.replace(/#.*$/, ""));
  const main = document.getElementById("main");
  fillForm(params);
  SM.onRange = undefined;
  const view = params.get("doc")
    ? "doc"
    : params.get("q")
    ? "search"
    : ["browse", "recent", "tags", "status"].includes(params.get("view"))
    ? params.get("view")
    : "home";
  document.body.dataset.view = view;
  document.title = params.get("q") ? `${params.get("q")} · shelfmark` : "shelfmark";
  for (const a of document.querySelectorAll("header nav a")) {
    a.classList.toggle("active", a.dataset.view === view);
  }
  try {
    await SM.views[view](main, params, alive);
  } catch (e) {
    if (alive()) main.replaceChildren(SM.errorBox(e));
  }
}

const form = document.getElementById("search-form");
const FIELDS = ["q", "library", "type", "folder", "after", "before", "mode"];

function fillForm(params) {
  for (const f of FIELDS) {
    const el = form.elements.namedItem(f);
    if (el && document.activeElement !== el) el.value = params.get(f) ?? "";
  }
  const open = FIELDS.slice(1).some((f) => params.get(f));
  if (open) document.getElementById("filters").open = true;
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const p = new URLSearchParams();
  for (const f of FIELDS) {
    const v = form.elements.namedItem(f)?.value.trim();
    if (v) p.set(f, v);
  }
  if (!p.get("q")) return;
  SM.go(`?${p}`);
});

/** The selected result card (arrows move it, Enter opens it). */
SM.selectResult = (i, focus = true) => {
  const cards = [...document.querySelectorAll("#results > .card")];
  if (!cards.length) return;
  i = Math.max(0, Math.min(cards.length - 1, i));
  cards.forEach((c, k) => c.classList.toggle("selected", k === i));
  if (focus) {
    cards[i].focus({ preventScroll: true });
    cards[i].scrollIntoView({ block: "nearest" });
  }
};

document.addEventListener("keydown", (e) => {
  const t = e.target;
  const typing = t instanceof Element && t.closest("input, textarea, select");
  if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    const q = form.elements.namedItem("q");
    q.focus();
    q.select();
    return;
  }
  const cards = [...document.querySelectorAll("#results > .card")];
  if (!cards.length || e.ctrlKey || e.metaKey || e.altKey) return;
  if (typing && t.id !== "q") return;
  const at = cards.findIndex((c) => c.classList.contains("selected"));
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    const into = typing || document.activeElement === document.body;
    SM.selectResult(e.key === "ArrowDown" ? (into && at <= 0 ? 0 : at + 1) : at - 1);
  } else if (e.key === "Enter" && !typing && at >= 0) {
    e.preventDefault();
    SM.go(cards[at].dataset.href);
  }
});

// Links of the page itself are followed without a reload (or any navigation in an App).
document.addEventListener("click", (e) => {
  const a = e.target instanceof Element && e.target.closest("a[data-nav]");
  if (!a || (!app && (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0))) return;
  e.preventDefault();
  SM.go(a.getAttribute("href"));
});
document.addEventListener("click", (e) => {
  const card = e.target instanceof Element && e.target.closest("#results > .card");
  if (card && !e.target.closest("a, summary, button")) SM.go(card.dataset.href);
});
if (!app) {
  addEventListener("popstate", () => {
    const same = location.search === current.replace(/#.*$/, "");
    current = location.search + location.hash;
    SM.hash = location.hash;
    const range = SM.parseRange(location.hash);
    if (same && range && document.body.dataset.view === "doc" && SM.onRange) SM.onRange(range);
    else render();
  });
}

/** The indexing state in the header, polled while a run is in progress. */
let watching = false;
SM.watchIndex = async () => {
  if (watching) return;
  watching = true;
  const el = document.getElementById("indexing");
  try {
    for (;;) {
      const s = await SM.api.call("status", { limit_skipped: 0 });
      const building = s.state === "building";
      el.textContent = building && s.progress
        ? ` indexing ${s.progress.done}/${s.progress.total}`
        : "";
      if (!building) break;
      await new Promise((r) => setTimeout(r, 1500));
    }
  } catch {
    el.textContent = "";
  } finally {
    watching = false;
  }
};

/** Without the token the API answers 401: ask for it (kept in this tab only). */
SM.onUnauthorized = () => {
  const box = document.getElementById("token-box");
  if (!box.hidden) return;
  box.hidden = false;
  box.querySelector("input").focus();
};
/** A token was given: show the view again with it. */
SM.onToken = () => {
  document.getElementById("token-box").hidden = true;
  current = location.search + location.hash;
  SM.hash = location.hash;
  boot();
};
document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = e.target.elements.namedItem("token");
  SM.api.setToken(input.value.trim());
  input.value = "";
  SM.onToken();
});

async function libraries() {
  try {
    const r = await SM.api.call("list_libraries", {});
    const sel = form.elements.namedItem("library");
    const keep = sel.value;
    sel.replaceChildren(
      h("option", { value: "" }, "all libraries"),
      ...r.libraries.map((l) => h("option", { value: l.name }, l.name)),
    );
    sel.value = keep;
  } catch { /* shown by the view */ }
}

// Inside an MCP App: show what the tool that opened the view was asked.
SM.onToolInput = (a) => {
  if (a.query || a.queries?.length) {
    const p = new URLSearchParams({ q: a.query ?? a.queries[0] });
    if (a.library) p.set("library", a.library);
    if (a.doc_types?.length) p.set("type", a.doc_types[0]);
    if (a.path_glob) p.set("folder", a.path_glob);
    if (a.modified_after) p.set("after", a.modified_after);
    if (a.modified_before) p.set("before", a.modified_before);
    if (a.mode) p.set("mode", a.mode);
    SM.go(`?${p}`);
  } else if (a.doc_ids?.length) {
    SM.go(SM.docHref(a.doc_ids[0]));
  } else if (a.doc_id) {
    const from = a.page || a.section ? undefined : a.offset ?? 1;
    SM.go(
      SM.docHref(a.doc_id, {
        from,
        to: from && a.limit ? from + a.limit - 1 : from,
        page: a.page,
        section: a.section,
      }),
    );
  }
};

function boot() {
  libraries();
  SM.watchIndex();
  render();
}

document.body.dataset.mode = SM.api.mode;
boot();
if (SM.pendingInput) SM.onToolInput(SM.pendingInput);

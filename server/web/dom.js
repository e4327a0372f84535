// shelfmark web page: DOM helpers. Every text that comes from a document goes into the
// page as a text node (append, textContent), never as markup.
const SM = (globalThis.SM ??= {});

/**
 * An element: `h("a", { href, class: "x", onclick }, "text", child)`. Strings become text
 * nodes; `on*` attributes become listeners; `dataset` fills data-* attributes.
 */
SM.h = (tag, attrs, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") {
      for (const [dk, dv] of Object.entries(v)) if (dv !== undefined) el.dataset[dk] = String(dv);
    } else if (k === "value" || k === "checked" || k === "selected") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
  return el;
};

/** A number as people read it. */
SM.n = (x) => (typeof x === "number" ? x.toLocaleString("en-US") : String(x ?? ""));

/** A size in bytes as people read it. */
SM.bytes = (size) => {
  if (typeof size !== "number") return "";
  if (size < 1024) return `${size} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = size / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
};

/** The date of an RFC 3339 time. */
SM.day = (iso) => (typeof iso === "string" ? iso.slice(0, 10) : "");

/** The words of a search query worth highlighting (no operators, no excluded words). */
SM.termsOf = (query) => {
  const out = new Set();
  for (const raw of String(query ?? "").split(/[\s|]+/)) {
    if (!raw || raw.startsWith("-")) continue;
    const w = raw.replace(/^[+"(]+|[")]+$/g, "").replace(/["]/g, "").toLowerCase();
    if (w && !/^(and|or|not)$/i.test(w)) out.add(w);
  }
  return [...out];
};

/** A regular expression matching the terms at the start of a word, or null. */
SM.termRegex = (terms) => {
  if (!terms.length) return null;
  const esc = terms.sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${esc.join("|")})`, "giu");
};

/** Text with the matches of `re` in `<mark>`, as a fragment of text nodes. */
SM.marked = (text, re) => {
  const frag = document.createDocumentFragment();
  const s = String(text ?? "");
  if (!re) {
    frag.append(s);
    return frag;
  }
  let at = 0;
  re.lastIndex = 0;
  for (const m of s.matchAll(re)) {
    if (!m[0]) continue;
    if (m.index > at) frag.append(s.slice(at, m.index));
    frag.append(SM.h("mark", {}, m[0]));
    at = m.index + m[0].length;
  }
  if (at < s.length) frag.append(s.slice(at));
  return frag;
};

/** A snippet whose matches are written `**so**`, with the matches in `<mark>`. */
SM.snippet = (s) => {
  const frag = document.createDocumentFragment();
  String(s ?? "").split(/\*\*(.+?)\*\*/g).forEach((part, i) => {
    if (part) frag.append(i % 2 ? SM.h("mark", {}, part) : part);
  });
  return frag;
};

/** The href of a document view: `?doc=ID&q=...&p=3#L120-160`. */
SM.docHref = (docId, o = {}) => {
  const p = new URLSearchParams({ doc: docId });
  if (o.q) p.set("q", o.q);
  if (o.page) p.set("p", String(o.page));
  if (o.section) p.set("section", o.section);
  const range = o.from ? (o.to && o.to !== o.from ? `#L${o.from}-${o.to}` : `#L${o.from}`) : "";
  return `?${p}${range}`;
};

/** `#L120-160` (or `#L120`) as numbers, or null. */
SM.parseRange = (hash) => {
  const m = /^#L(\d+)(?:-L?(\d+))?$/.exec(hash ?? "");
  if (!m) return null;
  const from = Number(m[1]);
  const to = Math.max(from, Number(m[2] ?? m[1]));
  return { from, to };
};

/** A message in place of a view: a failure, with its code and hint. */
SM.errorBox = (e) =>
  SM.h(
    "div",
    { class: "error", role: "alert" },
    SM.h("strong", {}, e?.code ?? "Error"),
    ": ",
    e?.message ?? String(e),
    e?.hint ? SM.h("div", { class: "hint" }, e.hint) : null,
  );

/** Replace the children of `el` (null, undefined and false are left out). */
SM.fill = (el, ...kids) =>
  el.replaceChildren(
    ...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false),
  );

/** `1 document`, `3 documents`. */
SM.count = (x, word) => `${SM.n(x)} ${word}${x === 1 ? "" : "s"}`;

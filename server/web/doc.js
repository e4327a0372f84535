// shelfmark web page: a document — its outline as a tree, the reader with line numbers
// and the search terms highlighted, the original page (PDF, via pdf.js) or image beside
// the text, and its links.
const SM = (globalThis.SM ??= {});
const { h } = SM;
SM.views ??= {};

/** Lines fetched per `read` call (the tool's maximum). */
const CHUNK = 500;
/** Lines shown above the line jumped to. */
const BEFORE = 40;

/** The reader: numbered lines, loaded from `read` a window at a time. */
class Reader {
  constructor(el, docId, total, re) {
    Object.assign(this, { el, docId, total, re, from: 0, to: -1 });
    this.body = h("div", { class: "lines" });
    this.up = h(
      "button",
      { type: "button", class: "more", onclick: () => this.earlier() },
      "Earlier lines",
    );
    this.down = h(
      "button",
      { type: "button", class: "more", onclick: () => this.later() },
      "Later lines",
    );
    SM.fill(el, this.up, this.body, this.down);
    this.body.addEventListener("click", (e) => {
      const a = e.target.closest("a.ln");
      if (!a) return;
      e.preventDefault();
      const n = Number(a.dataset.n);
      const sel = e.shiftKey && this.sel
        ? { from: Math.min(this.sel.from, n), to: Math.max(this.sel.to, n) }
        : { from: n, to: n };
      this.select(sel.from, sel.to);
      SM.setHash(sel.from === sel.to ? `#L${sel.from}` : `#L${sel.from}-${sel.to}`);
    });
    // Later lines load as the end comes into view.
    this.io = new IntersectionObserver((es) => {
      if (es.some((x) => x.isIntersecting) && this.to > 0 && this.to < this.total && !this.busy) {
        this.later();
      }
    }, { root: el });
    this.io.observe(this.down);
  }
  row(l) {
    return h(
      "div",
      { class: "line", id: `L${l.n}`, dataset: { n: l.n } },
      h("a", { class: "ln", href: `#L${l.n}`, dataset: { n: l.n } }, String(l.n)),
      h("span", { class: "tx" }, SM.marked(l.text, this.re)),
    );
  }
  async read(offset) {
    const r = await SM.api.call("read", { doc_id: this.docId, offset, limit: CHUNK });
    this.total = r.total_lines;
    return r.lines;
  }
  buttons() {
    this.up.hidden = this.from <= 1;
    this.down.hidden = this.to >= this.total;
  }
  /** Show line `line` at the top (loading its window when needed) and select to `end`. */
  async show(line, end = line) {
    line = Math.max(1, Math.min(line, Math.max(1, this.total)));
    if (!(line >= this.from && line <= this.to)) {
      this.busy = true;
      const start = Math.max(1, line - BEFORE);
      const lines = await this.read(start);
      this.body.replaceChildren(...lines.map((l) => this.row(l)));
      this.from = start;
      this.to = start + lines.length - 1;
      this.buttons();
      this.busy = false;
    }
    this.select(line, end);
    const el = this.body.querySelector(`#L${line}`);
    if (el) this.el.scrollTop = el.offsetTop - 8; // the reader is the offset parent
  }
  select(from, to) {
    this.sel = { from, to };
    for (const x of this.body.querySelectorAll(".line.sel")) x.classList.remove("sel");
    for (let n = from; n <= to && n <= this.to; n++) {
      this.body.querySelector(`#L${n}`)?.classList.add("sel");
    }
  }
  async later() {
    if (this.to >= this.total || this.busy) return;
    this.busy = true;
    const lines = await this.read(this.to + 1);
    this.body.append(...lines.map((l) => this.row(l)));
    this.to += lines.length;
    this.buttons();
    this.busy = false;
  }
  async earlier() {
    if (this.from <= 1 || this.busy) return;
    this.busy = true;
    const start = Math.max(1, this.from - CHUNK);
    const lines = (await this.read(start)).filter((l) => l.n < this.from);
    const before = this.body.scrollHeight;
    this.body.prepend(...lines.map((l) => this.row(l)));
    this.el.scrollTop += this.body.scrollHeight - before;
    this.from = start;
    this.buttons();
    this.busy = false;
  }
}

/** The outline as nested lists of buttons; a click jumps to the section. */
function tree(nodes, jump) {
  return h(
    "ul",
    {},
    nodes.map((n) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "node",
            title: n.summary ?? "",
            dataset: { from: n.start_line, to: n.end_line, page: n.page, id: n.id },
            onclick: () => jump(n.start_line, n.end_line, n.page),
          },
          h("span", { class: "nid" }, n.id),
          " ",
          n.title,
          h("span", { class: "nl" }, n.page ? ` p.${n.page}` : ` L${n.start_line}`),
        ),
        n.children?.length ? tree(n.children, jump) : null,
      )
    ),
  );
}

/** Every node of an outline, depth first. */
function flat(nodes, out = []) {
  for (const n of nodes ?? []) {
    out.push(n);
    flat(n.children, out);
  }
  return out;
}

/** The page of a line, from the outline's nodes that carry pages. */
function pageOf(nodes, line) {
  let best;
  for (const n of flat(nodes)) {
    if (n.page && n.start_line <= line && (!best || n.start_line >= best.start_line)) best = n;
  }
  return best?.page;
}

/** Mark the outline's deepest section holding `line`, and bring it into view. */
function here(main, line) {
  let best;
  for (const b of main.querySelectorAll("#outline .node")) {
    b.classList.remove("here");
    if (Number(b.dataset.from) <= line && line <= Number(b.dataset.to)) best = b;
  }
  if (!best) return;
  best.classList.add("here");
  // Scroll the outline only (scrollIntoView would move the whole page too).
  const box = main.querySelector("#outline");
  const top = best.offsetTop;
  if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - best.offsetHeight) {
    box.scrollTop = top - box.clientHeight / 3;
  }
}

let pdfjs;
/** pdf.js, loaded on first use from the server's copy of pdfjs-dist. */
async function loadPdfjs() {
  if (!pdfjs) {
    pdfjs = await import("/web/pdfjs/build/pdf.min.mjs");
    pdfjs.GlobalWorkerOptions.workerSrc = "/web/pdfjs/build/pdf.worker.min.mjs";
  }
  return pdfjs;
}

/** The original PDF page, rendered on a canvas, with page buttons. */
class PdfPane {
  constructor(el, docId, onPage) {
    Object.assign(this, { el, docId, onPage, page: 0 });
    this.canvas = h("canvas", { class: "page", "aria-label": "PDF page" });
    this.label = h("span", { class: "muted" }, "");
    SM.fill(
      el,
      h(
        "div",
        { class: "pager" },
        h("button", { type: "button", onclick: () => this.go(this.page - 1) }, "‹ Page"),
        this.label,
        h("button", { type: "button", onclick: () => this.go(this.page + 1) }, "Page ›"),
      ),
      this.canvas,
    );
  }
  async go(n) {
    if (!this.pdf || n < 1 || n > this.pdf.numPages) return;
    await this.show(n);
    this.onPage?.(n);
  }
  async show(n) {
    const lib = await loadPdfjs();
    if (!this.pdf) {
      const blob = await SM.api.file(this.docId);
      this.pdf = await lib.getDocument({
        data: new Uint8Array(await blob.arrayBuffer()),
        standardFontDataUrl: "/web/pdfjs/standard_fonts/",
        cMapUrl: "/web/pdfjs/cmaps/",
        wasmUrl: "/web/pdfjs/wasm/",
      }).promise;
    }
    n = Math.max(1, Math.min(n, this.pdf.numPages));
    this.page = n;
    this.label.textContent = ` ${n} / ${this.pdf.numPages} `;
    const page = await this.pdf.getPage(n);
    const width = Math.max(240, this.el.clientWidth - 4);
    const base = page.getViewport({ scale: 1 });
    const ratio = globalThis.devicePixelRatio || 1;
    const viewport = page.getViewport({ scale: (width / base.width) * ratio });
    this.task?.cancel();
    this.canvas.width = Math.floor(viewport.width);
    this.canvas.height = Math.floor(viewport.height);
    this.canvas.style.width = `${Math.floor(viewport.width / ratio)}px`;
    this.task = page.render({ canvas: this.canvas, viewport });
    try {
      await this.task.promise;
      this.canvas.dataset.rendered = String(n);
    } catch (e) {
      if (e?.name !== "RenderingCancelledException") throw e;
    }
  }
}

/** A document's links: where it points, and who points at it. */
async function linksOf(el, docId, q, alive, jump) {
  let r;
  try {
    r = await SM.api.call("links", { doc_id: docId, direction: "both", limit: 100 });
  } catch (e) {
    if (alive()) SM.fill(el, h("h3", {}, "Links"), SM.errorBox(e));
    return;
  }
  if (!alive()) return;
  const out = r.outgoing?.items ?? [];
  const inc = r.incoming?.items ?? [];
  const at = (line) =>
    h("button", { type: "button", class: "lnk", onclick: () => jump(line, line) }, `L${line}`);
  SM.fill(
    el,
    h("h3", {}, `Links out (${SM.n(r.outgoing?.total ?? 0)})`),
    out.length
      ? h(
        "ul",
        { class: "links" },
        out.map((l) =>
          h(
            "li",
            {},
            at(l.line),
            " ",
            h("span", { class: "ltext" }, l.text || l.target),
            " → ",
            l.doc_id
              ? h("a", { href: SM.docHref(l.doc_id, { q }), "data-nav": "" }, l.path ?? l.target)
              : h("span", { class: `kind ${l.kind}` }, l.path ?? l.target),
            l.kind !== "document" ? h("span", { class: "badge" }, l.kind) : null,
          )
        ),
      )
      : h("p", { class: "muted" }, "None."),
    h("h3", {}, `Backlinks (${SM.n(r.incoming?.total ?? 0)})`),
    inc.length
      ? h(
        "ul",
        { class: "links" },
        inc.map((l) =>
          h(
            "li",
            {},
            h("a", { href: SM.docHref(l.doc_id, { q, from: l.line }), "data-nav": "" }, l.path),
            ` L${l.line} `,
            h("span", { class: "ltext" }, l.text),
          )
        ),
      )
      : h("p", { class: "muted" }, "None."),
  );
}

/** A git library's commits that touched the document (shown only for git libraries). */
async function historyOf(el, docId, library, alive) {
  const info = await SM.api.info().catch(() => ({}));
  if (!alive() || !info.git?.includes(library)) return;
  el.hidden = false;
  let r;
  try {
    r = await SM.api.call("history", { doc_id: docId, limit: 10 });
  } catch (e) {
    if (alive()) SM.fill(el, h("h3", {}, "History"), SM.errorBox(e));
    return;
  }
  if (!alive()) return;
  SM.fill(
    el,
    h("h3", {}, "History"),
    r.commits.length
      ? h(
        "ul",
        { class: "links" },
        r.commits.map((c) =>
          h(
            "li",
            {},
            h("code", { title: c.commit }, c.commit.slice(0, 8)),
            ` ${SM.day(c.date)} ${c.author}: `,
            h("span", { class: "ltext" }, c.subject),
          )
        ),
      )
      : h("p", { class: "muted" }, "No commits."),
    r.next_offset !== null ? h("p", { class: "muted" }, "Older commits: history tool.") : null,
  );
}

SM.views.doc = async (main, params, alive) => {
  const arg = params.get("doc");
  const q = params.get("q") ?? "";
  const ol = await SM.api.call("outline", { doc_ids: [arg], max_tokens: 50000 });
  if (!alive()) return;
  const d = ol.documents[0];
  const id = d.doc_id;
  const re = SM.termRegex(SM.termsOf(q));
  const readerEl = h("section", { class: "reader", id: "reader", tabindex: "0" });
  const origEl = h("aside", { class: "original", id: "original" });
  const linksEl = h(
    "section",
    { class: "doclinks", id: "links" },
    h("p", { class: "muted" }, "Links…"),
  );
  const historyEl = h("section", { class: "doclinks", id: "history", hidden: true });
  const paged = d.doc_type === "pdf";
  const image = d.doc_type === "image";
  let pane;
  const jump = async (from, to, page) => {
    SM.setHash(from === to ? `#L${from}` : `#L${from}-${to}`);
    await reader.show(from, to);
    here(main, from);
    const p = page ?? pageOf(d.nodes, from);
    if (pane && p && p !== pane.page) pane.show(p).catch(() => {});
  };
  SM.fill(
    main,
    h(
      "header",
      { class: "dochead" },
      h("h2", {}, d.title || d.path),
      h(
        "div",
        { class: "meta" },
        [
          d.path,
          d.doc_type,
          `${SM.n(d.total_lines)} lines`,
          d.page_count ? `${d.page_count} ${d.page_count === 1 ? "page" : "pages"}` : "",
          SM.bytes(d.size),
          SM.day(d.modified_at),
        ].filter(Boolean).join(" · "),
      ),
      q
        ? h(
          "div",
          { class: "meta" },
          "Highlighted: ",
          q,
          " · ",
          h("a", { href: `?${new URLSearchParams({ q })}`, "data-nav": "" }, "back to results"),
        )
        : null,
    ),
    h(
      "div",
      { class: `docgrid${paged || image ? " with-original" : ""}` },
      h(
        "nav",
        { class: "outline", id: "outline", "aria-label": "Outline" },
        d.nodes?.length ? tree(d.nodes, jump) : h("p", { class: "muted" }, "No outline."),
      ),
      readerEl,
      paged || image ? origEl : null,
    ),
    linksEl,
    historyEl,
  );
  SM.offerEdit?.(main.querySelector(".dochead"), d, alive);
  const reader = new Reader(readerEl, id, d.total_lines, re);
  document.title = `${d.title || d.path} · shelfmark`;
  // A new line range in the address of this document jumps without loading it again.
  SM.onRange = (r) => jump(r.from, r.to);
  // Where to start: the line range of the address, a section, a page, or the top.
  let range = SM.parseRange(SM.hash);
  let page = Number(params.get("p")) || undefined;
  const section = params.get("section");
  if (!range && (section || page)) {
    const r = await SM.api.call(
      "read",
      section ? { doc_id: id, section, limit: 1 } : { doc_id: id, page, limit: 1 },
    )
      .catch(() => null);
    if (r) {
      const node = flat(d.nodes).find((n) => n.start_line === r.offset);
      range = { from: r.offset, to: node?.end_line ?? r.offset };
    }
  }
  await reader.show(range?.from ?? 1, range?.to ?? range?.from ?? 1);
  if (!alive()) return;
  if (range) here(main, range.from);
  if (paged) {
    pane = new PdfPane(origEl, id, async (n) => {
      const r = await SM.api.call("read", { doc_id: id, page: n, limit: 1 });
      SM.setHash(`#L${r.offset}`);
      await reader.show(r.offset);
    });
    page ??= range ? pageOf(d.nodes, range.from) : undefined;
    pane.show(page ?? 1).catch((e) => SM.fill(origEl, SM.errorBox(e)));
  } else if (image) {
    SM.api.file(id).then((blob) => {
      if (!alive()) return;
      SM.fill(
        origEl,
        h("img", { class: "scan", src: URL.createObjectURL(blob), alt: d.title || d.path }),
      );
    }).catch((e) => SM.fill(origEl, SM.errorBox(e)));
  }
  linksOf(linksEl, id, q, alive, jump);
  historyOf(historyEl, id, d.path.split("/")[0], alive);
};

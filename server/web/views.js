// shelfmark web page: the views other than a document's — search results, folders,
// recent documents, tags, and the index status.
const SM = (globalThis.SM ??= {});
const { h } = SM;
SM.views ??= {};

/** The arguments of `search` from the page's address (`q`, `library`, `type`, ...). */
SM.searchArgs = (params) => {
  const a = { query: params.get("q"), limit: 30, limit_passages: 1 };
  const lib = params.get("library");
  if (lib) a.library = lib;
  const type = params.get("type");
  if (type) a.doc_types = [type];
  const folder = params.get("folder");
  if (folder) a.path_glob = /[*?[]/.test(folder) ? folder : `${folder.replace(/\/+$/, "")}/*`;
  if (params.get("after")) a.modified_after = params.get("after");
  if (params.get("before")) a.modified_before = params.get("before");
  if (params.get("mode")) a.mode = params.get("mode");
  // From the tags view: only documents whose front-matter field holds the value.
  if (params.get("field") && params.get("value")) {
    a.filters = { [params.get("field")]: params.get("value") };
  }
  return a;
};

/** One line about a listed document: path, type, lines, size, date. */
function docMeta(d) {
  return [
    d.path,
    d.doc_type,
    `${SM.n(d.total_lines)} lines`,
    SM.bytes(d.size),
    SM.day(d.modified_at),
  ]
    .filter(Boolean).join(" · ");
}

/** A list of documents (browse, recent): title linked to its view, then its card line. */
function docList(docs, label) {
  return h(
    "ul",
    { class: "docs" },
    docs.map((d) =>
      h(
        "li",
        {},
        h(
          "a",
          { href: SM.docHref(d.doc_id), "data-nav": "" },
          label ? label(d) : d.title || d.path,
        ),
        label && d.title && d.title !== label(d)
          ? h("span", { class: "dtitle" }, ` — ${d.title}`)
          : null,
        h("div", { class: "meta" }, docMeta(d)),
      )
    ),
  );
}

/** A search result as a card: title, path, where the best passage is, its snippet, copies. */
function card(hit, q, i) {
  const p = hit.passages?.[0];
  const href = SM.docHref(hit.doc_id, { q, page: p?.page, from: p?.start_line, to: p?.end_line });
  const copies = hit.copies ?? [];
  return h(
    "li",
    { class: "card", tabindex: "-1", dataset: { href, index: i } },
    h("a", { class: "title", href, "data-nav": "" }, hit.title || hit.path),
    h(
      "div",
      { class: "meta" },
      [hit.path, hit.doc_type, `${SM.n(hit.total_lines)} lines`, SM.day(hit.modified_at)].join(
        " · ",
      ),
      copies.length
        ? h(
          "span",
          { class: "badge" },
          `+${copies.length} ${copies.length === 1 ? "copy" : "copies"}`,
        )
        : null,
    ),
    p
      ? h(
        "div",
        { class: "where" },
        `L${p.start_line}-${p.end_line}`,
        p.page ? ` · page ${p.page}` : "",
        p.node_id ? ` · §${p.node_id} ${p.title ?? ""}` : "",
      )
      : null,
    h("p", { class: "snippet" }, SM.snippet(p?.snippet ?? hit.snippet)),
    copies.length
      ? h(
        "details",
        { class: "copies" },
        h("summary", {}, "Same text also at"),
        h(
          "ul",
          {},
          copies.map((c) =>
            h(
              "li",
              {},
              h("a", { href: SM.docHref(c.doc_id, { q }), "data-nav": "" }, c.path),
              " (copy)",
            )
          ),
        ),
      )
      : null,
  );
}

SM.views.search = async (main, params, alive) => {
  const q = params.get("q") ?? "";
  SM.fill(main, h("p", { class: "muted" }, "Searching…"));
  const r = await SM.api.call("search", SM.searchArgs(params));
  if (!alive()) return;
  const head = h(
    "p",
    { class: "summary" },
    `${r.results.length} ${r.results.length === 1 ? "document" : "documents"} for “`,
    q,
    `”, mode ${r.mode_used}`,
    r.note ? ` (${r.note})` : "",
  );
  if (!r.results.length) {
    SM.fill(main, head, h("p", { class: "muted" }, "Try other words or fewer filters."));
    return;
  }
  SM.fill(
    main,
    head,
    h("ol", { id: "results", class: "results" }, r.results.map((hit, i) => card(hit, q, i))),
  );
  SM.selectResult(0, false);
};

SM.views.home = async (main, _params, alive) => {
  SM.fill(
    main,
    h("h2", {}, "Search your libraries"),
    h("p", { class: "muted" }, "Press / to search, ↑ ↓ to move through results, Enter to open."),
  );
  const [libs, recent] = await Promise.all([
    SM.api.call("list_libraries", {}),
    SM.api.call("recent", { limit: 10 }).catch(() => null),
  ]);
  if (!alive()) return;
  main.append(
    h("h3", {}, "Libraries"),
    h(
      "ul",
      { class: "docs" },
      libs.libraries.map((l) =>
        h(
          "li",
          {},
          h("a", {
            href: `?${new URLSearchParams({ view: "browse", path: l.name })}`,
            "data-nav": "",
          }, l.name),
          ` — ${SM.count(l.document_count, "document")}`,
          l.description ? ` · ${l.description}` : "",
        )
      ),
    ),
  );
  if (recent?.documents?.length) main.append(h("h3", {}, "Recent"), docList(recent.documents));
};

SM.views.browse = async (main, params, alive, offset = 0) => {
  const path = params.get("path") || undefined;
  const r = await SM.api.call("browse", { path, limit: 200, offset });
  if (!alive()) return;
  const crumbs = [h("a", { href: "?view=browse", "data-nav": "" }, "Libraries")];
  const parts = (r.path ?? "").split("/").filter(Boolean);
  parts.forEach((part, i) => {
    const p = parts.slice(0, i + 1).join("/");
    crumbs.push(
      " / ",
      h(
        "a",
        { href: `?${new URLSearchParams({ view: "browse", path: p })}`, "data-nav": "" },
        part,
      ),
    );
  });
  const list = h(
    "ul",
    { class: "docs folders" },
    r.folders.map((f) =>
      h(
        "li",
        { class: "folder" },
        h("a", {
          href: `?${new URLSearchParams({ view: "browse", path: f.path })}`,
          "data-nav": "",
        }, `${f.name}/`),
        ` — ${SM.count(f.documents, "document")}`,
        f.folders ? `, ${SM.count(f.folders, "folder")}` : "",
        f.description ? ` · ${f.description}` : "",
      )
    ),
  );
  const docs = docList(r.documents, (d) => d.name);
  const more = r.next_offset !== undefined
    ? h("button", {
      type: "button",
      onclick: () => SM.views.browse(main, params, alive, r.next_offset),
    }, "More")
    : null;
  SM.fill(
    main,
    h("nav", { class: "crumbs" }, crumbs),
    h(
      "p",
      { class: "summary" },
      r.path === null
        ? `${SM.n(r.total_folders)} ${r.total_folders === 1 ? "library" : "libraries"}`
        : `${SM.count(r.total_folders, "folder")}, ${SM.count(r.total_documents, "document")}`,
    ),
    r.note ? h("p", { class: "muted" }, r.note) : null,
    list,
    docs,
    more,
  );
};

SM.views.recent = async (main, _params, alive) => {
  const r = await SM.api.call("recent", { limit: 50 });
  if (!alive()) return;
  SM.fill(main, h("h2", {}, "Recently modified"), docList(r.documents));
};

SM.views.tags = async (main, params, alive) => {
  const field = params.get("field") || "tags";
  let r;
  try {
    r = await SM.api.call("list_tags", { field, limit: 500 });
  } catch (e) {
    if (!alive()) return;
    SM.fill(main, h("h2", {}, "Tags"), SM.errorBox(e));
    return;
  }
  if (!alive()) return;
  SM.fill(
    main,
    h("h2", {}, `Values of ${r.field}`),
    r.values.length
      ? h(
        "ul",
        { class: "tags" },
        r.values.map((v) =>
          h(
            "li",
            {},
            h("a", {
              href: `?${new URLSearchParams({ q: v.value, field: r.field, value: v.value })}`,
              "data-nav": "",
            }, v.value),
            h("span", { class: "count" }, SM.n(v.documents)),
          )
        ),
      )
      : h("p", { class: "muted" }, `No document has a ${r.field} value.`),
  );
};

/** Key and value rows. */
function table(rows) {
  return h(
    "table",
    { class: "kv" },
    rows.filter((r) => r[1] !== undefined && r[1] !== null && r[1] !== "").map(([k, v]) =>
      h("tr", {}, h("th", {}, k), h("td", {}, v))
    ),
  );
}

/**
 * Documents the time limit cut short (status lists the first few): where each stopped, and
 * what the next index run does with it. One whose retry was stopped is listed here, not
 * among the skipped files.
 */
function partialList(s) {
  const docs = s.partial ?? [];
  const next = (d) =>
    d.stopped
      ? `its retry with more time was stopped: ${d.stopped}`
      : d.retry
      ? "extracted again with more time by the next index run"
      : "cut at the most time: not again until the file changes";
  return [
    h("h3", {}, `Extracted in part, time limit (${SM.n(s.partial_count ?? 0)})`),
    docs.length
      ? h(
        "table",
        { class: "skipped partial" },
        h("tr", {}, h("th", {}, "File"), h("th", {}, "Where it stopped"), h("th", {}, "Next")),
        docs.map((d) =>
          h(
            "tr",
            {},
            h("td", {}, d.path),
            h("td", {}, d.warnings.join("; ") || d.partial),
            h("td", {}, next(d)),
          )
        ),
      )
      : h("p", { class: "muted" }, "None."),
    s.partial_count > docs.length
      ? h(
        "p",
        { class: "muted" },
        `… ${SM.n(s.partial_count - docs.length)} more (shelfmark status lists them)`,
      )
      : null,
  ];
}

SM.views.status = async (main, _params, alive) => {
  const info = await SM.api.info().catch(() => ({ writes: false }));
  let skippedLimit = 100;
  const draw = async () => {
    const s = await SM.api.call("status", { limit_skipped: skippedLimit });
    if (!alive()) return;
    const v = s.vectors ?? {};
    const building = s.state === "building";
    const prog = building && s.progress
      ? h(
        "div",
        { class: "progress" },
        h("progress", { max: s.progress.total || 1, value: s.progress.done }),
        ` ${SM.n(s.progress.done)} of ${SM.n(s.progress.total)} files`,
        s.progress.current ? h("div", { class: "muted" }, s.progress.current) : null,
      )
      : null;
    const reindex = info.writes
      ? h(
        "p",
        {},
        h("button", {
          type: "button",
          id: "reindex",
          onclick: async (e) => {
            e.target.disabled = true;
            const full = main.querySelector("#full")?.checked ?? false;
            await SM.api.call("reindex", { full }).catch((err) => main.prepend(SM.errorBox(err)));
            SM.watchIndex();
            setTimeout(draw, 300);
          },
        }, "Re-index"),
        h("label", {}, " ", h("input", { type: "checkbox", id: "full" }), " every file (full)"),
      )
      : null;
    SM.fill(
      main,
      h("h2", {}, "Index status"),
      table([
        ["State", s.state],
        ["Documents", `${SM.n(s.documents_indexed)} of ${SM.n(s.documents_total)} indexed`],
        [
          "Search",
          s.search_mode ? `${s.search_mode.default} by default (${s.search_mode.why})` : "",
        ],
        [
          "Vectors",
          [
            v.state,
            v.model,
            v.embedded !== undefined ? `${SM.n(v.embedded)} embedded` : "",
            v.pending ? `${SM.n(v.pending)} pending` : "",
            v.note,
            v.error,
          ].filter(Boolean).join(" · "),
        ],
        ["Started", s.started_at],
        // while a run builds, the time shown is the last run's end, not this one's
        [s.state === "building" ? "Last run finished" : "Finished", s.finished_at],
        ["Last error", s.last_error],
      ]),
      prog,
      reindex,
      h("h3", {}, "Libraries"),
      h(
        "ul",
        { class: "docs" },
        s.libraries.map((l) =>
          h(
            "li",
            {},
            h("a", {
              href: `?${new URLSearchParams({ view: "browse", path: l.name })}`,
              "data-nav": "",
            }, l.name),
            ` — ${SM.count(l.documents, "document")}`,
          )
        ),
      ),
      h("h3", {}, `Skipped files (${SM.n(s.skipped_count)})`),
      s.skipped.length
        ? h(
          "table",
          { class: "skipped" },
          h("tr", {}, h("th", {}, "File"), h("th", {}, "Reason"), h("th", {}, "Detail")),
          s.skipped.map((x) =>
            h("tr", {}, h("td", {}, x.path), h("td", {}, x.reason), h("td", {}, x.message ?? ""))
          ),
        )
        : h("p", { class: "muted" }, "None."),
      s.skipped_count > s.skipped.length
        ? h("button", {
          type: "button",
          onclick: () => {
            skippedLimit = 1000;
            draw();
          },
        }, "Show more")
        : null,
      partialList(s),
    );
    // Live while indexing or embedding.
    if (building || v.state === "building" || (v.pending ?? 0) > 0) {
      setTimeout(() => alive() && draw(), 1000);
    }
  };
  await draw();
};

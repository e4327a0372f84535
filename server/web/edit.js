// shelfmark web page: a plain editor for the Markdown files of the libraries where writing
// is enabled (the server has a token and lists them in /api/info). It loads the version
// tag from `read` first and the file's text second, so the tag is never newer than the
// text; saving sends the tag as `if_match`. When the file changed meanwhile, the server
// answers CONFLICT: the text typed stays in the editor, the file as it is now is shown
// beside it, and the person chooses to overwrite it or to start again from it.
const SM = (globalThis.SM ??= {});
const { h } = SM;

/** Markdown documents are edited as their file's text. */
const EDITABLE = new Set(["markdown"]);

/** Libraries where this page may write (asked once). */
let writable;
async function writableLibraries() {
  writable ??= SM.api.info().then((i) => (i.writes ? i.writable ?? [] : []), () => []);
  return await writable;
}

/** The text of a document's file and the version tag `read` gives for it. */
async function load(docId) {
  const r = await SM.api.call("read", { doc_id: docId, limit: 1 });
  const text = await (await SM.api.file(docId)).text();
  return { version: r.version, text };
}

/** Put an "Edit" button in the document's header when its library is writable. */
SM.offerEdit = async (head, d, alive) => {
  if (!EDITABLE.has(d.doc_type)) return;
  const lib = d.path.split("/")[0];
  if (!(await writableLibraries()).includes(lib) || !alive()) return;
  head.append(
    h("button", { type: "button", id: "edit", onclick: () => SM.openEditor(d) }, "Edit"),
  );
};

/** Open the editor over the document view; "Close" shows the document again. */
SM.openEditor = async (d) => {
  const main = document.getElementById("main");
  const status = h("div", { class: "edit-status", id: "edit-status", role: "status" });
  const area = h("textarea", {
    id: "editor",
    class: "editor",
    spellcheck: "false",
    "aria-label": `Text of ${d.path}`,
  });
  const theirs = h("section", { class: "edit-theirs", id: "edit-theirs", hidden: true });
  let version;
  const show = (...kids) => SM.fill(status, ...kids);
  const save = async (ifMatch) => {
    saveBtn.disabled = true;
    show("Saving…");
    try {
      const r = await SM.api.call("write", { path: d.path, text: area.value, if_match: ifMatch });
      version = r.version;
      area.dataset.version = version;
      theirs.hidden = true;
      show(`Saved, version ${version}.`);
    } catch (e) {
      if (e.code === "CONFLICT") conflict(e);
      else show(SM.errorBox(e));
    } finally {
      saveBtn.disabled = false;
    }
  };
  /** The file changed since it was loaded: keep the text typed, show theirs. */
  const conflict = async (e) => {
    const now = e.details?.current_version ?? null;
    show(
      h(
        "div",
        { class: "error", role: "alert" },
        h("strong", {}, "CONFLICT"),
        ": ",
        e.message,
        h("div", { class: "hint" }, "Your text is kept below; the file as it is now is beside it."),
      ),
      now
        ? h(
          "button",
          { type: "button", id: "overwrite", onclick: () => save(now) },
          "Overwrite with my text",
        )
        : null,
      h("button", {
        type: "button",
        id: "take-theirs",
        onclick: async () => {
          const cur = await load(d.doc_id);
          area.value = cur.text;
          version = area.dataset.version = cur.version;
          theirs.hidden = true;
          show(`Started again from version ${version}.`);
        },
      }, "Start again from the file"),
    );
    try {
      const text = await (await SM.api.file(d.doc_id)).text();
      SM.fill(theirs, h("h3", {}, "The file now"), h("pre", { class: "theirs" }, text));
      theirs.hidden = false;
    } catch {
      // the file is gone: the message says so
    }
  };
  const saveBtn = h("button", { type: "button", id: "save", onclick: () => save(version) }, "Save");
  SM.fill(
    main,
    h(
      "header",
      { class: "dochead" },
      h("h2", {}, `Editing ${d.title || d.path}`),
      h("div", { class: "meta" }, d.path),
      h(
        "div",
        { class: "edit-actions" },
        saveBtn,
        h("button", {
          type: "button",
          id: "close-editor",
          onclick: () => SM.go(SM.docHref(d.doc_id), true),
        }, "Close"),
      ),
      status,
    ),
    h("div", { class: "edit-grid" }, area, theirs),
  );
  area.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "s") {
      e.preventDefault();
      save(version);
    }
  });
  try {
    const cur = await load(d.doc_id);
    area.value = cur.text;
    version = area.dataset.version = cur.version;
    show(`Version ${version}.`);
    area.focus();
  } catch (e) {
    show(SM.errorBox(e));
    saveBtn.disabled = true;
  }
};

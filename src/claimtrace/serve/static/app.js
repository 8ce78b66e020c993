// claimtrace review: interaction for the server-rendered pages (no third-party code but vendored htmx).
(function () {
  "use strict";
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  function post(url, body, type) {
    const headers = { "X-CSRF-Token": csrf(), "Accept": "application/json" };
    if (type) headers["Content-Type"] = type;
    return fetch(url, { method: "POST", headers, body, credentials: "same-origin" }).then(async (r) => {
      let data = null;
      try { data = await r.json(); } catch (e) { data = { error: r.status + " " + r.statusText }; }
      if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
      return data;
    });
  }

  function say(msg, bad) {
    const el = document.getElementById("review-status") || document.getElementById("quick-status");
    if (!el) return;
    el.textContent = msg;
    el.classList.toggle("bad", !!bad);
  }

  document.addEventListener("htmx:configRequest", (ev) => { ev.detail.headers["X-CSRF-Token"] = csrf(); });

  // reviewer name: set once per browser (a cookie)
  const rf = document.getElementById("reviewer-form");
  if (rf) rf.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = new URLSearchParams(new FormData(rf));
    post("/reviewer", body, "application/x-www-form-urlencoded").then(() => location.reload(),
      (e) => alert(e.message));
  });

  // ---------------------------------------------------------------- paper page
  const paper = document.getElementById("paper");
  let current = null;

  function activate(el, scroll) {
    document.querySelectorAll(".element.active").forEach((e) => e.classList.remove("active"));
    document.querySelectorAll(".hl.active, .box.active").forEach((e) => e.classList.remove("active"));
    if (!el) return;
    current = el;
    el.classList.add("active");
    const dom = el.dataset.dom;
    const marks = Array.from(document.querySelectorAll('[data-els~="' + dom + '"]'));
    marks.forEach((m) => m.classList.add("active"));
    if (scroll !== false && marks.length) {
      marks[0].scrollIntoView({ behavior: "instant", block: "center" });
    }
    el.scrollIntoView({ behavior: "instant", block: "nearest" });
  }

  function elements() { return Array.from(document.querySelectorAll(".cards .element")); }

  function move(step) {
    const els = elements();
    if (!els.length) return;
    let i = current ? els.indexOf(current) : -1;
    i = Math.min(els.length - 1, Math.max(0, i + step));
    els[i].focus({ preventScroll: true });
    activate(els[i]);
  }

  // offset of (node, off) from the start of the paragraph element p, in characters of its text
  function offsetIn(p, node, off) {
    const r = document.createRange();
    r.setStart(p, 0);
    r.setEnd(node, off);
    return r.toString().length;
  }

  function selectedSpan() {
    const sel = window.getSelection();
    if (!sel || sel.isCollapsed || !sel.rangeCount) return null;
    const range = sel.getRangeAt(0);
    const para = (n) => (n.nodeType === 1 ? n : n.parentElement).closest(".para");
    const a = para(range.startContainer), b = para(range.endContainer);
    if (!a || !b || a.dataset.scope !== b.dataset.scope) return null;
    const start = +a.dataset.start + offsetIn(a, range.startContainer, range.startOffset);
    const end = +b.dataset.start + offsetIn(b, range.endContainer, range.endOffset);
    return { scope: a.dataset.scope, start, end, text: range.toString() };
  }

  function decide(el, action, value) {
    const body = JSON.stringify({ item_id: el.dataset.item, action, value: value || null });
    say("saving…");
    return post("/paper/" + paper.dataset.paper + "/decide", body, "application/json").then((d) => {
      const badge = el.querySelector(".state");
      badge.className = "state state-" + d.action;
      badge.textContent = d.action.replace("_", " ") + " by " + d.reviewer + " · " + d.decided_at.slice(0, 16).replace("T", " ");
      say("saved: " + d.action.replace("_", " ") + " " + d.element);
      if (d.action === "correct") location.reload();
      return d;
    }, (e) => { say(e.message, true); });
  }

  function act(el, action) {
    if (!el) return;
    if (action === "correct-span") {
      const span = selectedSpan();
      if (!span) { say("select the text in the paper first (within one part: abstract or body)", true); return; }
      decide(el, "correct", span);
    } else if (action === "edit-stat") {
      const f = el.querySelector(".stat-edit");
      f.hidden = !f.hidden;
      if (!f.hidden) f.querySelector("input").focus();
    } else {
      decide(el, action);
    }
  }

  if (paper) {
    document.querySelectorAll(".cards .element").forEach((el) => {
      el.addEventListener("click", (ev) => {
        const btn = ev.target.closest("button[data-action]");
        if (btn) { activate(el, false); act(el, btn.dataset.action); return; }
        if (ev.target.closest("form, a")) return;
        activate(el);
      });
      el.addEventListener("focus", () => { if (current !== el) activate(el); });
    });
    document.querySelectorAll(".stat-edit").forEach((f) => f.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const value = Object.fromEntries(new FormData(f).entries());
      decide(f.closest(".element"), "correct", value);
    }));
    document.querySelectorAll("[data-goto]").forEach((a) => a.addEventListener("click", (ev) => {
      ev.preventDefault();
      const el = document.querySelector('.element[data-item="' + a.dataset.goto + '"]');
      if (el) { el.focus({ preventScroll: true }); activate(el); }
    }));
    // clicking a highlight in the paper selects its element
    document.querySelectorAll("#paper-view [data-els]").forEach((m) => m.addEventListener("dblclick", () => {
      const dom = m.dataset.els.split(" ")[0];
      const el = document.querySelector('.element[data-dom="' + dom + '"]');
      if (el) { el.focus({ preventScroll: true }); activate(el, false); }
    }));
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (ev.target.closest("input, select, textarea")) return;
      const k = ev.key;
      // a check row takes accept or dismiss only: r and x dismiss it, c does nothing
      const isCheck = current && current.dataset.kind === "check";
      if (k === "j" || k === "n") { move(1); ev.preventDefault(); }
      else if (k === "k" || k === "p") { move(-1); ev.preventDefault(); }
      else if (k === "a") { act(current, "accept"); ev.preventDefault(); }
      else if (k === "r") { act(current, isCheck ? "dismiss" : "reject"); ev.preventDefault(); }
      else if (k === "x") { act(current, isCheck ? "dismiss" : "not_reported"); ev.preventDefault(); }
      else if (k === "c" && !isCheck) { act(current, current && current.dataset.kind === "statistic" ? "edit-stat" : "correct-span"); ev.preventDefault(); }
    });
  }

  // ---------------------------------------------------------------- quick check
  const dz = document.getElementById("dropzone");
  function upload(file) {
    if (!file) return;
    say("checking " + file.name + " …");
    fetch("/quick?name=" + encodeURIComponent(file.name), {
      method: "POST", body: file, credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf(), "Accept": "application/json", "Content-Type": "application/octet-stream" },
    }).then(async (r) => {
      let d = null;
      try { d = await r.json(); } catch (e) { d = { error: "HTTP " + r.status }; }
      if (!r.ok) throw new Error(d.error || ("HTTP " + r.status));
      say("done: opening the paper …");
      location.href = d.url;
    }).catch((e) => say(e.message, true));
  }
  if (dz) {
    ["dragenter", "dragover"].forEach((t) => dz.addEventListener(t, (ev) => { ev.preventDefault(); dz.classList.add("over"); }));
    ["dragleave", "drop"].forEach((t) => dz.addEventListener(t, (ev) => { ev.preventDefault(); dz.classList.remove("over"); }));
    dz.addEventListener("drop", (ev) => upload(ev.dataTransfer.files[0]));
    const input = document.getElementById("quick-file");
    input.addEventListener("change", () => upload(input.files[0]));
  }
})();

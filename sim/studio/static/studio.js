// zonesim studio: the page's one script. It reads inputs, asks the server, and shows the
// numbers the server computed (no arithmetic on them but formatting). Every name and value
// is set with textContent, never as markup.
"use strict";
(function () {
  const config = {scenario: document.body.dataset.scenario};
  const $ = (id) => document.getElementById(id);
  const inputs = () => Array.from(document.querySelectorAll("#inputs [data-base]"));
  const post = (url, body) => fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                           body: JSON.stringify(body)});
  const history = [];
  let source = null, runId = null, last = null, cards = [], checkTimer = null;

  function edits() {
    const out = {};
    for (const el of inputs()) {
      const value = el.value.trim();
      if (value !== el.dataset.base) out[el.name] = value;
    }
    return out;
  }

  function text(el, value) { el.textContent = value; return el; }
  function make(tag, value) { return text(document.createElement(tag), value === undefined ? "" : value); }

  function showEdits() {
    const e = edits();
    for (const el of inputs()) el.classList.toggle("edited", el.name in e);
    const words = Object.entries(e).map(([k, v]) => k + " = " + v);
    text($("edits"), words.length ? "edits: " + words.join("; ") : "no edits: the variant is the baseline");
  }

  function showProblems(problems) {
    const box = $("problems");
    box.replaceChildren();
    for (const el of inputs()) el.classList.remove("invalid");
    for (const cell of document.querySelectorAll(".problem")) cell.textContent = "";
    for (const p of problems) {
      box.appendChild(make("div", p.message));
      const el = inputs().find((x) => x.name === p.key);
      if (el) { el.classList.add("invalid"); el.title = p.message; }
      const cell = Array.from(document.querySelectorAll(".problem")).find((c) => c.dataset.for === p.key);
      if (cell) text(cell, p.message);
    }
  }

  async function check() {
    showEdits();
    const r = await post("/api/validate", {scenario: config.scenario, edits: edits()});
    const body = await r.json();
    showProblems(body.problems || []);
    return body.problems || [];
  }

  function later() { clearTimeout(checkTimer); checkTimer = setTimeout(check, 150); }

  function pct(kind, x) {
    if (x === null || x === undefined) return "-";
    return kind === "proportion" ? (100 * x).toFixed(1) + " %" : x.toFixed(2);
  }
  function signed(kind, x) { const s = pct(kind, x); return x > 0 ? "+" + s : s; }
  function cell(row, side, sign) {
    const f = sign ? signed : pct;
    const td = make("td", f(row.kind, row[side]) + " [" + f(row.kind, row[side + "_low"]) + ", " +
                    f(row.kind, row[side + "_high"]) + "]");
    td.className = side;
    td.dataset.value = row[side]; td.dataset.low = row[side + "_low"]; td.dataset.high = row[side + "_high"];
    return td;
  }

  function axes(row, top) {
    const ns = "http://www.w3.org/2000/svg", w = 220, svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", w); svg.setAttribute("height", 26);
    const x = (v) => 4 + (w - 8) * Math.max(0, Math.min(1, v / top));
    [["baseline", 7, "base"], ["variant", 19, "var"]].forEach(([side, y, cls]) => {
      const line = document.createElementNS(ns, "line");
      line.setAttribute("x1", x(row[side + "_low"])); line.setAttribute("x2", x(row[side + "_high"]));
      line.setAttribute("y1", y); line.setAttribute("y2", y); line.setAttribute("class", "ci " + cls);
      const dot = document.createElementNS(ns, "circle");
      dot.setAttribute("cx", x(row[side] || 0)); dot.setAttribute("cy", y); dot.setAttribute("r", 3.5);
      dot.setAttribute("class", "dot " + cls);
      svg.append(line, dot);
    });
    return svg;
  }

  function showSnapshot(snap) {
    last = snap;
    const body = $("results").tBodies[0];
    body.replaceChildren();
    for (const row of snap.rows) {
      const tr = document.createElement("tr");
      tr.dataset.metric = row.metric;
      const top = row.kind === "proportion" ? 1 : Math.max(row.baseline_high, row.variant_high, 1e-9);
      const chart = document.createElement("td"); chart.appendChild(axes(row, top));
      tr.append(make("th", row.label), cell(row, "baseline"), cell(row, "variant"), cell(row, "diff", true), chart);
      body.appendChild(tr);
    }
    text($("status"), snap.state + ": " + snap.games.toLocaleString("en") + " of " +
         snap.target.toLocaleString("en") + " games per side, " + snap.seconds.toFixed(1) + " s");
    $("status").dataset.state = snap.state; $("status").dataset.games = snap.games;
  }

  function showCards(rows) {
    cards = rows;
    const body = $("cards").tBodies[0];
    body.replaceChildren();
    const byKey = {};
    for (const r of rows) (byKey[r.table + "\u0000" + r.card + "\u0000" + r.metric] ||= {})[r.variant] = r;
    for (const pair of Object.values(byKey)) {
      const b = pair.baseline, v = pair.variant;
      if (!b || !v) continue;
      const share = b.kind === "proportion", unit = share ? " pp" : "";
      const num = (x) => share ? (100 * x).toFixed(1) : x.toFixed(3);
      const f = (r) => pct(b.kind, r.mc) + (r.exact === null ? "" : " (exact " + pct(b.kind, r.exact) + ")");
      const d = (v.diff >= 0 ? "+" : "") + num(v.diff) + unit + " [" + num(v.diff_ci_low) + ", " +
                num(v.diff_ci_high) + "]" + (v.diff_exact === null ? "" : " (exact " + num(v.diff_exact) + ")");
      const tr = document.createElement("tr");
      tr.append(make("th", b.table + ": " + b.card), make("td", b.metric), make("td", f(b)), make("td", f(v)), make("td", d));
      body.appendChild(tr);
    }
  }

  function params(e, seed, games) {
    const q = new URLSearchParams();
    q.set("scenario", config.scenario); q.set("seed", seed); q.set("games", games);
    for (const [k, v] of Object.entries(e)) q.append("e", k + "=" + v);
    return q;
  }

  function finish() {
    if (source) source.close();
    source = null;
    $("start").disabled = false; $("stop").disabled = true;
    if (last) {
      history.push({n: history.length + 1, edits: edits(), seed: $("seed").value, games: $("games").value,
                    snap: last, cards: cards});
      showHistory();
    }
  }

  async function run() {
    const problems = await check();
    if (problems.length) return;
    last = null; cards = [];
    $("results").tBodies[0].replaceChildren(); $("cards").tBodies[0].replaceChildren();
    const r = await post("/api/runs", {scenario: config.scenario, edits: edits(),
                                       seed: Number($("seed").value), games: Number($("games").value)});
    const body = await r.json();
    if (!r.ok) { showProblems(body.problems || []); return; }
    runId = body.run;
    $("start").disabled = true; $("stop").disabled = false;
    text($("status"), "starting...");
    source = new EventSource("/api/runs/" + encodeURIComponent(runId) + "/events");
    source.addEventListener("snapshot", (ev) => showSnapshot(JSON.parse(ev.data)));
    source.addEventListener("cards", (ev) => showCards(JSON.parse(ev.data)));
    source.addEventListener("problem", (ev) => showProblems([JSON.parse(ev.data)].map((p) => ({key: "", message: p.message}))));
    source.addEventListener("end", finish);
    source.onerror = () => { if (source) finish(); };
  }

  async function stop() { if (runId) await post("/api/runs/" + encodeURIComponent(runId) + "/stop", {}); }

  function restore(e, seed, games) {
    for (const el of inputs()) el.value = el.name in e ? e[el.name] : el.dataset.base;
    if (seed !== null) $("seed").value = seed;
    if (games !== null) $("games").value = games;
    check();
  }

  function showHistory() {
    const body = $("history").tBodies[0];
    body.replaceChildren();
    for (const h of history) {
      const tr = document.createElement("tr");
      const win = h.snap.rows[0];
      const pick = document.createElement("input"); pick.type = "checkbox"; pick.dataset.run = h.n;
      pick.addEventListener("change", showPair);
      const back = make("button", "revert"); back.type = "button";
      back.addEventListener("click", () => restore(h.edits, h.seed, h.games));
      const words = Object.entries(h.edits).map(([k, v]) => k + " = " + v).join("; ") || "no edits";
      const a = document.createElement("td"); a.appendChild(pick);
      const b = document.createElement("td"); b.appendChild(back);
      tr.append(a, make("td", "run " + h.n), make("td", words), make("td", "seed " + h.seed + ", " +
                h.snap.games + " games (" + h.snap.state + ")"),
                make("td", win.label + ": " + signed(win.kind, win.diff) + " [" + signed(win.kind, win.diff_low) +
                     ", " + signed(win.kind, win.diff_high) + "]"), b);
      body.appendChild(tr);
    }
  }

  function showPair() {
    const chosen = Array.from(document.querySelectorAll("#history input:checked")).map((x) => history[x.dataset.run - 1]);
    const box = $("pair"); box.replaceChildren();
    if (chosen.length !== 2) return;
    const table = document.createElement("table"); table.className = "results";
    const head = document.createElement("tr");
    head.append(make("th", "metric"), ...chosen.map((h) => make("th", "run " + h.n + " variant")),
                ...chosen.map((h) => make("th", "run " + h.n + " difference")));
    table.appendChild(head);
    chosen[0].snap.rows.forEach((row, i) => {
      const tr = document.createElement("tr");
      tr.append(make("th", row.label), ...chosen.map((h) => cell(h.snap.rows[i], "variant")),
                ...chosen.map((h) => cell(h.snap.rows[i], "diff", true)));
      table.appendChild(tr);
    });
    box.appendChild(table);
  }

  async function share() {
    const q = params(edits(), $("seed").value, $("games").value);
    const url = location.origin + "/?" + q.toString();
    window.history.replaceState(null, "", "/?" + q.toString());
    text($("status"), "this page's URL now restores these inputs: " + url);
    try { await navigator.clipboard.writeText(url); } catch (err) { /* the address bar has it */ }
  }

  async function exportZip() {
    const r = await post("/api/export", {scenario: config.scenario, edits: edits()});
    if (!r.ok) { showProblems((await r.json()).problems || []); return; }
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await r.blob()); link.download = "studio.zip";
    document.body.appendChild(link); link.click(); link.remove();
  }

  // A search in the background (rebalance, best play): its own run, events and Stop.
  function background(url, button, stopButton, status, results) {
    let source = null, id = null;
    const done = () => {
      if (source) source.close();
      source = null;
      $(button).disabled = false; $(stopButton).disabled = true;
    };
    $(stopButton).addEventListener("click", () => id && post("/api/runs/" + encodeURIComponent(id) + "/stop", {}));
    $(button).addEventListener("click", async () => {
      const r = await post(url, body());
      const answer = await r.json();
      if (!r.ok) { showProblems(answer.problems || []); return; }
      id = answer.run;
      $(button).disabled = true; $(stopButton).disabled = false;
      text($(status), "searching...");
      source = new EventSource("/api/runs/" + encodeURIComponent(id) + "/events");
      source.addEventListener("progress", (ev) => text($(status), JSON.parse(ev.data).line));
      for (const [kind, show] of Object.entries(results)) {
        source.addEventListener(kind, (ev) => { show(JSON.parse(ev.data)); text($(status), "done"); });
      }
      source.addEventListener("problem", (ev) => text($(status), JSON.parse(ev.data).message));
      source.addEventListener("end", done);
      source.onerror = () => { if (source) done(); };
    });
  }
  const body = () => ({scenario: config.scenario, edits: edits(), seed: Number($("seed").value),
                       targets: $("targets").value, levers: $("levers").value});

  function showSuggestions(found) {
    const body = $("suggestions").tBodies[0];
    body.replaceChildren();
    if (!found.length) body.appendChild(make("tr")).appendChild(make("td", "no edit set found"));
    for (const s of found) {
      const tr = document.createElement("tr");
      const apply = make("button", "apply"); apply.type = "button";
      apply.addEventListener("click", () => restore(s.edits, null, null));
      const cells = s.cells.map((c) => c.target + ": " + c.verdict).join("; ");
      const b = document.createElement("td"); b.appendChild(apply);
      tr.append(make("td", s.role), make("td", s.label), make("td", cells), b);
      body.appendChild(tr);
    }
  }
  function showBest(sides) {
    const body = $("best-table").tBodies[0];
    body.replaceChildren();
    const cellText = (c) => c ? pct("proportion", c.mc) + " [" + pct("proportion", c.ci_low) + ", " + pct("proportion", c.ci_high) + "]" : "stopped";
    const diffText = (d) => d ? signed("proportion", d.diff) + " [" + signed("proportion", d.diff_ci_low) + ", " + signed("proportion", d.diff_ci_high) + "]" : "stopped";
    for (const s of sides) {
      const tr = document.createElement("tr");
      tr.dataset.side = s.side;
      tr.append(make("th", s.side), make("td", cellText(s.best_play)), make("td", cellText(s.scenario_play)),
                make("td", diffText(s.skill_gap)), make("td", s.best));
      body.appendChild(tr);
    }
  }
  function showReport(done) {
    const box = $("report-done");
    const link = make("a", "report.html");
    link.href = done.url; link.target = "_blank"; link.rel = "noopener";
    box.replaceChildren(make("span", "written: "), link,
                        make("span", " (folder on the server: " + done.folder + ")"));
  }
  async function poll() {
    try {
      const s = await (await fetch("/api/status")).json();
      const steps = s.compile.steps || [];
      const ready = steps.filter((x) => x.state === "ready").length;
      if (s.compile.done) {
        text($("compile"), "kernels ready" + (steps.length ? " (" + steps.length + " compiled or loaded)" : ""));
        $("compile").dataset.done = "1";
        return;
      }
      text($("compile"), "compiling kernels: " + (s.compile.step || "starting") + " (" + ready + " of " + steps.length + " ready)");
    } catch (err) { /* the server is starting */ }
    setTimeout(poll, 500);
  }

  for (const el of inputs()) { el.addEventListener("change", later); el.addEventListener("input", showEdits); }
  $("start").addEventListener("click", run);
  $("stop").addEventListener("click", stop);
  $("share").addEventListener("click", share);
  $("export").addEventListener("click", exportZip);
  background("/api/rebalance", "suggest", "suggest-stop", "suggest-status", {suggestions: showSuggestions});
  background("/api/bestplay", "best", "best-stop", "best-status", {bestplay: showBest});
  background("/api/report", "write-report", "report-stop", "report-status", {report: showReport});
  const q = new URLSearchParams(location.search);
  const given = {};
  for (const pair of q.getAll("e")) { const i = pair.indexOf("="); if (i > 0) given[pair.slice(0, i)] = pair.slice(i + 1); }
  restore(given, q.get("seed"), q.get("games"));
  poll();
})();

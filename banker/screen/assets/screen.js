// The table screen: renders the banker's snapshots (read-only; nothing here moves money).
"use strict";
(function () {
  const query = window.location.search;  // carries the key (?t=...) off loopback
  let lastLine = 0, auctionTimer = null, shown = 0;

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v;
      else if (k === "style") node.style.cssText = v; else node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  }
  function fill(id, nodes) { document.getElementById(id).replaceChildren(...nodes); }
  function dark(hex) {  // text colour on a coloured band: black on light colours, white on dark
    const n = parseInt(hex.slice(1), 16), r = n >> 16, g = (n >> 8) & 255, b = n & 255;
    return (0.299 * r + 0.587 * g + 0.114 * b) < 140;
  }

  function players(snap) {
    fill("players", snap.players.map(p => {
      const badges = [];
      if (p.in_jail) badges.push(el("span", {class: "badge jail", text: "in jail"}));
      if (p.out) badges.push(el("span", {class: "badge out", text: "out of the game"}));
      if (p.debt) badges.push(el("span", {class: "badge debt", text: p.debt}));
      const more = [`${p.streets} street${p.streets === 1 ? "" : "s"}`, `worth ${p.worth_text}`, ...p.items];
      return el("li", {class: "player" + (p.out ? " out" : ""), "data-token": p.token, style: `border-color:${p.colour}`,
                       "aria-label": [`${p.name}: ${p.cash_text}`, ...more, p.in_jail ? "in jail" : null,
                                      p.out ? "out of the game" : null, p.debt].filter(Boolean).join(", ")},
        el("div", {class: "who"}, el("span", {class: "chip", style: `background:${p.colour}`, "aria-hidden": "true"}),
           el("span", {class: "name", text: p.name})),
        el("div", {class: "cash", text: p.cash_text}),
        el("div", {class: "more", text: more.join(" · ")}), ...badges);
    }));
    const x = snap.extras, rows = [];
    const row = (k, v, key) => rows.push(el("div", {"data-extra": key}, el("dt", {text: k}), el("dd", {text: v})));
    if (x.vault) {
      row("Vault", x.vault.cash, "vault");
      row("Vault keys", String(x.vault.keys), "vault-keys");
      row("Vault hotels", String(x.vault.hotels), "vault-hotels");
      if (!x.vault.physical) row("Guessed", x.vault.guessed.length ? x.vault.guessed.join(", ") : "none yet", "guessed");
    }
    if (x.jackpot !== undefined) row("Jackpot", x.jackpot, "jackpot");
    if (x.bank !== undefined) row("Left in the Bank", x.bank, "bank");
    for (const s of x.stakes) row(`${s.name} bets`, s.amount, "stake");
    if (x.debt) row("Debt", x.debt, "debt");
    fill("extras", rows);
  }

  function now(snap) {
    const said = document.getElementById("said"), n = snap.now;
    for (const line of n.lines) {
      if (line.n <= lastLine) continue;
      said.append(el("p", {text: line.text}));
      lastLine = line.n;
    }
    while (said.children.length > 5) said.firstElementChild.remove();
    const q = document.getElementById("question");
    q.hidden = !n.question;
    if (n.question) {
      q.replaceChildren(el("span", {class: "label", text: "Question" + (n.asked.length ? " for " + n.asked.join(", ") : "") + ": "}),
                        el("span", {text: n.question}),
                        n.choices.length ? el("div", {text: "Choices: " + n.choices.join(", ")}) : null);
    }
    const a = document.getElementById("auction");
    a.hidden = !n.auction;
    if (auctionTimer) { clearInterval(auctionTimer); auctionTimer = null; }
    if (n.auction) {
      const au = n.auction, end = performance.now() + au.ends_in * 1000, left = el("span", {class: "left"});
      const tick = () => { left.textContent = Math.max(0, (end - performance.now()) / 1000).toFixed(0) + " s"; };
      tick(); auctionTimer = setInterval(tick, 250);
      a.replaceChildren(el("div", {class: "label", text: `Auction: ${au.street}`}),
        el("div", {class: "bid", text: au.bid ? `${au.bid} by ${au.bidder}` : `no bid yet (opens at ${au.opening})`}),
        el("div", {}, au.final ? "Any final bids? Sold in " : "Sold in about ", left, " without another bid"));
    }
    const r = document.getElementById("round");
    r.hidden = !n.round;
    if (n.round) r.replaceChildren(el("span", {class: "label", text: "Betting round: "}), `${n.round.owner} took the chance`);
  }

  function board(snap) {
    fill("board", snap.board.map(g => el("li", {class: "group", "aria-label": g.group + " set"},
      el("div", {class: "band" + (dark(g.colour) ? " dark" : ""), style: `background:${g.colour}`, text: g.group}),
      el("ul", {}, ...g.streets.map(s => {
        const bits = [];
        if (s.owner) bits.push(s.owner_name); else bits.push(s.locked ? "locked" : `for sale, ${s.price}`);
        if (s.houses) bits.push(`${s.houses} house${s.houses === 1 ? "" : "s"}`);
        if (s.hotels) bits.push(`${s.hotels} hotel${s.hotels === 1 ? "" : "s"}`);
        if (s.mortgaged) bits.push("mortgaged");
        if (s.owner && s.locked) bits.push("locked");
        return el("li", {class: "street" + (s.owner ? " owned" : "") + (s.mortgaged ? " mortgaged" : ""),
                         "data-street": s.name, "data-owner": s.owner || "",
                         style: s.owner_colour ? `border-left-color:${s.owner_colour}` : null},
          el("div", {class: "name", text: s.name}), el("div", {class: "state", text: bits.join(" · ")}));
      })))));
  }

  function hints(snap) {
    fill("say-now", snap.say_now.map(h => el("li", {}, el("q", {text: h.say}), el("span", {text: h.what}))));
  }

  const seen = window.bankerSeen = {};  // when each transaction first showed here (tests measure the delay)
  function log(snap) {
    for (const t of snap.log) if (!(t.seq in seen)) seen[t.seq] = Date.now();
    fill("log", snap.log.map(t => {
      const text = t.undone ? el("del", {text: t.text}) : el("span", {text: t.text});
      return el("li", {class: t.undone ? "undone" : null, "data-seq": String(t.seq), "data-at": String(t.at)},
        t.who ? el("span", {class: "who", text: t.who + ":"}) : null, text,
        t.undone ? el("span", {class: "undone-mark", text: "(undone)"}) : null);
    }));
  }

  function end(snap) {
    const box = document.getElementById("end");
    box.hidden = !snap.end;
    if (!snap.end) return;
    fill("ranking", snap.end.ranking.map(r => el("li", {"data-token": r.token},
      el("span", {class: "place", text: r.place + "."}), " ", `${r.name}: ${r.amount}`)));
    document.getElementById("chart").innerHTML = snap.end.chart;  // built and escaped by the banker
  }

  function render(snap) {
    if (snap.version && snap.version < shown) return;
    shown = snap.version || shown;
    document.getElementById("edition").textContent = snap.edition.name;
    document.title = `${snap.edition.name} – table screen`;
    players(snap); now(snap); board(snap); hints(snap); log(snap); end(snap);
    document.body.dataset.version = String(snap.version);
    document.body.dataset.renderedAt = String(Date.now());  // tests compare it with the journal's commit time
  }

  function connect() {
    const link = document.getElementById("link");
    const source = new EventSource("events" + query);
    source.onopen = () => { link.textContent = "Live"; link.className = ""; };
    source.onmessage = (e) => render(JSON.parse(e.data));
    source.onerror = () => { link.textContent = "The banker is not answering: this is the last state it showed."; link.className = "down"; };
  }
  connect();
  fetch("phones" + query).then(r => r.json()).then(p => {  // the players' address and its QR code
    if (!p.url) return;
    document.getElementById("phones-url").textContent = p.url;
    document.getElementById("phones-url").href = p.url;
    if (p.qr) document.getElementById("phones-qr").src = p.qr; else document.getElementById("phones-qr").hidden = true;
    document.getElementById("phones").hidden = false;
  }).catch(() => {});
})();

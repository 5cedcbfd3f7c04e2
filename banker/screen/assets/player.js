// A player's phone: pick a token, then one big button (the token button) and, from the first
// press on, the phone's microphone (16 kHz mono PCM over the WebSocket, made by pcm-worklet.js).
"use strict";
(function () {
  const query = window.location.search;  // carries the key (?t=...) off loopback
  const TAP_MS = 350, PING_MS = 1000, SILENT_MS = 4000;
  let id = sessionStorage.getItem("banker-phone");
  if (!id) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(9)), b => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("banker-phone", id);
  }
  let ws = null, players = [], view = {mine: null, taken: [], said: ""}, heardAt = 0, retry = 500;
  let mic = "none", streaming = false, downAt = 0, down = false, micStarting = null, shownTokens = "";
  const $ = s => document.getElementById(s);

  function link(text, lost) { const l = $("link"); l.textContent = text; l.classList.toggle("lost", !!lost); }
  function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/phone" + query;
    const sock = ws = new WebSocket(url);
    sock.binaryType = "arraybuffer";
    sock.onopen = () => { retry = 500; heardAt = Date.now(); sock.send(JSON.stringify({hello: id})); link("Connected to the banker."); };
    sock.onmessage = e => { heardAt = Date.now(); handle(JSON.parse(e.data)); };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null; streaming = false; setDown(false);
      link("Connection lost. Reconnecting…", true);
      setTimeout(connect, retry); retry = Math.min(retry * 2, 4000);
    };
  }
  setInterval(() => {
    if (!ws || ws.readyState !== 1) return;
    if (Date.now() - heardAt > SILENT_MS) { ws.close(4000); return; }  // a dead link: start again
    send({ping: Date.now()});
  }, PING_MS);

  function handle(m) {
    if (m.type === "players") players = m.players;
    else if (m.type === "phone") {
      view = m;
      if (!m.streaming) streaming = false;
      $("talk").classList.toggle("listening", !!m.listening);
      $("talk").textContent = m.listening ? "Listening…" : "Press to talk";
    } else if (m.type === "refused") { const r = $("refused"); r.textContent = m.text; r.hidden = false; }
    render();
  }

  function render() {
    const mine = players.find(p => p.token === view.mine);
    $("pick").hidden = !!mine; $("mine").hidden = !mine;
    const shown = JSON.stringify([players.map(p => [p.token, p.name, p.colour]), view.taken]);
    if (shown !== shownTokens) { shownTokens = shown; tokens(); }
    if (!mine) return;
    $("name").textContent = mine.name; $("cash").textContent = mine.cash;
    $("talk").style.background = mine.colour; $("said").textContent = view.said || "";
  }

  function tokens() {  // redrawn only when they change: a finger on one is not pulled away
    $("tokens").replaceChildren(...players.map(p => {
      const taken = view.taken.includes(p.token);
      const li = document.createElement("li");
      li.dataset.token = p.token; li.textContent = p.name; li.style.background = p.colour;
      li.className = taken ? "taken" : ""; li.setAttribute("role", "button");
      li.setAttribute("aria-disabled", taken ? "true" : "false");
      li.onclick = () => { $("refused").hidden = true; send({claim: p.token}); };
      return li;
    }));
  }

  async function openMic() {
    if (!navigator.mediaDevices || !window.AudioWorkletNode) { mic = "off"; send({mic: "off"}); return; }
    mic = "asking"; send({mic: "asking"});
    try {
      const stream = await navigator.mediaDevices.getUserMedia({audio: {channelCount: 1, echoCancellation: true,
        noiseSuppression: false, autoGainControl: true}});
      const ctx = new AudioContext();
      await ctx.audioWorklet.addModule("assets/pcm-worklet.js");
      const node = new AudioWorkletNode(ctx, "pcm-down");
      node.port.onmessage = e => { if (streaming && ws && ws.readyState === 1) ws.send(e.data); };
      ctx.createMediaStreamSource(stream).connect(node);
      if (ctx.state !== "running") await ctx.resume();
      mic = "on"; send({mic: "on"});
    } catch (err) {
      mic = "off"; send({mic: "off"});
      $("hint").textContent = "No microphone: your button still works, and the table's microphone listens.";
    }
  }

  function setDown(d) { down = d; $("talk").classList.toggle("down", d); }
  const talk = $("talk");
  talk.addEventListener("pointerdown", e => {
    e.preventDefault();
    if (!ws || ws.readyState !== 1) return;
    try { talk.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer */ }
    setDown(true); downAt = Date.now();
    if (navigator.vibrate) navigator.vibrate(30);  // felt: the press was taken
    if (mic === "none") micStarting = openMic();  // asked on the first press, not before
    streaming = mic !== "off";
    send({press: true});
  });
  function up() {
    if (!down) return;
    setDown(false);
    if (Date.now() - downAt >= TAP_MS) streaming = false;  // a hold: letting go ends the turn
    send({release: true});
  }
  talk.addEventListener("pointerup", up);
  talk.addEventListener("pointercancel", up);
  talk.addEventListener("contextmenu", e => e.preventDefault());
  $("other").onclick = () => { send({leave: true}); };

  if (location.protocol === "http:" && !["localhost", "127.0.0.1", "[::1]"].includes(location.hostname)) {
    const s = $("secure");
    s.textContent = "This page has no microphone over http. Open the https:// address the banker printed; " +
      "your browser will warn that the banker made its certificate itself: choose Advanced, then Proceed.";
    s.hidden = false;
  } else if (location.protocol === "https:" && !localStorage.getItem("banker-cert-said")) {
    const s = $("secure");
    s.textContent = "You accepted the banker's own certificate: this page is private to your table. " +
      "Next time your browser remembers it.";
    s.hidden = false; localStorage.setItem("banker-cert-said", "1");
  }
  window.bankerPhone = {id, socket: () => ws, mic: () => mic, starting: () => micStarting};
  connect();
})();

// flowjob board: the open page follows training. The server puts
// `window.flowjobLive = {periodMs: ...}` (flowjob board --live-period) in front of this script,
// which index.html loads before TensorBoard's app.
//
// TensorBoard's own "Reload data" setting refuses periods under 30 s (its settings reducer
// clamps them, 2.15 to 2.21), so this script presses the app's reload button
// (app-header-reload button.reload-button, the same action as a user's click) every period
// while the page is visible and no data request of the previous press is still in flight.
// That reload refetches the runs, the plugin list (a page opened before the first event gets
// its dashboards) and the active dashboard's data. Each tick also lets the legacy Scalars
// charts rescale to the new points unless the user zoomed them, the Projector tab reloads
// when its embeddings change, the runs being written are ticked in the run selector while
// TensorBoard ticks none (over 40 or 500 runs) and the user chose none, and a badge at the
// bottom right says the page is live and when data last arrived. The Anomalies tab (an
// iframe) polls at the same period by itself (it reads window.parent.flowjobLive).
(() => {
  const live = (window.flowjobLive = window.flowjobLive || {});
  const periodMs = Math.max(250, Number(live.periodMs) || 2000);
  live.periodMs = periodMs;
  live.lastUpdate = null;  // Date.now() when the last data answer arrived
  live.ticks = 0;

  // TensorBoard's own auto-reload (30 s) stays on as a fallback should the button move.
  const key = "_tb_global_settings";
  try {
    let settings = {};
    try {
      settings = JSON.parse(window.localStorage.getItem(key) || "{}") || {};
    } catch (err) {
      settings = {};  // unreadable: TensorBoard would ignore it too
    }
    settings.autoReload = true;
    window.localStorage.setItem(key, JSON.stringify(settings));
  } catch (err) {
    // localStorage disabled (private mode, policy): the page still reloads through the button.
  }

  // A page opened with no dashboard in its address shows the first dashboard of TensorBoard's
  // plugin list that has data, chosen once, from the first list that has any (its reducer
  // keeps that choice). Opened before the first event, that list can be a partial one: the
  // writer's first records (a projector config, anomaly records, hparams) reach the board
  // before its scalars, so the page would settle on e.g. Anomalies while Time Series fills in.
  // Until the user touches the page, it follows the first dashboard with data of each new
  // list instead: the one TensorBoard would show had the page been opened now.
  const pluginOf = () => window.location.hash.replace(/^#/, "").split(/[&?]/)[0];
  let following = pluginOf() === "";
  for (const type of ["pointerdown", "keydown"]) {
    window.addEventListener(type, (e) => { if (e.isTrusted) following = false; },
                            {capture: true, passive: true});
  }
  function followListing(listing) {
    if (!following || !listing || typeof listing !== "object") return;
    const first = Object.keys(listing).find((id) => listing[id] && listing[id].enabled);
    // (the address names no dashboard until TensorBoard's first pick, which is this one too)
    if (first && pluginOf() !== first) window.location.hash = "#" + first;
  }
  const isListing = (url) => /(^|\/)data\/plugins_listing\b/.test(String(url));

  // Data requests in flight and the time the last one answered (both the Angular app and the
  // Polymer dashboards fetch through XMLHttpRequest; newer code may use fetch).
  let inFlight = 0;
  const isData = (url) => /(^|\/)data\//.test(String(url));
  const answered = (ok) => {
    inFlight = Math.max(0, inFlight - 1);
    if (ok) live.lastUpdate = Date.now();
  };
  const parsed = (xhr) => {
    try {
      return xhr.responseType === "json" ? xhr.response : JSON.parse(xhr.responseText);
    } catch (err) {
      return null;  // not JSON (an error page): nothing to follow
    }
  };
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.__flowjobData = isData(url);
    this.__flowjobListing = isListing(url);
    return open.call(this, method, url, ...rest);
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    if (this.__flowjobData) {
      inFlight += 1;
      this.addEventListener("loadend", () => {
        const ok = this.status >= 200 && this.status < 400;
        answered(ok);
        // after TensorBoard's own handler of this answer (a task later)
        if (ok && this.__flowjobListing) setTimeout(() => followListing(parsed(this)), 0);
      }, {once: true});
    }
    return send.apply(this, args);
  };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function (input, ...rest) {
      const url = typeof input === "string" ? input : input && input.url;
      if (!isData(url)) return fetch0.call(this, input, ...rest);
      inFlight += 1;
      return fetch0.call(this, input, ...rest).then(
        (r) => {
          answered(r.ok);
          if (r.ok && isListing(url)) {
            r.clone().json().then((l) => setTimeout(() => followListing(l), 0), () => {});
          }
          return r;
        },
        (e) => { answered(false); throw e; });
    };
  }

  // Every element below `root`, through open shadow roots (the Polymer dashboards).
  function* deep(root) {
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
      if (node.shadowRoot) stack.push(node.shadowRoot);
      for (let c = node.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
      if (node.nodeType === 1) yield node;
    }
  }

  // Legacy Scalars charts rescale on the first load only; ask for it again on every load
  // unless the user zoomed or panned that chart (a double click fits it and rejoins).
  const LOADER = "TF-LINE-CHART-DATA-LOADER";
  const zoomed = new WeakSet();
  const loaderOf = (event) => event.composedPath().find((n) => n.tagName === LOADER);
  for (const type of ["wheel", "mousedown"]) {
    window.addEventListener(type, (e) => { const l = loaderOf(e); if (l) zoomed.add(l); },
                            {capture: true, passive: true});
  }
  window.addEventListener("dblclick", (e) => { const l = loaderOf(e); if (l) zoomed.delete(l); },
                          {capture: true, passive: true});
  function followData() {
    const dashboards = document.querySelector("tf-scalar-dashboard, tf-custom-scalar-dashboard");
    if (!dashboards) return;
    for (const node of deep(dashboards)) {
      if (node.tagName === LOADER && !zoomed.has(node)) node._resetDomainOnNextLoad = true;
    }
  }

  // The Projector tab (an iframe that TensorBoard's reload skips: disable_reload) loads its
  // embeddings once. While it is shown, its run list and each run's config are polled, and
  // the iframe is reloaded when they change (a new embedding or step), so it lists them.
  let projectorSeen = null;  // the last runs + configs, as text
  async function followProjector() {
    if (!/^#projector\b/.test(window.location.hash)) {
      projectorSeen = null;
      return;
    }
    const frame = document.querySelector('iframe[src*="name=projector"]');
    if (!frame) return;
    const get = async (url) => {
      const r = await window.fetch(url, {cache: "no-store"});
      if (!r.ok) throw new Error(`${r.status}`);
      return r.text();
    };
    try {
      const runs = await get("data/plugin/projector/runs");
      const configs = await Promise.all(JSON.parse(runs).map(
        (run) => get("data/plugin/projector/info?run=" + encodeURIComponent(run))));
      const seen = JSON.stringify([runs, configs]);
      if (projectorSeen !== null && seen !== projectorSeen) frame.contentWindow.location.reload();
      projectorSeen = seen;
    } catch (err) {
      // the board is busy or gone: try again next tick
    }
  }

  // TensorBoard ticks no run by default once there are many (Time Series past 500 runs, the
  // legacy dashboards' selector past 40): with 10,000 runs the page would draw nothing. Until
  // the user touches a run selector, the runs being written now (the server's
  // flowjob-live/runs) are ticked in the shown selector, each once, as the user's click would.
  let runsChosen = false;
  const SELECTORS = new Set(["RUNS-SELECTOR", "TF-RUNS-SELECTOR"]);
  for (const type of ["pointerdown", "keydown"]) {
    window.addEventListener(type, (e) => {
      if (e.isTrusted && e.composedPath().some((n) => SELECTORS.has(n.tagName))) {
        runsChosen = true;
      }
    }, {capture: true, passive: true});
  }
  // The first shown element matching `selector` in the document or in a shadow root of it.
  function deepFind(selector) {
    const roots = [document];
    while (roots.length) {
      const r = roots.shift();
      for (const el of r.querySelectorAll(selector)) if (el.getClientRects().length) return el;
      for (const el of r.querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
    }
    return null;
  }
  // The checkbox of `run` in the shown dashboard's run selector, or null.
  let checkboxes = null;  // the legacy run selector's checkbox list last found
  function runCheckbox(run) {
    if ((pluginOf() || "timeseries") === "timeseries") {  // Angular: rows in the light DOM
      for (const row of document.querySelectorAll("runs-selector tb-data-table-content-row")) {
        const name = row.querySelector(".table-column-run");
        if (name && name.textContent.trim() === run) {
          const box = row.querySelector(".table-column-selected input[type=checkbox]");
          // one click (detail 1): TensorBoard's row toggles on that, isolates on a double
          const click = () => box.dispatchEvent(new MouseEvent("click", {
            bubbles: true, cancelable: true, composed: true, view: window, detail: 1}));
          return box && {checked: () => box.checked, click};
        }
      }
      return null;
    }
    if (!checkboxes || !checkboxes.getClientRects().length) {
      checkboxes = deepFind("tf-multi-checkbox");
    }
    const box = checkboxes && checkboxes.shadowRoot &&
      checkboxes.shadowRoot.getElementById("checkbox-" + run);
    return box && {checked: () => Boolean(box.checked), click: () => box.click()};
  }
  const ticked = new Map();  // plugin -> the runs ticked (or found ticked) there
  let runsAsked = false;
  async function followRuns() {
    if (runsChosen || runsAsked) return;
    runsAsked = true;
    try {
      const r = await fetch0.call(window, "flowjob-live/runs", {cache: "no-store"});
      if (!r.ok) return;  // an older server, or not `flowjob board`: nothing to follow
      const {runs} = await r.json();
      const plugin = pluginOf() || "timeseries";
      const done = ticked.get(plugin) || new Set();
      ticked.set(plugin, done);
      for (const run of runs) {
        if (done.has(run) || runsChosen) continue;
        const box = runCheckbox(run);
        if (!box) continue;  // not listed yet: next tick
        if (!box.checked()) box.click();
        done.add(run);
      }
    } catch (err) {
      // the board is busy or gone: try again next tick
    } finally {
      runsAsked = false;
    }
  }

  let badge = null;
  const time = (ms) => new Date(ms).toLocaleTimeString([], {hour12: false});
  function showBadge() {
    if (!document.body) return;
    if (!badge || !badge.isConnected) {
      badge = document.createElement("div");
      badge.id = "flowjob-live";
      badge.setAttribute("role", "status");
      badge.style.cssText =
        "position:fixed;right:12px;bottom:10px;z-index:10000;padding:3px 9px;" +
        "border-radius:11px;font:12px Roboto,sans-serif;background:rgba(255,255,255,.92);" +
        "color:#333;box-shadow:0 1px 3px rgba(0,0,0,.3);pointer-events:none";
      document.body.append(badge);
    }
    const stale = live.lastUpdate !== null && Date.now() - live.lastUpdate > 3 * periodMs + 5000;
    const dot = `<span style="color:${stale ? "#e8710a" : "#1e8e3e"}">\u25cf</span>`;
    const when = live.lastUpdate === null ? "waiting for data" : `updated ${time(live.lastUpdate)}`;
    badge.innerHTML = `${dot} Live (every ${periodMs / 1000} s) \u00b7 ${when}`;
    badge.title = "flowjob board reloads this page's data by itself (--live-period)";
  }

  let pressed = 0;  // Date.now() of the last press
  function tick() {
    live.ticks += 1;
    // A request that never ends must not stop the page for good: press again after a while.
    const idle = inFlight === 0 || Date.now() - pressed > Math.max(30000, 10 * periodMs);
    if (!document.hidden && idle) {
      const button = document.querySelector("app-header-reload button.reload-button");
      if (button) {
        followData();
        pressed = Date.now();
        if (button.disabled) {
          // TensorBoard disables the button while no dashboard is active (a page opened
          // before any data) or the active one reloads by itself (Projector); its action
          // still refetches the plugin list, which brings the first dashboards.
          button.disabled = false;
          button.click();
          button.disabled = true;
        } else {
          button.click();
        }
      }
      followProjector();
    }
    if (!document.hidden && fetch0) followRuns();
    showBadge();
  }
  setInterval(tick, periodMs);
  document.addEventListener("DOMContentLoaded", showBadge);
})();

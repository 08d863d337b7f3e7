// flowjob Anomalies tab: the samples flagged by flow.summary.Projector's exception projector.
// TensorBoard runs this module in an iframe whose <base> is this plugin's route, so
// "reports" and "sample?..." below are the plugin's own endpoints (see _plugin.py).
// The page polls "reports" every POLL_MS and redraws only when the records changed, keeping
// the chosen run, steps and sort orders (a step picker left on the latest step follows new
// steps).

// The board page's live period (flowjob board --live-period), 2 s when opened alone.
const POLL_MS = (() => {
  try {
    return Math.max(250, Number(window.parent.flowjobLive?.periodMs) || 2000);
  } catch (err) {
    return 2000;  // a parent of another origin
  }
})();

const COLUMNS = [
  {key: "rank", title: "Rank", numeric: true},
  {key: "image", title: "Image", sortable: false},
  {key: "index", title: "Sample", numeric: true},
  {key: "score", title: "Score", numeric: true},
  {key: "threshold", title: "Threshold", numeric: true},
  {key: "label", title: "Label"},
  {key: "prediction", title: "Prediction"},
];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function scoreValue(score) {
  return score === "inf" ? Infinity : score;
}

function formatScore(score) {
  const v = scoreValue(score);
  return v === Infinity ? "\u221e (NaN/Inf values)" : v.toFixed(2);
}

function compare(a, b, numeric) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;  // missing values last
  if (b === null || b === undefined) return -1;
  if (numeric) return a < b ? -1 : 1;
  const na = Number(a), nb = Number(b);
  if (a !== "" && b !== "" && !isNaN(na) && !isNaN(nb)) return na - nb;
  return String(a).localeCompare(String(b));
}

function explanation() {
  return el("section", {class: "method", id: "method"},
    el("h2", {text: "How samples are flagged"}),
    el("p", {text:
      "The exception projector scores every sample of the array it is given (one row per " +
      "sample, e.g. the hidden features of each test image). For each sample it measures the " +
      "distance r to the median sample (the coordinate-wise median of all rows) and turns that " +
      "distance into a robust z-score:"}),
    el("p", {class: "formula",
      text: "score = (r \u2212 median(r)) / (1.4826 \u00d7 MAD(r)),   " +
            "MAD(r) = median(|r \u2212 median(r)|)"}),
    el("p", {text:
      "A sample is flagged when its score is above the threshold (3.5 unless the Projector " +
      "was given another outlier_threshold). The median and the median absolute deviation " +
      "(MAD) ignore up to half of the samples being extreme, so outliers cannot hide by " +
      "inflating the scale as they would with a mean and standard deviation; 1.4826 makes the " +
      "MAD comparable to a standard deviation for normally distributed distances. Samples " +
      "holding NaN or Inf get the score \u221e and are always flagged. Sample is the row " +
      "number of the sample in the projected array (the index column of the Projector tab); " +
      "a row whose label and prediction differ is highlighted."}));
}

class ReportTable {
  constructor(report, sort) {
    this.report = report;
    this.sort = sort;  // {key, descending}, kept by the caller across redraws
    this.sortKey = sort.key;
    this.descending = sort.descending;
    this.rows = report.flagged.map((s, i) => ({
      rank: i + 1, index: s.index, score: scoreValue(s.score), rawScore: s.score,
      threshold: report.threshold, label: s.label, prediction: s.prediction,
    }));
    this.table = el("table", {class: "anomaly-table"});
    this.render();
  }

  sortBy(key) {
    if (this.sortKey === key) this.descending = !this.descending;
    else { this.sortKey = key; this.descending = key === "score"; }
    this.sort.key = this.sortKey;
    this.sort.descending = this.descending;
    this.render();
  }

  render() {
    const col = COLUMNS.find(c => c.key === this.sortKey);
    const sign = this.descending ? -1 : 1;
    this.rows.sort((a, b) => sign * compare(a[this.sortKey], b[this.sortKey], col.numeric) ||
                             a.rank - b.rank);
    const head = el("tr");
    for (const c of COLUMNS) {
      const th = el("th", {"data-key": c.key, scope: "col"}, c.title);
      if (c.sortable !== false) {
        th.classList.add("sortable");
        th.setAttribute("aria-sort", c.key !== this.sortKey ? "none"
                        : this.descending ? "descending" : "ascending");
        th.title = `Sort by ${c.title.toLowerCase()}`;
        th.addEventListener("click", () => this.sortBy(c.key));
        if (c.key === this.sortKey) th.append(this.descending ? " \u25bc" : " \u25b2");
      }
      head.append(th);
    }
    const body = el("tbody");
    const r = this.report;
    for (const row of this.rows) {
      const tr = el("tr", {class: "sample-row", "data-index": String(row.index)});
      if (row.label !== null && row.prediction !== null && row.label !== row.prediction) {
        tr.classList.add("mismatch");
      }
      const image = r.has_images
        ? el("img", {class: "sample-image", alt: `sample ${row.index}`, loading: "lazy",
                     src: "sample?" + new URLSearchParams({run: r.run, tag: r.tag,
                                                           step: r.step, index: row.index})})
        : el("span", {class: "none", text: "\u2014"});
      tr.append(
        el("td", {class: "rank", text: String(row.rank)}),
        el("td", {class: "image"}, image),
        el("td", {class: "index", text: String(row.index)}),
        el("td", {class: "score", text: formatScore(row.rawScore)}),
        el("td", {class: "threshold", text: String(row.threshold)}),
        el("td", {class: "label", text: row.label ?? "\u2014"}),
        el("td", {class: "prediction", text: row.prediction ?? "\u2014"}));
      body.append(tr);
    }
    this.table.replaceChildren(el("thead", {}, head), body);
  }
}

// View state kept across redraws, per "[run, tag]" key.
const chosenSteps = new Map();  // key -> step the user picked (absent: the latest)
const sortOrders = new Map();   // key -> {key, descending}

function reportSection(group) {
  // One (run, tag): a step picker (latest first) and the table of that step.
  const key = JSON.stringify([group.run, group.tag]);
  if (!sortOrders.has(key)) sortOrders.set(key, {key: "score", descending: true});
  const section = el("section", {class: "report", "data-run": group.run, "data-tag": group.tag});
  const picker = el("select", {class: "step-select", "aria-label": "step"});
  for (const rep of group.reports) picker.append(el("option", {value: String(rep.step),
                                                                text: `step ${rep.step}`}));
  const chosen = chosenSteps.get(key);
  if (chosen !== undefined && group.reports.some(r => r.step === chosen)) {
    picker.value = String(chosen);
  }
  const body = el("div");
  const show = () => {
    const rep = group.reports.find(r => String(r.step) === picker.value);
    const flagged = rep.flagged.length;
    const summary = el("p", {class: "summary"},
      `${flagged} of ${rep.num_samples} samples flagged (score > ${rep.threshold})` +
      (rep.num_nonfinite ? `; ${rep.num_nonfinite} hold NaN/Inf` : "") + ".");
    body.replaceChildren(summary);
    if (flagged) body.append(new ReportTable(rep, sortOrders.get(key)).table);
  };
  picker.addEventListener("change", () => {
    if (picker.selectedIndex === 0) chosenSteps.delete(key);  // latest: follow new steps
    else chosenSteps.set(key, Number(picker.value));
    show();
  });
  section.append(el("h3", {}, el("span", {class: "tag", text: group.tag}), " ", picker),
                 body);
  show();
  return section;
}

function groupReports(reports) {
  const groups = new Map();
  for (const rep of reports) {
    const key = JSON.stringify([rep.run, rep.tag]);
    if (!groups.has(key)) groups.set(key, {run: rep.run, tag: rep.tag, reports: []});
    groups.get(key).reports.push(rep);
  }
  for (const g of groups.values()) g.reports.sort((a, b) => b.step - a.step);
  return [...groups.values()].sort((a, b) => compare(a.run, b.run) || compare(a.tag, b.tag));
}

let shownRun = "";     // "" shows every run
let lastBody = null;   // the last "reports" answer drawn (redraw only on change)

function runFilter(runs) {
  const select = el("select", {id: "run-filter", "aria-label": "run"});
  select.append(el("option", {value: "", text: "All runs"}));
  for (const run of runs) select.append(el("option", {value: run, text: run}));
  if (shownRun && !runs.includes(shownRun)) select.append(
    el("option", {value: shownRun, text: `${shownRun} (no records)`}));
  select.value = shownRun;
  select.addEventListener("change", () => { shownRun = select.value; draw(); });
  return el("label", {class: "run-filter"}, "Run ", select);
}

let lastTag = null;    // the ETag of lastBody: an unchanged answer comes back as a 304

async function fetchReports() {
  const headers = lastTag && lastBody !== null ? {"If-None-Match": lastTag} : {};
  const response = await fetch("reports", {cache: "no-store", headers});
  if (response.status === 304) return lastBody;
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  lastTag = response.headers.get("ETag");
  return await response.text();
}

function draw() {
  const main = document.getElementById("reports");
  const filter = document.getElementById("filter");
  const {runs, reports} = JSON.parse(lastBody);
  filter.replaceChildren(runFilter(runs));
  if (!reports.length) {
    main.replaceChildren(el("p", {class: "status", text:
      "No anomaly reports in this log directory yet. Call " +
      "Projector(logdir).create_exception_projector() and exception_projector(...)."}));
    return;
  }
  const byRun = new Map();
  for (const g of groupReports(reports.filter(r => !shownRun || r.run === shownRun))) {
    if (!byRun.has(g.run)) byRun.set(g.run, []);
    byRun.get(g.run).push(g);
  }
  main.replaceChildren();
  for (const [run, groups] of byRun) {
    const section = el("section", {class: "run", "data-run": run},
                       el("h2", {class: "run-name", text: `Run ${run}`}));
    for (const g of groups) section.append(reportSection(g));
    main.append(section);
  }
}

async function refresh(force = false) {
  const main = document.getElementById("reports");
  let body;
  try {
    body = await fetchReports();
  } catch (err) {
    if (lastBody === null) {
      main.replaceChildren(el("p", {class: "status error", text: `Could not load: ${err}`}));
    }
    return;  // a poll that fails keeps what is shown; the next one tries again
  }
  if (body === lastBody && !force) return;
  lastBody = body;
  draw();
}

export function render() {
  document.head.append(el("link", {rel: "stylesheet", href: "style.css"}));
  document.title = "Anomalies";
  const main = el("main", {id: "reports"}, el("p", {class: "status", text: "Loading\u2026"}));
  const reload = el("button", {type: "button", id: "reload", text: "Reload",
                               onclick: () => refresh(true)});
  document.body.replaceChildren(
    el("header", {}, el("h1", {text: "Anomalies"}), el("div", {id: "filter"}), reload),
    explanation(), main);
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
}

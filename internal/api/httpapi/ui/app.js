// roost's search page: it speaks only the public API, with the key the
// person signs in with (kept in this tab's session storage), so billing,
// rate limits and errors are the API's own.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { key: sessionStorage.getItem("roost-key") || "", query: "", order: "Latest", cursors: [""], page: 0, spent: 0 };

// api calls GET path with the key; it returns the response, or throws an
// Error whose message says in words what went wrong.
async function api(path) {
  let resp;
  try {
    resp = await fetch(path, { headers: { Authorization: "Bearer " + state.key } });
  } catch (e) {
    throw new Error("The server could not be reached: " + e.message);
  }
  if (resp.ok) return resp;
  let body = {};
  try { body = await resp.json(); } catch (e) { /* not JSON */ }
  const detail = body.errors ? Object.entries(body.errors).map(([k, v]) => k + ": " + v.join("; ")).join(" — ") : "";
  let msg = body.message || resp.statusText || "Request failed";
  if (resp.status === 401) msg = "The API key was not accepted (" + msg + "). Sign in again.";
  if (resp.status === 402) msg = "The balance of this key does not cover that (" + msg + ").";
  if (resp.status === 429) msg = "Too many requests: try again in " + (resp.headers.get("Retry-After") || "a few") + " seconds.";
  const err = new Error(msg + (detail ? " — " + detail : ""));
  err.status = resp.status;
  throw err;
}

async function apiJSON(path) { return (await api(path)).json(); }

// --- what each part costs

// micros reads a decimal dollar amount as integer micro-USD.
function micros(usd) { return Math.round(parseFloat(usd || "0") * 1e6); }

// usd writes micro-USD as dollars without trailing zeros.
function usd(m) { return (m / 1e6).toFixed(6).replace(/\.?0+$/, "") + " USD"; }

// costText says what an answer charged, from its X-Roost-Items and
// X-Roost-Charged-USD headers; what names one item and many ("post",
// "posts").
function costText(resp, what) {
  const items = parseInt(resp.headers.get("X-Roost-Items") || "0", 10);
  const m = micros(resp.headers.get("X-Roost-Charged-USD"));
  state.spent += m;
  showSpent();
  if (m > 0) balanceChanged();
  return items ? "Cost: " + usd(m) + " for " + items + " " + what[items === 1 ? 0 : 1] + "." : "Cost: nothing.";
}

// paidJSON calls GET path and shows what it charged in the element costId.
async function paidJSON(path, costId, what) {
  const resp = await api(path);
  const body = await resp.json();
  $(costId).textContent = costText(resp, what);
  return body;
}

// showSpent shows what the current search has cost so far.
function showSpent() {
  $("spent").textContent = state.query ? "This search has cost " + usd(state.spent) + " so far." : "";
}

let balanceTimer = 0;
// balanceChanged reads the balance again once the charges under way end.
function balanceChanged() { clearTimeout(balanceTimer); balanceTimer = setTimeout(refreshBalance, 100); }

function showError(err) {
  const a = $("alert");
  a.textContent = err.message;
  a.hidden = false;
  if (err.status === 401) signOut();
}

function clearError() { $("alert").hidden = true; $("alert").textContent = ""; }

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") e.className = v; else if (k in e) e[k] = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// --- signing in

async function signIn(key) {
  state.key = key.trim();
  clearError();
  try {
    const b = await apiJSON("/user/balance");
    sessionStorage.setItem("roost-key", state.key);
    $("balance").textContent = "Balance: " + usd(micros(String(b.balance_usd)));
    $("signin").hidden = true;
    $("account").hidden = false;
    for (const id of ["q", "go"]) $(id).disabled = false;
    $("status").textContent = "Type a query and press Enter.";
    $("q").focus();
    if ($("q").value.trim()) startSearch(false); // a bookmarked search
  } catch (e) {
    state.key = "";
    showError(e);
  }
}

function signOut() {
  sessionStorage.removeItem("roost-key");
  state.key = "";
  $("signin").hidden = false;
  $("account").hidden = true;
  for (const id of ["q", "go", "prev", "next", "dl-csv", "dl-gexf"]) $(id).disabled = true;
  $("key").value = "";
  $("status").textContent = "Sign in with an API key to search.";
  for (const id of ["cost-posts", "cost-chart", "cost-hashtags", "cost-authors", "spent"]) $(id).textContent = "";
}

// --- the search in the address (a bookmark runs it again)

// fromAddress puts the address's query and type in the form; it reports
// whether there is a query.
function fromAddress() {
  const u = new URLSearchParams(location.search);
  $("q").value = u.get("query") || "";
  const order = u.get("type") === "Top" ? "Top" : "Latest";
  document.querySelector(`input[name=order][value=${order}]`).checked = true;
  return $("q").value.trim() !== "";
}

// toAddress writes the search in the address: a new entry for a new query
// (Back returns to the last), the same entry for another order.
function toAddress(push) {
  const u = "?" + new URLSearchParams({ query: state.query, type: state.order }).toString();
  if (u === location.search) return;
  if (push) history.pushState(null, "", u); else history.replaceState(null, "", u);
}

// balance reads the key's balance in micro-USD (free); null on failure.
async function balance() {
  try { return micros(String((await apiJSON("/user/balance")).balance_usd)); } catch (e) { return null; }
}

// refreshBalance shows the balance in the header and returns it.
async function refreshBalance() {
  const b = await balance();
  if (b !== null) $("balance").textContent = "Balance: " + usd(b);
  return b;
}

// --- posts

// unescape undoes the three escapes the network writes in post text.
function unescape(s) { return s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&"); }

// searchLink is a link that runs a search for q.
function searchLink(label, q) {
  const a = el("a", { href: "#", textContent: label });
  a.addEventListener("click", (ev) => { ev.preventDefault(); $("q").value = q; startSearch(); });
  return a;
}

// richText renders post text with its entities (indices are code points
// over the stored, escaped text) as links; text is set as text, never HTML.
function richText(post) {
  const cps = Array.from(post.full_text || "");
  const ents = [];
  const e = post.entities || {};
  for (const m of e.user_mentions || []) ents.push({ at: m.indices, node: () => searchLink("@" + m.screen_name, "@" + m.screen_name) });
  for (const h of e.hashtags || []) ents.push({ at: h.indices, node: () => searchLink("#" + h.text, "#" + h.text) });
  for (const s of e.symbols || []) ents.push({ at: s.indices, node: () => searchLink("$" + s.text, "$" + s.text) });
  for (const u of e.urls || []) {
    ents.push({ at: u.indices, node: () => {
      const href = u.expanded_url || u.url;
      if (!/^https?:\/\//i.test(href)) return document.createTextNode(u.display_url || u.url);
      return el("a", { href, target: "_blank", rel: "noopener noreferrer", textContent: u.display_url || href });
    } });
  }
  ents.sort((a, b) => a.at[0] - b.at[0]);
  const out = el("p", { class: "text" });
  let at = 0;
  for (const x of ents) {
    const [s, t] = x.at;
    if (s < at || t > cps.length || s >= t) continue;
    out.append(unescape(cps.slice(at, s).join("")), x.node());
    at = t;
  }
  out.append(unescape(cps.slice(at).join("")));
  return out;
}

function when(s) {
  const d = new Date(s);
  return el("time", { dateTime: d.toISOString(), textContent: d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) });
}

function author(user) {
  return el("span", {}, el("span", { class: "who", textContent: user.name || user.screen_name }), " ",
    searchLink("@" + user.screen_name, "from:" + user.screen_name));
}

function counts(p) {
  const items = [["replies", p.reply_count], ["reposts", p.retweet_count], ["quotes", p.quote_count], ["likes", p.favorite_count]];
  if (p.views_count !== null && p.views_count !== undefined) items.push(["views", p.views_count]);
  return el("ul", { class: "counts", "aria-label": "Counts" }, ...items.map(([k, n]) => el("li", { textContent: n + " " + k })));
}

function renderPost(p, nested) {
  const li = el(nested ? "div" : "li", { class: nested ? "quoted" : "post" });
  li.dataset.id = p.id_str;
  let shown = p;
  if (p.retweeted_status) {
    li.append(el("p", { class: "context", textContent: "↻ @" + p.user.screen_name + " reposted" }));
    shown = p.retweeted_status;
  }
  li.append(el("div", {}, author(shown.user), " · ", when(shown.tweet_created_at)));
  if (shown.in_reply_to_screen_name) {
    li.append(el("p", { class: "context" }, "Replying to ", searchLink("@" + shown.in_reply_to_screen_name, "@" + shown.in_reply_to_screen_name)));
  }
  li.append(richText(shown));
  if (shown.quoted_status && !nested) li.append(renderPost(shown.quoted_status, true));
  else if (shown.quoted_status_id_str && !nested) li.append(el("p", { class: "context", textContent: "Quotes a post that is not stored (" + shown.quoted_status_id_str + ")" }));
  if (!nested) li.append(counts(shown));
  return li;
}

// --- search

function params(extra) {
  const u = new URLSearchParams({ query: state.query, ...extra });
  return u.toString();
}

async function loadPage() {
  const list = $("posts");
  $("status").textContent = "Searching…";
  $("prev").disabled = $("next").disabled = true;
  try {
    const cursor = state.cursors[state.page];
    const body = await paidJSON("/social/search?" + params({ type: state.order, ...(cursor ? { cursor } : {}) }), "cost-posts", ["post", "posts"]);
    list.replaceChildren(...body.tweets.map((p) => renderPost(p, false)));
    if (body.next_cursor) state.cursors[state.page + 1] = body.next_cursor;
    $("next").disabled = !body.next_cursor;
    $("prev").disabled = state.page === 0;
    $("page").textContent = "Page " + (state.page + 1);
    $("status").textContent = body.tweets.length ? body.tweets.length + " posts, " + state.order.toLowerCase() + " first." : "No posts match.";
    $("results-title").focus();
  } catch (e) {
    list.replaceChildren();
    $("status").textContent = "";
    $("cost-posts").textContent = "";
    showError(e);
  }
}

// startSearch runs the form's search; push adds it to the history.
async function startSearch(push = true) {
  const q = $("q").value.trim();
  if (!q || !state.key) return;
  clearError();
  state.query = q;
  state.order = document.querySelector("input[name=order]:checked").value;
  state.cursors = [""];
  state.page = 0;
  state.spent = 0;
  showSpent();
  toAddress(push);
  $("dl-csv").disabled = $("dl-gexf").disabled = false;
  await loadPage();
  if ($("alert").hidden) {
    await Promise.all([loadChart(), loadTop("hashtags", "top-hashtags"), loadTop("authors", "top-authors")]);
  } else {
    for (const id of ["chart", "top-hashtags", "top-authors"]) $(id).replaceChildren();
    for (const id of ["cost-chart", "cost-hashtags", "cost-authors"]) $(id).textContent = "";
    $("dl-csv").disabled = $("dl-gexf").disabled = true;
  }
}

// --- insights

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function loadChart() {
  const box = $("chart");
  box.replaceChildren(el("p", { class: "status", textContent: "Counting…" }));
  try {
    const c = await paidJSON("/social/search/counts?" + params({ granularity: $("granularity").value }), "cost-chart",
      ["period with posts", "periods with posts (the empty ones are free)"]);
    const data = c.data;
    if (!data.length) { box.replaceChildren(el("p", { class: "status", textContent: "No posts to count." })); return; }
    const W = 600, H = 160, pad = 18;
    const max = Math.max(1, ...data.map((b) => b.tweet_count));
    const peak = data.reduce((a, b) => (b.tweet_count > a.tweet_count ? b : a));
    const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `${c.meta.total_tweet_count} posts per ${c.meta.granularity} from ${data[0].start.slice(0, 10)} to ${data[data.length - 1].end.slice(0, 10)}; the most, ${peak.tweet_count}, in the ${c.meta.granularity} from ${peak.start}` });
    const bw = (W - 2 * pad) / data.length;
    data.forEach((b, i) => {
      const h = ((H - 2 * pad) * b.tweet_count) / max;
      const r = svg("rect", { x: pad + i * bw, y: H - pad - h, width: Math.max(bw - (bw > 3 ? 1 : 0), 0.5), height: h });
      r.append(svg("title", {}, `${b.start}: ${b.tweet_count}`));
      s.append(r);
    });
    s.append(svg("text", { x: pad, y: H - 4, class: "axis" }, data[0].start.slice(0, 16).replace("T", " ")));
    s.append(svg("text", { x: W - pad, y: H - 4, class: "axis", "text-anchor": "end" }, data[data.length - 1].end.slice(0, 16).replace("T", " ")));
    s.append(svg("text", { x: pad, y: 12, class: "axis" }, "max " + max));
    box.replaceChildren(s, el("p", { class: "status", textContent: c.meta.total_tweet_count + " posts in all." }));
  } catch (e) {
    $("cost-chart").textContent = "";
    box.replaceChildren(el("p", { class: "status", textContent: e.message }));
  }
}

async function loadTop(field, id) {
  const list = $(id);
  list.replaceChildren();
  try {
    const t = await paidJSON("/social/search/top?" + params({ field, limit: 10 }), "cost-" + field, ["value", "values"]);
    list.replaceChildren(...t.values.map((v) => {
      const q = field === "authors" ? "from:" + v.value : v.value;
      const label = field === "authors" ? "@" + v.value : v.value;
      return el("li", {}, v.value ? searchLink(label, q) : "(unknown user)", el("span", { class: "n", textContent: String(v.count) }));
    }));
    if (!t.values.length) list.append(el("li", { class: "status", textContent: "none" }));
  } catch (e) {
    $("cost-" + field).textContent = "";
    list.append(el("li", { class: "status", textContent: e.message }));
  }
}

// --- downloads

// download fetches a file and saves it; what it cost is the change of the
// balance (an export's count of items comes as a trailer, which a page
// cannot read).
async function download(path, name) {
  const status = $("dl-status");
  status.textContent = "Preparing " + name + "…";
  const before = await balance();
  try {
    const blob = await (await api(path)).blob();
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    const after = await refreshBalance();
    const cost = before !== null && after !== null ? " Cost: " + usd(before - after) + "." : "";
    if (cost) { state.spent += before - after; showSpent(); }
    status.textContent = "Downloaded " + name + " (" + blob.size + " bytes)." + cost;
  } catch (e) {
    status.textContent = "";
    showError(e);
    refreshBalance();
  }
}

// --- wiring

document.addEventListener("DOMContentLoaded", () => {
  $("signin").addEventListener("submit", (ev) => { ev.preventDefault(); signIn($("key").value); });
  $("signout").addEventListener("click", signOut);
  $("search").addEventListener("submit", (ev) => { ev.preventDefault(); startSearch(); });
  // Latest and Top hold the same posts: only the pages change.
  for (const r of document.querySelectorAll("input[name=order]")) {
    r.addEventListener("change", () => {
      state.order = r.value;
      state.cursors = [""];
      state.page = 0;
      if (state.query) { toAddress(false); loadPage(); }
    });
  }
  // Back and Forward run the search of the address they reach.
  window.addEventListener("popstate", () => { if (fromAddress()) startSearch(false); });
  $("next").addEventListener("click", () => { state.page++; loadPage(); });
  $("prev").addEventListener("click", () => { state.page = Math.max(0, state.page - 1); loadPage(); });
  $("granularity").addEventListener("change", () => { if (state.query) loadChart(); });
  $("dl-csv").addEventListener("click", () => download("/social/search/export?" + params({ format: "csv" }), "roost-export.csv"));
  $("dl-gexf").addEventListener("click", () => download("/social/search/network?" + params({ format: "gexf" }), "roost-network.gexf"));
  document.addEventListener("keydown", (ev) => {
    const typing = ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement;
    if (ev.key === "/" && !typing && !$("q").disabled) { ev.preventDefault(); $("q").focus(); }
  });
  const bookmarked = fromAddress();
  if (state.key) signIn(state.key);
  else {
    $("key").focus();
    if (bookmarked) $("status").textContent = "Sign in with an API key to run this search.";
  }
});

// The live part of the supervision tree page: it follows the handler's
// event stream (each event one bounded view of the tree, as JSON) and
// redraws the tree, keeping what the reader collapsed and searched for.
// Without it the page is the server's static snapshot.
(function () {
  "use strict";
  var collapsed = new Set();
  var last = null;
  var $ = function (id) { return document.getElementById(id); };
  var gaugeOrder = ["running", "max_concurrency", "queued", "max_queue", "subscriptions", "submitted", "rejected", "timed_out", "cancelled"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function nameOf(id) {
    var i = id.lastIndexOf("/");
    return i < 0 ? id : id.slice(i + 1);
  }

  function kindCounts(m) {
    return Object.keys(m).sort().map(function (k) { return m[k] + " " + k; }).join(", ");
  }

  function head(n) {
    var f = document.createDocumentFragment();
    f.append(el("span", "kind", n.kind), " ");
    var name = el("span", "name", nameOf(n.id));
    name.title = n.id;
    f.append(name);
    if (n.total) { f.append(" ", el("span", "total", String(n.total))); }
    var attrs = n.attrs || {};
    Object.keys(attrs).sort().forEach(function (k) {
      var a = el("span", "attr a-" + k);
      a.append(el("span", "k", k), "=", el("span", "v", attrs[k]));
      f.append(" ", a);
    });
    var act = n.action;
    if (act) {
      var form = el("form", "action");
      form.method = "post";
      [["action", act], ["id", n.id]].forEach(function (p) {
        var i = el("input");
        i.type = "hidden"; i.name = p[0]; i.value = p[1];
        form.append(i);
      });
      var b = el("button", "", act);
      b.type = "submit";
      form.append(b);
      f.append(" ", form);
    }
    return f;
  }

  function node(n) {
    var li = el("li", "node k-" + n.kind);
    li.dataset.id = n.id;
    li.dataset.kind = n.kind;
    var kids = n.children || [];
    if (kids.length || n.omitted) {
      var d = el("details");
      d.open = !collapsed.has(n.id);
      d.addEventListener("toggle", function () {
        if (d.open) { collapsed.delete(n.id); } else { collapsed.add(n.id); }
      });
      var s = el("summary");
      s.append(head(n));
      var ul = el("ul");
      kids.forEach(function (c) { ul.append(node(c)); });
      d.append(s, ul);
      if (n.omitted) {
        d.append(el("p", "more", n.omitted + " more of " + n.total + " not shown: " + kindCounts(n.omittedKinds || {})));
      }
      li.append(d);
    } else {
      var leaf = el("div", "leaf");
      leaf.append(head(n));
      li.append(leaf);
    }
    return li;
  }

  // pairs fills dl with one labelled value per entry of list: [key,
  // value, label]; each item gets cls and data-<data>=key.
  function pairs(dl, list, cls, data) {
    dl.replaceChildren.apply(dl, list.map(function (p) {
      var div = el("div", cls + (data === "kind" ? " k-" + p[0] : ""));
      div.dataset[data] = p[0];
      div.append(el("dt", "", p[2] || p[0]), el("dd", "", p[1]));
      return div;
    }));
  }

  function gauges(ex) {
    if (!ex) { return []; }
    var keys = gaugeOrder.filter(function (k) { return k in ex; });
    Object.keys(ex).sort().forEach(function (k) { if (keys.indexOf(k) < 0) { keys.push(k); } });
    return keys.map(function (k) { return [k, ex[k], k.replace(/_/g, " ")]; });
  }

  function matches(li, q) {
    var hay = (li.dataset.kind + " " + li.dataset.id).toLowerCase();
    var own = li.querySelector(":scope > details > summary, :scope > .leaf");
    if (own) {
      own.querySelectorAll(".attr").forEach(function (a) { hay += " " + a.textContent.toLowerCase(); });
    }
    return hay.indexOf(q) >= 0;
  }

  // filter hides the nodes that neither match q nor hold a node that
  // does, and marks the matches; it reports whether li stays visible.
  function filter(li, q) {
    var self = q !== "" && matches(li, q);
    var any = false;
    li.querySelectorAll(":scope > details > ul > li").forEach(function (c) {
      if (filter(c, self ? "" : q)) { any = true; }
    });
    var keep = q === "" || self || any;
    li.classList.toggle("hidden", !keep);
    li.classList.toggle("match", self);
    return keep;
  }

  function applySearch() {
    var q = $("q").value.trim().toLowerCase();
    var root = $("tree").firstElementChild;
    if (root) { filter(root, q); }
  }

  function render(v) {
    last = v;
    document.body.dataset.seq = String(v.seq);
    $("taken").textContent = v.taken;
    $("shown").textContent = String(v.shown);
    $("nodes").textContent = String(v.nodes);
    $("max-children").textContent = String(v.maxChildren);
    $("max-nodes").textContent = String(v.maxNodes);
    pairs($("gauges"), gauges(v.executor), "gauge", "key");
    pairs($("counts"), Object.keys(v.counts).sort().map(function (k) { return [k, String(v.counts[k])]; }), "count", "kind");
    var tree = $("tree");
    tree.replaceChildren(v.root ? node(v.root) : "");
    var empty = $("empty");
    if (empty) { empty.remove(); }
    applySearch();
  }

  function setStatus(state, text) {
    var s = $("status");
    s.dataset.state = state;
    s.textContent = text;
  }

  // The static page's nodes start open; remember the ones the reader
  // closes before the first event arrives.
  document.querySelectorAll("#tree details").forEach(function (d) {
    d.addEventListener("toggle", function () {
      var id = d.parentElement.dataset.id;
      if (d.open) { collapsed.delete(id); } else { collapsed.add(id); }
    });
  });

  // Typing filters the view shown; submitting (Enter) asks the server to
  // search the whole tree, beyond what the view holds, and the stream
  // then follows that search.
  var searched = new URLSearchParams(location.search).get("q") || "";
  $("q").addEventListener("input", applySearch);
  ["collapse-all", "expand-all"].forEach(function (id) {
    var b = $(id);
    b.hidden = false;
    b.addEventListener("click", function () {
      var open = id === "expand-all";
      document.querySelectorAll("#tree details").forEach(function (d) { d.open = open; });
    });
  });
  // A search given in the address (the static page's form) is the
  // starting filter; the stream carries the whole bounded view.
  applySearch();

  window.snodoTree = { last: function () { return last; } };
  if (!window.EventSource) { return; }

  // connect follows the stream. The browser reconnects by itself after
  // a stream ends; a refusal (too many pages open, the server gone)
  // closes the source, and the page tries again a little later.
  function connect() {
    var src = new EventSource(location.pathname + "?format=events" + (searched ? "&q=" + encodeURIComponent(searched) : ""));
    src.addEventListener("open", function () { setStatus("live", "live"); });
    src.addEventListener("tree", function (e) {
      setStatus("live", "live");
      render(JSON.parse(e.data));
    });
    src.addEventListener("error", function () {
      if (src.readyState === EventSource.CLOSED) {
        setStatus("reconnecting", "offline, retrying");
        setTimeout(connect, 5000);
      } else {
        setStatus("reconnecting", "reconnecting");
      }
    });
  }
  connect();
})();

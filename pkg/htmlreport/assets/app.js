// arbor report: the question browser. Data lives in data/*.js files that
// call ARBOR.load(name, data), or ARBOR.z(name, base64 of the gzipped
// JSON) when that is smaller (nearly every file); they are loaded on
// demand with <script> tags, which browsers allow on file:// pages (fetch
// is refused there). The first
// view needs the run's row index and first page, whatever the run's size;
// index.html carries both (the same ARBOR.load or ARBOR.z calls, inline).
//
// Row index (x-<run>, in index.html): one string, per question row (a question at
//   one variant and budget, in question order) 4 + systems characters:
//   'b' where a question starts ('a' otherwise), then the category,
//   variant and budget, then each system's outcome, each as 'b' + its
//   position in the run's list ('a': no sample).
// Search file (data/w-<run>.js): per question [episode, question, gold, text].
// Page file (data/p-<run>-<n>.js; page 0 in index.html): rows [n*page_rows, (n+1)*page_rows):
//   {q: [[question index, episode, question, category, gold, confounder,
//   text, labels, evidence ids]], s: [per system, a sample row or null per
//   row of the page], f: {system \x1f variant \x1f episode: [forest file,
//   position]}}.
// Sample row: [question index, variant index, budget, primary score,
//   outcome index, evidence tokens, evidence recall, prediction, error,
//   {scorer: [score, outcome, raw reply, heuristic]}, bundle chunk,
//   position in chunk, channels, parent in branch, full query seconds,
//   primary scorer].
// Bundle chunk (data/b-<run>-<system>-<chunk>.js): {n: [names], u: [items],
//   t: [traces], b: [{i: [item positions in u, a run p, p+1, …, p+k
//   written p, -k], t: trace position in t or -1, branch}]}, an item being
//   [channel, block, tokens, text file, text index, sources...]: channel,
//   block (-1: none) and sources by position in n, the text file -1 when
//   not recorded, -2 when missing; the trace's candidates by column,
//   {cols: [keys], vals: [per key, each candidate's value]} (see bundleAt).
// Text file (data/t-<run>-<n>.js): [evidence texts], each stored once a run.
// Forest file (data/g-<run>-<n>.js): [forests as pkg/forestview draws them].
var ARBOR = (function () {
  'use strict';
  var runs = [], cache = {}, pending = {}, index = {};
  var broken = {}; // data files that could not be decoded, with why
  var handed = {}; // data files whose script called ARBOR.load or ARBOR.z
  var PAGE = 50;
  var st = { run: 0, systems: null, cat: '', out: '', outSys: '*', bud: '', vi: '', text: '', page: 0 };
  var app;

  // wait registers a data file as on its way (loading or decoding): a
  // load of it meanwhile waits for the same promise.
  function wait(name) {
    var d = {};
    d.p = new Promise(function (res, rej) { d.res = res; d.rej = rej; });
    pending[name] = d;
    return d;
  }

  // load fetches data file name with a <script> tag. The script hands its
  // data over by calling ARBOR.load or ARBOR.z with its own name, which
  // marks it handed over before the tag's onload runs; a script that did
  // not (cut short, so a syntax error; or naming another file) would
  // otherwise leave its load pending for ever, the page stuck on loading.
  function load(name) {
    if (cache[name]) return Promise.resolve(cache[name]);
    if (pending[name]) return pending[name].p;
    if (broken[name]) return Promise.reject(broken[name]);
    var d = wait(name);
    var s = document.createElement('script');
    s.src = 'data/' + name + '.js';
    s.onerror = function () { delete pending[name]; d.rej(new Error('cannot load data/' + name + '.js')); };
    s.onload = function () { if (!handed[name]) lost(name, new Error('data/' + name + '.js did not hand over its data')); };
    document.head.appendChild(s);
    return d.p;
  }

  function got(name, data) {
    handed[name] = true;
    cache[name] = data;
    var d = pending[name];
    if (d) { delete pending[name]; d.res(data); }
  }

  // lost records data file name as unreadable, with why, and fails its
  // pending load.
  function lost(name, e) {
    broken[name] = e;
    var d = pending[name];
    if (d) { delete pending[name]; d.rej(e); }
  }

  // gunzip hands the page a data file's JSON from its gzipped base64 form
  // (ARBOR.z): decoded by the browser (DecompressionStream, Chromium 80,
  // Firefox 113, Safari 16.4), so the report needs no inflate of its own.
  // Decoding is asynchronous: data inlined into index.html is registered as
  // on its way, so that the first view's load of it waits rather than
  // looking for a file. Each step's failure (base64, gzip, JSON) fails the
  // load naming that step: atob throws at once, outside any promise, and a
  // corrupt gzip stream surfaces from Response as "Failed to fetch".
  function gunzip(name, b64) {
    handed[name] = true;
    if (!pending[name] && !cache[name]) wait(name);
    var why = function (step, e) { return new Error('cannot decode data/' + name + '.js: ' + step + ' (' + (e && e.message || e) + ')'); };
    if (typeof DecompressionStream === 'undefined') {
      lost(name, new Error('this browser cannot read data/' + name + '.js: it lacks DecompressionStream (Chromium 80, Firefox 113 or Safari 16.4 have it)'));
      return;
    }
    var bytes;
    try {
      var bin = atob(b64), n = bin.length;
      bytes = new Uint8Array(n);
      for (var i = 0; i < n; i++) bytes[i] = bin.charCodeAt(i);
    } catch (e) { lost(name, why('its base64 is invalid', e)); return; }
    new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (s) {
      var data;
      try { data = JSON.parse(s); } catch (e) { lost(name, why('its JSON is invalid', e)); return; }
      got(name, data);
    }, function (e) { lost(name, why('its gzip stream is corrupt', e)); });
  }

  function esc(s) {
    return String(s == null ? '' : s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(v, d) { return v == null ? '–' : Number(v).toFixed(d == null ? 2 : d); }
  function el(id) { return document.getElementById(id); }

  // Systems of the current run that are ticked.
  function chosen() {
    var r = runs[st.run];
    return r.systems.filter(function (s) { return !st.systems || st.systems[s.name]; });
  }

  // loadIndex loads run ri's row index and decodes it into arrays: per row
  // its question, category, variant and budget positions, and per row and
  // system the outcome position (-1: no sample); start[q] is question q's
  // first row.
  function loadIndex(ri) {
    if (index[ri]) return Promise.resolve(index[ri]);
    var r = runs[ri];
    return load('x-' + ri).then(function (s) {
      if (index[ri]) return index[ri];
      var n = r.rows, ns = r.systems.length, w = 4 + ns, x = {
        n: n, ns: ns, qi: new Int32Array(n), cat: new Int32Array(n), vi: new Int32Array(n), bi: new Int32Array(n),
        out: new Int32Array(n * ns), start: new Int32Array(r.nquestions + 1)
      };
      var q = -1;
      for (var i = 0; i < n; i++) {
        var o = i * w;
        if (s.charCodeAt(o) === 98) { q++; x.start[q] = i; }
        x.qi[i] = q;
        x.cat[i] = s.charCodeAt(o + 1) - 98;
        x.vi[i] = s.charCodeAt(o + 2) - 98;
        x.bi[i] = s.charCodeAt(o + 3) - 98;
        for (var k = 0; k < ns; k++) x.out[i * ns + k] = s.charCodeAt(o + 4 + k) - 98;
      }
      x.start[q + 1] = n;
      index[ri] = x;
      return x;
    });
  }

  function pageName(ri, i) { return 'p-' + ri + '-' + Math.floor(i / runs[ri].page_rows); }

  // loadRows loads the pages holding rows is of run ri.
  function loadRows(ri, is) {
    var names = {};
    is.forEach(function (i) { names[pageName(ri, i)] = true; });
    return Promise.all(Object.keys(names).map(load));
  }

  // rowAt is row i of run ri as the views use it, from its loaded page:
  // {r, qi, vi, b, q: question row, per: {system: sample row}, f: forests}.
  function rowAt(ri, x, i) {
    var r = runs[ri], pg = cache[pageName(ri, i)], k = i % r.page_rows, per = {};
    r.systems.forEach(function (s, si) { if (pg.s[si][k]) per[s.name] = pg.s[si][k]; });
    if (!pg.qmap) {
      pg.qmap = {};
      pg.q.forEach(function (q) { pg.qmap[q[0]] = q.slice(1); });
    }
    return { r: i, qi: x.qi[i], vi: x.vi[i], b: r.budgets[x.bi[i]], q: pg.qmap[x.qi[i]], per: per, f: pg.f || {} };
  }

  function cls(x) {
    if (!x) return 'none';
    if (x[8]) return 'err';
    if (x[3] >= 1) return 'ok';
    if (x[3] <= 0) return 'bad';
    return 'part';
  }

  function controls() {
    var r = runs[st.run];
    var h = '<div class="controls">';
    h += '<label>Benchmark / run <select id="f-run">' + runs.map(function (x, i) {
      return '<option value="' + i + '"' + (i === st.run ? ' selected' : '') + '>' + esc(x.benchmark + ' — ' + x.id) + '</option>';
    }).join('') + '</select></label>';
    h += '<fieldset id="f-systems">Systems ' + r.systems.map(function (s) {
      var on = !st.systems || st.systems[s.name];
      return '<label><input type="checkbox" value="' + esc(s.name) + '"' + (on ? ' checked' : '') + '>' + esc(s.name) + '</label>';
    }).join('') + '</fieldset>';
    h += sel('f-cat', 'Category', r.categories, st.cat, r.category_labels);
    h += '<label>Outcome <select id="f-out"><option value="">all</option>' + r.outcomes.map(function (o, i) {
      return '<option value="' + i + '"' + (String(i) === st.out ? ' selected' : '') + '>' + esc(o) + '</option>';
    }).join('') + '</select></label>';
    h += '<label>of <select id="f-outsys"><option value="*">any system</option>' + r.systems.map(function (s) {
      return '<option' + (s.name === st.outSys ? ' selected' : '') + '>' + esc(s.name) + '</option>';
    }).join('') + '</select></label>';
    h += sel('f-bud', 'Budget', r.budgets, st.bud, r.budget_labels);
    if (r.variants.length > 1) {
      h += '<label>Variant <select id="f-var"><option value="">all</option>' + r.variants.map(function (v, i) {
        return '<option value="' + i + '"' + (String(i) === st.vi ? ' selected' : '') + '>' + esc(v || 'reference') + '</option>';
      }).join('') + '</select></label>';
    }
    h += '<label>Search <input type="search" id="f-text" placeholder="id, question, gold" value="' + esc(st.text) + '"></label>';
    return h + '</div>';
  }

  function sel(id, label, values, cur, labels) {
    return '<label>' + label + ' <select id="' + id + '"><option value="">all</option>' + values.map(function (v) {
      return '<option value="' + esc(v) + '"' + (String(v) === cur ? ' selected' : '') + '>' + esc(named(labels, v)) + '</option>';
    }).join('') + '</select></label>';
  }

  // named is a value's name in the run's tables ("32K" for 30968), the
  // value itself where the tables use it as it is.
  function named(labels, v) {
    return labels && labels[v] !== undefined ? labels[v] : String(v);
  }

  function bindControls() {
    el('f-run').onchange = function () { location.hash = 'run=' + this.value; };
    el('f-systems').onchange = function () {
      st.systems = {};
      Array.prototype.forEach.call(this.querySelectorAll('input'), function (c) { if (c.checked) st.systems[c.value] = true; });
      st.page = 0; showList();
    };
    var on = function (id, f) { var e = el(id); if (e) e.onchange = function () { st[f] = this.value; st.page = 0; showList(); }; };
    on('f-cat', 'cat'); on('f-out', 'out'); on('f-outsys', 'outSys'); on('f-bud', 'bud'); on('f-var', 'vi');
    var t = el('f-text'), timer;
    t.oninput = function () { var v = this.value; clearTimeout(timer); timer = setTimeout(function () { st.text = v; st.page = 0; renderRows(); }, 200); };
  }

  var cur = null; // the loaded index behind the list
  var seq = 0; // the latest list render: an older one that finishes later is dropped

  function showList() {
    app.dataset.state = 'loading';
    app.innerHTML = controls() + '<div class="status" id="status">loading…</div><div id="rows"></div>';
    bindControls();
    var systems = chosen(), t0 = Date.now();
    loadIndex(st.run).then(function (x) {
      cur = { run: st.run, x: x, systems: systems };
      renderRows(t0);
    }, fail);
  }

  // matches tells whether row i passes the filters (the text search against
  // words, the search file, when one is typed).
  function matches(x, i, r, words, sys, cat, bud) {
    if (cat >= 0 && x.cat[i] !== cat) return false;
    if (bud >= 0 && x.bi[i] !== bud) return false;
    if (st.vi !== '' && String(x.vi[i]) !== st.vi) return false;
    if (st.out !== '') {
      var oi = Number(st.out), hit = false;
      for (var k = 0; k < sys.length; k++) if ((st.outSys === '*' || st.outSys === r.systems[sys[k]].name) && x.out[i * x.ns + sys[k]] === oi) hit = true;
      if (!hit) return false;
    }
    if (words) {
      var w = words[x.qi[i]];
      if ((w[0] + ' ' + w[1] + ' ' + w[2] + ' ' + (w[3] || '')).toLowerCase().indexOf(st.text.toLowerCase()) < 0) return false;
    }
    return true;
  }

  function link(ri, q, row, sys) {
    var p = 'run=' + ri + '&ep=' + encodeURIComponent(q[0]) + '&q=' + encodeURIComponent(q[1]) + '&b=' + row.b + '&v=' + encodeURIComponent(runs[ri].variants[row.vi] || '') + '&r=' + row.r;
    if (sys) p += '&sys=' + encodeURIComponent(sys);
    return '#' + p;
  }

  // renderRows filters the index, loads the pages of the rows shown (and
  // the search file while a search is typed) and renders them.
  function renderRows(t0) {
    t0 = t0 || Date.now();
    var my = ++seq, ri = cur.run, r = runs[ri], x = cur.x;
    var sys = cur.systems.map(function (s) { return r.systems.indexOf(s); });
    var cat = st.cat === '' ? -1 : r.categories.indexOf(st.cat);
    var bud = st.bud === '' ? -1 : r.budgets.map(String).indexOf(st.bud);
    (st.text ? load('w-' + ri) : Promise.resolve(null)).then(function (words) {
      var hits = [], total = 0;
      for (var i = 0; i < x.n; i++) {
        var any = false;
        for (var k = 0; k < sys.length; k++) if (x.out[i * x.ns + sys[k]] >= 0) { any = true; break; }
        if (!any) continue;
        total++;
        if (matches(x, i, r, words, sys, cat, bud)) hits.push(i);
      }
      var pages = Math.max(1, Math.ceil(hits.length / PAGE));
      st.page = Math.min(st.page, pages - 1);
      var from = st.page * PAGE, to = Math.min(hits.length, from + PAGE), shown = hits.slice(from, to);
      return loadRows(ri, shown).then(function () {
        if (my !== seq) return;
        var t1 = Date.now();
        el('status').textContent = hits.length + ' of ' + total + ' question rows (' + r.nquestions + ' questions); showing ' + (hits.length ? from + 1 : 0) + '–' + to;
        var multiVar = r.variants.length > 1;
        var h = '<table class="qlist" id="qlist"><thead><tr><th>Episode</th><th>Question</th><th>Category</th><th>Budget</th>' + (multiVar ? '<th>Variant</th>' : '') +
          cur.systems.map(function (s) { return '<th>' + esc(s.name) + '</th>'; }).join('') + '<th>Gold</th></tr></thead><tbody>';
        shown.forEach(function (i) {
          var row = rowAt(ri, x, i), q = row.q;
          h += '<tr><td>' + esc(q[0]) + '</td><td><a href="' + link(ri, q, row) + '">' + esc(q[1]) + '</a>' + (q[5] ? '<br><span class="muted">' + esc(clip(q[5], 120)) + '</span>' : '') + '</td><td>' + esc(named(r.category_labels, q[2])) + '</td><td>' + esc(named(r.budget_labels, row.b)) + '</td>' +
            (multiVar ? '<td>' + esc(r.variants[row.vi] || 'reference') + '</td>' : '');
          cur.systems.forEach(function (s) {
            var v = row.per[s.name];
            h += '<td class="' + cls(v) + '">' + (v ? '<a href="' + link(ri, q, row, s.name) + '">' + fmt(v[3]) + '</a> ' + esc(r.outcomes[v[4]]) : '–') + '</td>';
          });
          h += '<td>' + esc(clip(q[3], 80)) + '</td></tr>';
        });
        h += '</tbody></table><div class="pager"><button id="prev"' + (st.page ? '' : ' disabled') + '>← previous</button> page ' + (st.page + 1) + ' of ' + pages +
          ' <button id="next"' + (st.page + 1 < pages ? '' : ' disabled') + '>next →</button></div>';
        el('rows').innerHTML = h;
        el('prev').onclick = function () { st.page--; renderRows(); };
        el('next').onclick = function () { st.page++; renderRows(); };
        // How long loading (index, pages) and rendering took, for the
        // size benchmark and the 100k test.
        app.dataset.loadMs = t1 - t0;
        app.dataset.renderMs = Date.now() - t1;
        // Since navigation started: the page, its scripts, the index, the
        // page files and the render, i.e. how long the list took to show.
        app.dataset.readyMs = Math.round(performance.now());
        app.dataset.state = 'list';
      });
    }).catch(fail);
  }

  function clip(s, n) { s = String(s || ''); return s.length > n ? s.slice(0, n - 1) + '…' : s; }

  function fail(e) {
    app.dataset.state = 'error';
    app.insertAdjacentHTML('beforeend', '<p class="error">' + esc(e && e.message || e) + '</p>');
  }

  // highlight escapes text and marks the gold answer in it: the whole answer
  // when it occurs, else its words of four letters or more.
  function highlight(text, gold) {
    gold = String(gold || '').trim();
    if (!gold) return esc(text);
    var reEsc = function (s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); };
    var terms = [];
    if (text.toLowerCase().indexOf(gold.toLowerCase()) >= 0) terms = [gold];
    else if (gold.length < 300) terms = gold.split(/[^\p{L}\p{N}]+/u).filter(function (w) { return w.length >= 4; });
    if (!terms.length) return esc(text);
    var re = new RegExp('(' + terms.map(reEsc).join('|') + ')', 'giu');
    return text.split(re).map(function (part, i) { return i % 2 ? '<mark>' + esc(part) + '</mark>' : esc(part); }).join('');
  }

  function params() {
    var p = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      p[decodeURIComponent(i < 0 ? kv : kv.slice(0, i))] = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1).replace(/\+/g, ' '));
    });
    return p;
  }

  function showQuestion(p) {
    var ri = Number(p.run || 0), r = runs[ri];
    if (!r) return fail(new Error('no run ' + p.run));
    st.run = ri;
    app.dataset.state = 'loading';
    app.innerHTML = '<p><a href="#run=' + ri + '">← back to the question list</a></p><div id="detail" class="detail">loading…</div>';
    loadIndex(ri).then(function (x) {
      // The row in the link finds the question's page at once; a link
      // without it (or from an older report) looks the ids up in the
      // search file.
      var ri0 = p.r != null && p.r !== '' ? Number(p.r) : -1;
      var byRow = ri0 >= 0 && ri0 < x.n ? loadRows(ri, [ri0]).then(function () {
        var q = rowAt(ri, x, ri0).q;
        return q && q[0] === p.ep && q[1] === p.q ? x.qi[ri0] : -1;
      }) : Promise.resolve(-1);
      return byRow.then(function (qi) {
        if (qi >= 0) return qi;
        return load('w-' + ri).then(function (w) {
          for (var i = 0; i < w.length; i++) if (w[i][0] === p.ep && w[i][1] === p.q) return i;
          return -1;
        });
      }).then(function (qi) {
        if (qi < 0) throw new Error('question ' + p.ep + '/' + p.q + ' is not in this run');
        var is = [];
        for (var i = x.start[qi]; i < x.start[qi + 1]; i++) is.push(i);
        return loadRows(ri, is).then(function () {
          var rows = is.map(function (i) { return rowAt(ri, x, i); });
          var row = rows.filter(function (y) { return (p.b == null || String(y.b) === p.b) && (p.v == null || (r.variants[y.vi] || '') === p.v); })[0] || rows[0];
          renderQuestion(ri, row.q, row, rows, p.sys);
        });
      });
    }).catch(fail);
  }

  function renderQuestion(ri, q, row, rows, sys) {
    var r = runs[ri];
    var h = '<h3>' + esc(q[0]) + ' / ' + esc(q[1]) + ' <small class="muted">' + esc(named(r.category_labels, q[2])) + ' · budget ' + esc(named(r.budget_labels, row.b)) + (r.variants.length > 1 ? ' · ' + esc(r.variants[row.vi] || 'reference') : '') + '</small></h3>';
    if (q[5]) h += '<div class="qtext" id="qtext">' + esc(q[5]) + '</div>';
    h += '<dl class="trace"><dt>Gold</dt><dd><mark>' + esc(q[3]) + '</mark></dd>';
    if (q[4]) h += '<dt>Confounder</dt><dd>' + esc(q[4]) + '</dd>';
    if (q[6]) h += '<dt>Labels</dt><dd>' + Object.keys(q[6]).sort().map(function (k) { return esc(k) + '=' + esc(q[6][k]); }).join(', ') + '</dd>';
    if (q[7]) h += '<dt>Gold evidence</dt><dd>' + q[7].map(function (s) { return '<span class="src gold">' + esc(s) + '</span>'; }).join('') + '</dd>';
    h += '</dl>';
    if (rows.length > 1) {
      h += '<p>Also: ' + rows.filter(function (x) { return x !== row; }).map(function (x) {
        return '<a href="' + link(ri, q, x, sys) + '">budget ' + x.b + (r.variants.length > 1 ? ' · ' + esc(r.variants[x.vi] || 'reference') : '') + '</a>';
      }).join(' · ') + '</p>';
    }
    var systems = r.systems.filter(function (s) { return row.per[s.name]; });
    h += '<table class="compare" id="compare"><thead><tr><th></th>' + systems.map(function (s) { return '<th>' + esc(s.name) + '</th>'; }).join('') + '</tr></thead><tbody>';
    var line = function (label, f) { h += '<tr><th>' + label + '</th>' + systems.map(function (s) { var x = row.per[s.name]; return '<td class="' + (label === 'Score' ? cls(x) : '') + '">' + f(x) + '</td>'; }).join('') + '</tr>'; };
    line('Prediction', function (x) { return x[8] ? '<span class="error">' + esc(x[8]) + '</span>' : highlight(x[7], q[3]); });
    line('Score', function (x) { return fmt(x[3]) + ' ' + esc(r.outcomes[x[4]]) + ' <span class="muted">(' + esc(x[15]) + ')</span>'; });
    var scorers = {};
    systems.forEach(function (s) { Object.keys(row.per[s.name][9] || {}).forEach(function (k) { scorers[k] = true; }); });
    Object.keys(scorers).sort().forEach(function (k) {
      line('Judge ' + esc(k), function (x) {
        var v = (x[9] || {})[k];
        if (!v) return '–';
        return fmt(v[0]) + (v[1] ? ' ' + esc(v[1]) : '') + (v[3] ? ' <span class="muted">heuristic</span>' : '') + (v[2] ? '<pre class="raw">' + esc(v[2]) + '</pre>' : '');
      });
    });
    line('Evidence tokens', function (x) { return x[5]; });
    line('Evidence recall', function (x) { return x[6] < 0 ? '–' : fmt(x[6]); });
    line('Channels', function (x) { return x[12] ? Object.keys(x[12]).sort().map(function (c) { return '<span class="chan">' + esc(c) + ' ' + x[12][c] + '</span>'; }).join(' ') : '–'; });
    line('Parent in branch', function (x) { return x[13] == null ? '–' : (x[13] ? 'yes' : 'no'); });
    line('Full query', function (x) { return fmt(x[14], 3) + ' s'; });
    h += '</tbody></table>';
    var withBundle = systems.filter(function (s) { return row.per[s.name][10] >= 0; });
    if (!withBundle.length) {
      h += '<p class="muted" id="nobundle">No evidence bundles recorded for this question (run made before bundles.jsonl, or run.bundles: off).</p>';
      el('detail').innerHTML = h;
      app.dataset.state = 'question';
      return;
    }
    var pick = withBundle.filter(function (s) { return s.name === sys; })[0] ||
      withBundle.filter(function (s) { return s.name === 'arbormem'; })[0] || withBundle[0];
    h += '<div class="tabs" id="tabs">' + withBundle.map(function (s) {
      return '<a href="' + link(ri, q, row, s.name) + '" class="' + (s === pick ? 'active' : '') + '">' + esc(s.name) + '</a>';
    }).join('') + '</div><div class="panel" id="panel">loading bundle…</div>';
    el('detail').innerHTML = h;
    var x = row.per[pick.name];
    var si = r.systems.indexOf(pick);
    load('b-' + ri + '-' + si + '-' + x[10]).then(function (chunk) {
      var b = bundleAt(chunk, x[11]), files = {};
      (b.items || []).forEach(function (it) { if (it.t) files[it.t[0]] = true; });
      var names = Object.keys(files);
      return Promise.all(names.map(function (f) { return load('t-' + ri + '-' + f); })).then(function (parts) {
        var texts = {};
        names.forEach(function (f, i) { texts[f] = parts[i]; });
        el('panel').innerHTML = renderBundle(b, texts, q, pick.name);
        return showForest(ri, row, q, pick.name, b);
      }).then(function () {
        // Since navigation started: the question with its bundle, texts
        // and forest loaded, decoded and drawn (for BenchmarkReportQuestion).
        app.dataset.questionMs = Math.round(performance.now());
        app.dataset.state = 'question';
      });
    }).catch(fail);
  }

  // bundleAt expands bundle pos of a chunk into the form renderBundle reads:
  // {items: [{channel, block, tokens, sources, t: [file, index], missing}],
  // trace (its candidates as objects again), branch}.
  function bundleAt(chunk, pos) {
    var c = chunk.b[pos], n = chunk.n, trace = c.t >= 0 ? chunk.t[c.t] : null, out = { items: [], trace: trace, branch: c.branch };
    var at = []; // the bundle's item positions in chunk.u, runs expanded
    (c.i || []).forEach(function (k) {
      if (k >= 0) { at.push(k); return; }
      for (var p = at[at.length - 1], j = 1; j <= -k; j++) at.push(p + j); // a run: p, -k is p … p+k
    });
    at.forEach(function (k) {
      var it = chunk.u[k];
      out.items.push({
        channel: n[it[0]], block: it[1] >= 0 ? n[it[1]] : '', tokens: it[2],
        t: it[3] >= 0 ? [it[3], it[4]] : null, missing: it[3] === -2,
        sources: it.slice(5).map(function (k) { return n[k]; })
      });
    });
    var cs = trace && trace.candidates;
    if (cs && cs.cols) {
      var cands = (cs.vals[0] || []).map(function () { return {}; });
      cs.cols.forEach(function (k, j) {
        cs.vals[j].forEach(function (v, i) { if (v != null) cands[i][k] = v; });
      });
      out.trace = Object.assign({}, trace, { candidates: cands });
    }
    return out;
  }

  // showForest draws the forest that system's sample of row was answered
  // from (pkg/forestview's drawing), with the node the question's recall
  // chose circled; a run that recorded no forests says so.
  function showForest(ri, row, q, sys, b) {
    var r = runs[ri], box = el('forest-panel');
    if (!box) return Promise.resolve(); // no trace: a system without a forest
    var at = row.f[sys + '\x1f' + (r.variants[row.vi] || '') + '\x1f' + q[0]];
    if (!at) {
      box.innerHTML = '<p class="muted" id="noforest">' + (r.forests
        ? 'No forest recorded for this episode and system (its replay failed, or an arbor that did not record forests replayed it).'
        : 'The forest was not recorded: this run was made before runs wrote forests.jsonl (or with run.bundles: off).') + '</p>';
      return Promise.resolve();
    }
    return load('g-' + ri + '-' + at[0]).then(function (chunk) {
      var f = chunk[at[1]], chosen = b.trace && b.trace.parent || '';
      box.innerHTML = '<h4>Forest of ' + esc(sys) + ' at the end of ' + esc(q[0]) + ': ' + f.nodes.length + ' nodes, ' + (f.roots || []).length + ' branches' + (f.heuristic ? ' <span class="muted">(offline heuristic memory)</span>' : '') + '</h4>' +
        '<p class="muted">One lane and colour per branch, nodes in commit order; ' + (chosen ? 'circled in red: ' + esc(chosen) + ', the parent this question\'s recall chose' : 'this question\'s recall chose no node (a new root)') + '; hover a node for its topic and summary.</p>' +
        '<div class="forest" id="forest"></div>';
      drawForest(el('forest'), f, chosen);
      var c = chosen && document.getElementById('node-' + chosen);
      if (c) el('forest').scrollLeft = Math.max(0, Number(c.getAttribute('cx')) - 300);
    });
  }

  var partNames = { score: 'score', raw: 'rerank raw', prob: 'rerank p', ce: 's_ce', key: 's_key', rec: 's_rec', topic: 's_topic' };

  function renderBundle(b, texts, q, sys) {
    var gold = {};
    (q[7] || []).forEach(function (s) { gold[s] = true; });
    var items = b.items || [], tokens = 0;
    items.forEach(function (it) { tokens += it.tokens || 0; });
    var h = '<div id="bundle" data-system="' + esc(sys) + '">';
    var tr = b.trace;
    if (tr) {
      h += '<div id="trace"><h4>Localization trace</h4><dl class="trace">';
      h += '<dt>Localized</dt><dd>' + (tr.localized ? 'yes' : 'no') + '</dd>';
      if (tr.localized) {
        h += '<dt>Cascade step</dt><dd id="trace-step">' + esc(tr.path || '–') + '</dd>';
        h += '<dt>Chosen parent</dt><dd id="trace-parent">' + (tr.parent ? '<span class="src">' + esc(tr.parent) + '</span>' : 'new root') + '</dd>';
        if (tr.rules && tr.rules.length) h += '<dt>Decided by</dt><dd id="trace-rules">' + tr.rules.map(esc).join('<br>') + '</dd>';
      }
      if (b.branch && b.branch.length) h += '<dt>Branch path</dt><dd class="branch" id="trace-branch">' + b.branch.map(function (s) { return '<span class="src' + (gold[s] ? ' gold' : '') + '">' + esc(s) + '</span>'; }).join(' → ') + '</dd>';
      if (tr.channels) h += '<dt>Channels</dt><dd>' + Object.keys(tr.channels).sort().map(function (c) { return '<span class="chan">' + esc(c) + ' ' + tr.channels[c] + '</span>'; }).join(' ') + '</dd>';
      h += '</dl>';
      // The episode's forest, between the decision and its candidates
      // (showForest fills it).
      h += '<div id="forest-panel"></div>';
      var cands = tr.candidates || [];
      if (cands.length) {
        // Columns: the known score parts first, then any other number a
        // newer trace carries (e.g. the reranker's raw score).
        var cols = ['score', 'ce', 'key', 'rec', 'topic'].concat(['raw', 'prob'].filter(function (k) { return cands.some(function (c) { return typeof c[k] === 'number'; }); })), seen = {};
        cols.forEach(function (c) { seen[c] = true; });
        cands.forEach(function (c) { Object.keys(c).forEach(function (k) { if (!seen[k] && k !== 'node' && typeof c[k] === 'number') { seen[k] = true; cols.push(k); } }); });
        h += '<table class="cands" id="candidates"><thead><tr><th>candidate</th>' + cols.map(function (c) { return '<th>' + esc(partNames[c] || c) + '</th>'; }).join('') + '</tr></thead><tbody>';
        cands.forEach(function (c) {
          h += '<tr class="cand' + (c.node === tr.parent ? ' chosen' : '') + '"><td>' + esc(c.node) + '</td>' + cols.map(function (k) { return '<td>' + (c[k] == null ? '–' : fmt(c[k], 3)) + '</td>'; }).join('') + '</tr>';
        });
        h += '</tbody></table>';
      }
      h += '</div>';
    }
    h += '<h4>Evidence bundle of ' + esc(sys) + ': ' + items.length + ' items, ' + tokens + ' tokens</h4>';
    h += '<table class="items" id="items"><thead><tr><th>#</th><th>Channel</th><th>Block</th><th>Tokens</th><th>Sources</th><th>Text</th></tr></thead><tbody>';
    items.forEach(function (it, i) {
      var srcs = it.sources || [], isGold = srcs.some(function (s) { return gold[s]; });
      h += '<tr class="item' + (isGold ? ' goldsrc' : '') + '"><td>' + (i + 1) + '</td><td><span class="chan">' + esc(it.channel) + '</span></td><td>' + esc(it.block || '') + '</td><td>' + (it.tokens || 0) + '</td><td>' +
        srcs.map(function (s) { return '<span class="src' + (gold[s] ? ' gold' : '') + '">' + esc(s) + '</span>'; }).join('') + '</td><td><div class="itext">' +
        (it.t ? highlight(texts[it.t[0]][it.t[1]], q[3]) : '<span class="muted">(' + (it.missing ? 'text missing from bundle-texts.jsonl' : 'text not recorded: run.bundles: trace') + ')</span>') + '</div></td></tr>';
    });
    h += '</tbody></table>';
    return h + '</div>';
  }

  // route shows what the hash asks for: a question (#run=0&ep=..&q=..), a
  // run's question list (#run=0, #browse), or the tables (any other hash,
  // e.g. a section anchor). Without JavaScript every section shows at once.
  function route() {
    var p = params(), view = document.body.dataset.view;
    if (p.q != null && p.ep != null) { setView('browser'); showQuestion(p); return; }
    if (p.run != null && runs[Number(p.run)]) {
      if (st.run !== Number(p.run)) { st.run = Number(p.run); st.systems = null; st.page = 0; st.cat = ''; st.out = ''; st.outSys = '*'; st.bud = ''; st.vi = ''; }
      setView('browser'); showList(); return;
    }
    if (location.hash === '#browse') {
      setView('browser');
      if (view !== 'browser' || app.dataset.state !== 'list') showList();
      return;
    }
    setView('tables');
    // The anchor's section was hidden when the browser tried to scroll to it.
    var target = location.hash.length > 1 && document.getElementById(location.hash.slice(1));
    if (target && target.scrollIntoView) target.scrollIntoView();
  }

  function setView(v) {
    if (document.body.dataset.view === v) return;
    document.body.dataset.view = v;
    if (v === 'browser') window.scrollTo(0, 0);
  }

  function init(meta) {
    runs = meta || [];
    app = el('app');
    // Since navigation started: the browser's own start and index.html
    // parsed (readyMs less this is the browser's part of the list).
    app.dataset.initMs = Math.round(performance.now());
    if (!runs.length) { app.innerHTML = '<p class="muted">No runs.</p>'; return; }
    window.addEventListener('hashchange', route);
    route();
  }

  return { init: init, load: got, z: gunzip };
})();

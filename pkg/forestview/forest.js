// The forest drawn as a tree (pkg/forestview): one lane per root (branch
// colour), nodes in commit order from left to right, an edge from each node
// to its parent, each node's summary on hover; the node a recall chose is
// circled. arbor serve's page and arbor explain --html both draw with it.
var palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
function drawForest(el, f, chosen) {
  var lanes = {}, n = 0;
  (f.roots || []).forEach(function (r) { lanes[r] = n++; });
  var nodes = f.nodes || [], pos = {}, dx = 46, dy = 56, x0 = 30, y0 = 30;
  nodes.forEach(function (nd, i) { pos[nd.id] = [x0 + i * dx, y0 + lanes[nd.root] * dy]; });
  var w = x0 * 2 + Math.max(nodes.length - 1, 0) * dx, h = y0 * 2 + Math.max(n - 1, 0) * dy;
  var s = '<svg id="forest-svg" xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '">';
  nodes.forEach(function (nd) {
    if (!nd.parent) return;
    var a = pos[nd.parent], b = pos[nd.id];
    s += '<path class="edge" d="M' + a[0] + ',' + a[1] + ' C' + (a[0] + b[0]) / 2 + ',' + a[1] + ' ' + (a[0] + b[0]) / 2 + ',' + b[1] + ' ' + b[0] + ',' + b[1] + '"/>';
  });
  nodes.forEach(function (nd) {
    var p = pos[nd.id], cls = "node" + (nd.id === f.active ? " active" : "") + (nd.id === chosen ? " chosen" : "");
    s += '<circle id="node-' + esc(nd.id) + '" class="' + cls + '" cx="' + p[0] + '" cy="' + p[1] + '" r="9" fill="' + palette[lanes[nd.root] % palette.length] + '">' +
      '<title>' + esc(nd.id + " — " + (nd.topic || "") + "\n" + nd.summary) + '</title></circle>';
    s += '<text x="' + (p[0] - 14) + '" y="' + (p[1] + 24) + '">' + esc(nd.id.slice(-4)) + '</text>';
  });
  el.innerHTML = s + "</svg>";
}

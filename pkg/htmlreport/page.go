package htmlreport

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/arbor-eval/arbor/pkg/forestview"
	"github.com/arbor-eval/arbor/pkg/record"
	"github.com/arbor-eval/arbor/pkg/table"
)

//go:embed assets/app.js
var appJS string

//go:embed assets/style.css
var styleCSS string

// runView is one run's section of index.html.
type runView struct {
	Index    int
	ID       string
	Meta     runMeta
	Tables   []tableView
	Plots    []plotView
	Manifest template.HTML
	Summary  template.HTML
	Degraded template.HTML
	Samples  int
	Coverage string
}

type tableView struct {
	Name string
	HTML template.HTML
}

type plotView struct {
	Name string
	Src  string
}

func newRunView(i int, r *Run, meta runMeta, samples []record.Sample) (*runView, error) {
	v := &runView{Index: i, ID: r.ID, Meta: meta, Samples: len(samples), Coverage: r.Coverage}
	for _, t := range r.Tables {
		v.Tables = append(v.Tables, tableView{Name: t.Name, HTML: template.HTML(t.Table.HTML())})
	}
	v.Summary = manifestSummary(r.Manifest)
	if r.Manifest != nil {
		v.Manifest = renderJSON(r.Manifest, 0)
	}
	v.Degraded = degradedTable(samples, r.Episodes)
	return v, nil
}

// summaryKeys are the manifest fields shown first, when present; any other
// top-level field with a plain value follows, so fields added by later
// versions appear without a change here.
var summaryKeys = []string{"run_id", "kind", "benchmark", "created", "updated", "arbor_version", "arbor_commit", "seed", "fingerprint", "shard"}

// manifestSummary is a two-column table of the manifest's plain top-level
// fields, the dataset (path, hash) and the models of every endpoint.
func manifestSummary(m map[string]any) template.HTML {
	if m == nil {
		return template.HTML(`<p class="muted">No manifest.json in this run.</p>`)
	}
	var b strings.Builder
	b.WriteString(`<table class="kv summary">`)
	row := func(k string, v any) {
		b.WriteString("<tr><th>" + html.EscapeString(k) + "</th><td>" + string(renderJSON(v, 1)) + "</td></tr>")
	}
	done := map[string]bool{}
	for _, k := range summaryKeys {
		if v, ok := m[k]; ok {
			row(k, v)
			done[k] = true
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if done[k] {
			continue
		}
		switch v := m[k].(type) {
		case map[string]any:
			if k == "dataset" {
				row(k, v)
			}
		case []any:
			if k == "endpoints" || k == "systems" || k == "budgets" || k == "heuristic" || k == "command" || k == "variants" {
				row(k, v)
			}
		default:
			row(k, v)
		}
	}
	b.WriteString("</table>")
	return template.HTML(b.String())
}

// renderJSON renders any decoded JSON value as nested HTML: objects as
// key/value tables, lists of objects as tables with one column per key,
// other lists as comma-separated values. Every string is escaped.
func renderJSON(v any, depth int) template.HTML {
	esc := html.EscapeString
	switch x := v.(type) {
	case nil:
		return `<span class="muted">null</span>`
	case string:
		if x == "" {
			return `<span class="muted">""</span>`
		}
		return template.HTML(esc(x))
	case bool:
		return template.HTML(strconv.FormatBool(x))
	case float64:
		return template.HTML(strconv.FormatFloat(x, 'g', -1, 64))
	case map[string]any:
		if len(x) == 0 {
			return `<span class="muted">{}</span>`
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString(`<table class="kv">`)
		for _, k := range keys {
			b.WriteString("<tr><th>" + esc(k) + "</th><td>" + string(renderJSON(x[k], depth+1)) + "</td></tr>")
		}
		b.WriteString("</table>")
		return template.HTML(b.String())
	case []any:
		if len(x) == 0 {
			return `<span class="muted">[]</span>`
		}
		if objs, cols := objectList(x); objs {
			var b strings.Builder
			b.WriteString(`<table class="list"><tr>`)
			for _, c := range cols {
				b.WriteString("<th>" + esc(c) + "</th>")
			}
			b.WriteString("</tr>")
			for _, e := range x {
				b.WriteString("<tr>")
				m := e.(map[string]any)
				for _, c := range cols {
					b.WriteString("<td>" + string(renderJSON(m[c], depth+1)) + "</td>")
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</table>")
			return template.HTML(b.String())
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = string(renderJSON(e, depth+1))
		}
		return template.HTML(strings.Join(parts, ", "))
	}
	b, _ := json.Marshal(v)
	return template.HTML(esc(string(b)))
}

// objectList reports whether every element is an object, with the union of
// their keys in sorted order.
func objectList(xs []any) (bool, []string) {
	seen := map[string]bool{}
	for _, e := range xs {
		m, ok := e.(map[string]any)
		if !ok {
			return false, nil
		}
		for k := range m {
			seen[k] = true
		}
	}
	return true, sortedKeys(seen)
}

// degradedTable renders the degraded counts per system as a table.Table, so
// it reads like the others.
func degradedTable(samples []record.Sample, episodes []record.EpisodeStat) template.HTML {
	rows, cols := degraded(samples, episodes)
	t := table.Table{Title: "Degraded operations and errors", Stub: "System",
		Columns: []table.Column{{Name: "Samples"}, {Name: "Sample errors"}, {Name: "Episodes"}, {Name: "Episode errors"}, {Name: "Degraded episodes"}}}
	for _, c := range cols {
		t.Columns = append(t.Columns, table.Column{Name: strings.ReplaceAll(c, "_", " ")})
	}
	for _, r := range rows {
		cells := []table.Cell{table.V(float64(r.Samples)), table.V(float64(r.SampleErrs)), table.V(float64(r.Episodes)), table.V(float64(r.EpisodeErrs)), table.V(float64(r.Degraded))}
		for _, c := range cols {
			cells = append(cells, table.V(r.Counts[c]))
		}
		t.Rows = append(t.Rows, table.Row{Label: r.System, Cells: cells})
	}
	if len(cols) == 0 {
		t.Notes = append(t.Notes, "No episode recorded any degraded memory operation (fallbacks, model errors, bad or repaired replies, ingestion errors).")
	}
	return template.HTML(t.HTML())
}

var pageTmpl = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>arbor report{{range .Runs}} · {{.ID}}{{end}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>arbor report</h1>
<nav>
<a href="#tables">Tables</a>
{{- if .Combined}}<a href="#combined">Combined</a>{{end}}
{{- range .Runs}}<a href="#run-{{.Index}}">{{.ID}}</a>{{end}}
<a href="#browse" id="nav-browse">Question browser</a>
</nav>
</header>
<main>
<span id="tables"></span>
{{- if .Combined}}
<section id="combined" class="run">
<h2>Combined runs</h2>
{{range .Combined}}<div class="table" id="table-combined-{{.Name}}">{{.HTML}}</div>
{{end}}</section>
{{- end}}
{{- range $r := .Runs}}
<section id="run-{{.Index}}" class="run">
<h2>{{.ID}} <small>{{.Meta.Kind}} · {{.Meta.Benchmark}} · {{.Samples}} samples</small></h2>
{{- if .Coverage}}
<p class="coverage" id="coverage-{{.Index}}">{{.Coverage}}</p>
{{- end}}
<h3>Tables</h3>
{{range .Tables}}<div class="table" id="table-{{$r.Index}}-{{.Name}}">{{.HTML}}</div>
{{end}}
{{- if .Plots}}<h3>Plots</h3>
<div class="plots">{{range .Plots}}<figure><img src="{{.Src}}" alt="{{.Name}}"><figcaption>{{.Name}}</figcaption></figure>{{end}}</div>
{{- end}}
<h3>Degraded counts</h3>
<div class="table degraded">{{.Degraded}}</div>
<h3>Manifest</h3>
{{.Summary}}
{{- if .Manifest}}
<details class="manifest"><summary>Full manifest (config, prompts, endpoints)</summary>{{.Manifest}}</details>
{{- end}}
</section>
{{- end}}
<section id="browser" class="browser">
<h2 id="browse">Question browser</h2>
<noscript><p>The question browser needs JavaScript; the tables above do not.</p></noscript>
<div id="app" data-state="idle"></div>
</section>
</main>
<script>{{.ForestJS}}</script>
<script>{{.JS}}</script>
{{range .Data}}<script>{{.}}</script>
{{end}}<script>ARBOR.init({{.Meta}});</script>
</body>
</html>
`))

// renderIndex writes index.html.
func renderIndex(w io.Writer, runs []runView, combined []Table, inline [][]byte) error {
	data := make([]template.JS, len(inline))
	for i, js := range inline {
		data[i] = template.JS(js)
	}
	metas := make([]runMeta, len(runs))
	for i, r := range runs {
		metas[i] = r.Meta
	}
	var cv []tableView
	for _, t := range combined {
		cv = append(cv, tableView{Name: t.Name, HTML: template.HTML(t.Table.HTML())})
	}
	err := pageTmpl.Execute(w, map[string]any{
		"Runs":     runs,
		"Combined": cv,
		"CSS":      template.CSS(styleCSS + "\n" + forestview.CSS),
		"JS":       template.JS(appJS),
		"ForestJS": template.JS(forestview.JS),
		"Meta":     metas,
		"Data":     data,
	})
	if err != nil {
		return fmt.Errorf("render index.html: %w", err)
	}
	return nil
}

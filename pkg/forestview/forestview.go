// Package forestview shows an ArborMem forest: View is the forest as data
// (nodes, parents, roots, summaries; what arbor serve's memory API returns),
// JS draws it as a tree in a page, and WritePage writes a standalone page of
// one forest. arbor serve's page and `arbor explain --html` draw with the
// same code.
package forestview

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/arbor-eval/arbor/pkg/arbormem"
	"github.com/arbor-eval/arbor/pkg/dialog"
)

// JS defines drawForest(el, view, chosen): el's content becomes the forest
// of view drawn as an SVG tree, with the node chosen circled.
//
//go:embed forest.js
var JS string

// CSS styles what JS draws (edges, nodes, the active and the chosen node,
// labels); a page that draws a forest includes it.
const CSS = `svg .edge{stroke:#999;stroke-width:1.5;fill:none}
svg .node{stroke:#333;stroke-width:1} svg .node.active{stroke-width:3} svg .node.chosen{stroke:#d00;stroke-width:4}
svg text{font-size:11px;fill:#444}`

// Node is one node of a View.
type Node struct {
	ID     string    `json:"id"`
	Parent string    `json:"parent,omitempty"`
	Root   string    `json:"root"`
	Depth  int       `json:"depth"`
	Time   time.Time `json:"time"`
	// User is the user's message of the turn.
	User        string   `json:"user"`
	Summary     string   `json:"summary"`
	Topic       string   `json:"topic"`
	PathSummary string   `json:"path_summary"`
	Entities    []string `json:"entities,omitempty"`
}

// View is a forest as data: its nodes in commit order, its roots, and the
// active node.
type View struct {
	Scope     string   `json:"scope"`
	Heuristic bool     `json:"heuristic"`
	Nodes     []Node   `json:"nodes"`
	Roots     []string `json:"roots"`
	Active    string   `json:"active"`
}

// Of is sys's forest as a View; the caller keeps commits out meanwhile.
func Of(scope string, sys *arbormem.System) View {
	f := sys.Forest()
	v := View{Scope: scope, Heuristic: sys.Heuristic(), Nodes: make([]Node, 0, f.Len())}
	for _, n := range f.Nodes {
		fn := Node{ID: n.ID(), Root: f.Nodes[n.Root].ID(), Depth: n.Depth, Time: n.Time(), User: userText(n.Interaction),
			Summary: n.Summary, Topic: n.TopicKey, PathSummary: n.PathSummary, Entities: n.Entities}
		if n.Parent >= 0 {
			fn.Parent = f.Nodes[n.Parent].ID()
		} else {
			v.Roots = append(v.Roots, n.ID())
		}
		v.Nodes = append(v.Nodes, fn)
	}
	if f.Active >= 0 {
		v.Active = f.Nodes[f.Active].ID()
	}
	return v
}

// userText is the user's message of an interaction.
func userText(in dialog.Interaction) string {
	for _, t := range in.Turns {
		if t.Role == dialog.RoleUser {
			return t.Content
		}
	}
	return ""
}

// WritePage writes a standalone HTML page of v: the forest drawn as a tree
// with chosen circled, and note under it.
func WritePage(w io.Writer, title string, v View, chosen, note string) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// The data sits in a script element: "</" must not end it early.
	js := strings.ReplaceAll(string(data), "</", `<\/`)
	ch, _ := json.Marshal(chosen)
	_, err = fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222} %s #note{white-space:pre-wrap;max-width:60em}</style></head>
<body><h1>%s</h1><div id="forest"></div><div id="note">%s</div>
<script>
%s
drawForest(document.getElementById("forest"), %s, %s);
</script></body></html>
`, html.EscapeString(title), CSS, html.EscapeString(title), html.EscapeString(note), JS, js, ch)
	return err
}

package serve

import (
	_ "embed"
	"net/http"
	"strings"

	"github.com/arbor-eval/arbor/pkg/forestview"
)

// page is the page GET / serves: the scopes, and for one scope its forest
// drawn as a tree (branches coloured, the node a recall chose circled, each
// node's summary on hover), redrawn as the conversation goes. It reads the
// memory API, so it shows what the caller's token may read.
//
//go:embed assets/page.html
var pageTemplate string

// page is the page with the forest drawing of pkg/forestview in it.
var page = []byte(strings.Replace(pageTemplate, "{{FOREST_JS}}", forestview.JS, 1))

// index serves the page.
func (s *Server) index(w http.ResponseWriter, r *http.Request) int {
	if r.URL.Path != "/" {
		return fail(w, http.StatusNotFound, "no such page: %s", r.URL.Path)
	}
	// Without tokens the server is the loopback's alone, the page too; with
	// them the page (which holds no data) is public and its calls carry a
	// token.
	if len(s.auth.grants) == 0 {
		if ac := s.auth.check(r); ac.status != 0 {
			return fail(w, ac.status, "no tokens are configured (serve.tokens): only loopback clients are served")
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(page)
	return http.StatusOK
}

package serve

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"github.com/arbor-eval/arbor/pkg/config"
)

// authorizer decides who may use which scope: with tokens configured, a
// request must carry one of them (Authorization: Bearer …) and may use only
// the scopes that token names; with none, only loopback clients are served.
type authorizer struct {
	grants []grant
}

type grant struct {
	token  []byte
	scopes []string
}

func newAuthorizer(ts []config.ServeToken) authorizer {
	var a authorizer
	for _, t := range ts {
		a.grants = append(a.grants, grant{token: []byte(t.Token.Reveal()), scopes: t.Scopes})
	}
	return a
}

// access is what a request may do: its status is 0 when it is allowed
// (then scopes tells which), else the HTTP status to refuse it with.
type access struct {
	status int
	scopes []string // nil: any (loopback without tokens)
}

// check authenticates r.
func (a authorizer) check(r *http.Request) access {
	if len(a.grants) == 0 {
		if loopback(r.RemoteAddr) {
			return access{}
		}
		return access{status: http.StatusForbidden}
	}
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || tok == "" {
		return access{status: http.StatusUnauthorized}
	}
	for _, g := range a.grants {
		// Every grant is compared, in constant time, so the time taken
		// says nothing of which token is near.
		if subtle.ConstantTimeCompare(g.token, []byte(tok)) == 1 {
			return access{scopes: g.scopes}
		}
	}
	return access{status: http.StatusUnauthorized}
}

// allows reports whether the access may use scope.
func (ac access) allows(scope string) bool {
	if ac.status != 0 {
		return false
	}
	if ac.scopes == nil {
		return true
	}
	for _, p := range ac.scopes {
		if p == "*" || p == scope || strings.HasSuffix(p, "*") && strings.HasPrefix(scope, strings.TrimSuffix(p, "*")) {
			return true
		}
	}
	return false
}

// loopback reports whether a remote address is on this machine.
func loopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// The dialect interface: how a protocol revision claims, admits and shapes a
// message.

package dispatch

import (
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// era separates protocol revisions with an initialize handshake from the
// stateless ones.
type era uint8

const (
	// eraStateless revisions (2026-07-28) carry version and capabilities
	// in every request's _meta.
	eraStateless era = iota + 1
	// eraSession revisions (2025-11-25, 2025-06-18) negotiate once with
	// initialize.
	eraSession
)

// match is how strongly a dialect claims a message. The registry picks the
// strongest; among equals, the first in the Runtime's preference order.
type match uint8

const (
	// matchNone: the dialect cannot serve the message.
	matchNone match = iota
	// matchFallback: the dialect can answer it, usually with an error
	// that tells the client what is supported.
	matchFallback
	// matchClaim: the transport's version claim (HTTP header, or the
	// version negotiated on a stdio connection) names this dialect.
	matchClaim
	// matchExact: the message itself names this dialect's version.
	matchExact
)

// dialect is one protocol revision's rules: how it recognises its messages,
// admits them, and shapes results for the wire. The core operations are
// revision-neutral; a dialect maps methods onto them.
type dialect interface {
	// Version is the exact revision, such as "2026-07-28".
	Version() string
	// Era says whether the revision has an initialize handshake.
	Era() era
	// Detect reports how strongly the dialect claims req. metaVersion is
	// the protocol version named in the request's _meta ("" if none).
	Detect(req *Request, metaVersion string) match
	// Admit checks req under this revision and resolves its operation, or
	// returns the error to answer with. Admit never runs application code.
	Admit(rt *Runtime, req *Request) (*Call, *jsonrpc.Error)
	// ShapeResult turns an operation's protocol-neutral result into the
	// value encoded as the response's "result".
	ShapeResult(rt *Runtime, c *Call, result any) (any, error)
	// ShapeError adjusts an operation's error for this revision (for
	// example the code for an unknown resource).
	ShapeError(rt *Runtime, c *Call, e *jsonrpc.Error) *jsonrpc.Error
}

// builtinDialects are the revisions a Runtime can enable by version name.
// Adding a revision means adding its dialect here; the pipeline does not
// change.
var builtinDialects = map[string]func() dialect{
	mcp.Version20260728: func() dialect { return dialect20260728{} },
	mcp.Version20251125: func() dialect { return newLegacyDialect(mcp.Version20251125) },
	mcp.Version20250618: func() dialect { return newLegacyDialect(mcp.Version20250618) },
}

// registry is the Runtime's immutable set of enabled dialects in preference
// order.
type registry struct {
	dialects []dialect
	versions []string
}

func newRegistry(versions []string, extra []dialect) (registry, error) {
	var r registry
	seen := map[string]bool{}
	add := func(d dialect) error {
		if seen[d.Version()] {
			return fmt.Errorf("dispatch: protocol version %q enabled twice", d.Version())
		}
		seen[d.Version()] = true
		r.dialects = append(r.dialects, d)
		r.versions = append(r.versions, d.Version())
		return nil
	}
	for _, v := range versions {
		mk, ok := builtinDialects[v]
		if !ok {
			return r, fmt.Errorf("dispatch: unknown protocol version %q", v)
		}
		if err := add(mk()); err != nil {
			return r, err
		}
	}
	for _, d := range extra {
		if err := add(d); err != nil {
			return r, err
		}
	}
	if len(r.dialects) == 0 {
		return r, fmt.Errorf("dispatch: no protocol version enabled")
	}
	return r, nil
}

// errNoDialect answers a message no enabled dialect recognises.
var errNoDialect = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: no enabled protocol version recognises the request"}

// selectDialect picks the dialect that serves req. An initialize goes to
// the session-era dialect of the version it asks for (or the preferred
// one), unless the message or the transport names a stateless revision,
// whose dialect then answers it (initialize does not exist there). Any
// other message that names no revision itself (no _meta version) and is
// claimed by no dialect goes to the preferred dialect whose revision has
// its method, initialize-era first (see unversioned): only those
// revisions have messages without a version, and the 2025-06-18
// transport says a server that cannot tell SHOULD assume one. A message
// claimed only through the transport by a revision that does not have its
// method (ping with a 2026-07-28 header) goes to an initialize-era
// dialect that has it.
func (r *registry) selectDialect(req *Request) (dialect, *jsonrpc.Error) {
	mv := req.members().protocolVersion(req.Message.Params)
	var best dialect
	bestMatch := matchNone
	for _, d := range r.dialects {
		if m := d.Detect(req, mv); m > bestMatch {
			best, bestMatch = d, m
		}
	}
	if req.Message.Method == "initialize" && (best == nil || bestMatch < matchClaim || best.Era() != eraStateless) {
		if d := r.forInitialize(req); d != nil {
			return d, nil
		}
	}
	if mv == "" && req.Message.Method != "initialize" {
		m := req.Message.Method
		switch {
		case bestMatch <= matchFallback && versionClaim(req) == "":
			if d := r.unversioned(m); d != nil {
				return d, nil
			}
		case bestMatch == matchClaim && best.Era() == eraStateless && !hasMethod(best, m):
			// A claim from outside the message (a header) does not make it
			// a message of a revision that does not have its method.
			if d := r.firstWith(eraSession, m); d != nil {
				return d, nil
			}
		}
	}
	if best == nil {
		return nil, errNoDialect
	}
	return best, nil
}

// versionClaim is the version the transport claims outside the message:
// the MCP-Protocol-Version header on HTTP when present, else the version
// the request's session negotiated, else Request.ProtocolVersion.
func versionClaim(req *Request) string {
	if req.Header != nil {
		if v, present, _ := singleHeader(req.Header, mcp.HeaderProtocolVersion); present {
			return v
		}
	}
	if v := req.Session.ProtocolVersion(); v != "" {
		return v
	}
	return req.ProtocolVersion
}

// runtimeChecker is implemented by built-in dialects that have something
// to say about a Runtime once it is built (components an older revision
// cannot carry). New calls it for every enabled dialect.
type runtimeChecker interface {
	checkRuntime(rt *Runtime)
}

// checkRuntime lets each enabled dialect inspect the finished Runtime.
func (r *registry) checkRuntime(rt *Runtime) {
	for _, d := range r.dialects {
		if c, ok := d.(runtimeChecker); ok {
			c.checkRuntime(rt)
		}
	}
}

// methodTable is a built-in dialect that knows its revision's methods.
type methodTable interface {
	hasMethod(method string) bool
}

func hasMethod(d dialect, method string) bool {
	t, ok := d.(methodTable)
	return ok && t.hasMethod(method)
}

// firstWith is the preferred dialect of the era whose revision has
// method, or nil.
func (r *registry) firstWith(era era, method string) dialect {
	for _, d := range r.dialects {
		if d.Era() == era && hasMethod(d, method) {
			return d
		}
	}
	return nil
}

// unversioned picks the dialect for a message that names no revision:
// the preferred one whose revision has its method, initialize-era
// revisions first (only they have messages without a version; a
// server/discover without _meta is a 2026-07-28 request missing it), and
// the preferred initialize-era one for a method no revision has.
func (r *registry) unversioned(method string) dialect {
	if d := r.firstWith(eraSession, method); d != nil {
		return d
	}
	if d := r.firstWith(eraStateless, method); d != nil {
		return d
	}
	for _, d := range r.dialects {
		if d.Era() == eraSession {
			return d
		}
	}
	return nil
}

// forInitialize picks the session-era dialect for an initialize request:
// the client's version if enabled, else the first session-era dialect.
func (r *registry) forInitialize(req *Request) dialect {
	var requested string
	if raw, ok := jsonwire.Member(req.Message.Params, "protocolVersion"); ok {
		requested, _ = jsonwire.Unquote(raw)
	}
	var first dialect
	for _, d := range r.dialects {
		if d.Era() != eraSession {
			continue
		}
		if d.Version() == requested {
			return d
		}
		if first == nil {
			first = d
		}
	}
	return first
}

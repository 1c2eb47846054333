package streamablehttp

// Request and Response: an exchange as any HTTP server can describe it.

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// Request is an HTTP request as any server can describe it: the value
// [Handler.Prepare] and [Handler.Handle] take, so that a server other than
// net/http can host MCP.
type Request struct {
	// Method is the HTTP method ("POST").
	Method string
	// Path is the request path, without the query.
	Path string
	// Host is the Host header (net/http keeps it out of Header). When
	// empty, Header's Host is used.
	Host string
	// Header holds the request headers with canonical keys
	// (textproto.CanonicalMIMEHeaderKey).
	Header http.Header
	// ContentLength is the declared body length, or -1 when none was
	// declared (411).
	ContentLength int64
	// TransferEncoding lists the declared transfer codings; any gets 411.
	TransferEncoding []string
	// Body yields the body. The host bounds how long reading it may take;
	// a read that fails with a deadline error gets 408.
	Body io.Reader
	// Peer is the client's address. It scopes duplicate request ids: two
	// requests with the same id are refused only when they come from the
	// same peer at once. Empty means no duplicate check.
	Peer string
	// Principal is the verified identity the host's authentication
	// attached. It reaches handlers as RequestInfo.Principal; identity
	// never comes from the MCP message.
	Principal any
}

// Response is a complete HTTP response.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// ContentType is the body's media type, or "" with no body.
	ContentType string
	// Header holds other headers to send (Allow, Connection), or nil.
	Header http.Header
	// Body is the body; for JSON-RPC it is one ASCII-only JSON object.
	Body []byte
}

// ErrShuttingDown is returned by [StreamResponse.Next] when the handler
// stopped while the stream was open.
var ErrShuttingDown = errors.New("streamablehttp: shutting down")

type principalKey struct{}

// ContextWithPrincipal returns a context carrying a verified principal,
// for an application's authentication middleware to attach before the
// [Handler] runs. The handler passes it to the request as its principal.
func ContextWithPrincipal(ctx context.Context, principal any) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// principalFromContext returns the principal [ContextWithPrincipal]
// attached, or nil.
func principalFromContext(ctx context.Context) any { return ctx.Value(principalKey{}) }

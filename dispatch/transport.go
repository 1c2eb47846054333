// Transport-author API: what a transport hands the Runtime with each
// message (Request, TransportKind, Notifier) and what admission gives back
// (Call). The files transport_*.go hold the rest of it: running a message
// (Dispatch, Admit, Execute, Outcome), the initialize-era Session, and
// subscription streams (OpenStream, Stream). A server author never needs
// these; the stdio, Streamable HTTP and in-process transports use them.

package dispatch

import (
	"context"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// TransportKind says which transport a request arrived on.
type TransportKind uint8

const (
	// TransportDirect is an in-process call with no I/O.
	TransportDirect TransportKind = iota
	// TransportStdio is newline-delimited JSON over a byte stream.
	TransportStdio
	// TransportHTTP is Streamable HTTP.
	TransportHTTP
)

// String returns the transport's name as logs and instrumentation show
// it: "direct", "stdio" or "http".
func (k TransportKind) String() string {
	switch k {
	case TransportStdio:
		return "stdio"
	case TransportHTTP:
		return "http"
	}
	return "direct"
}

// Request is one decoded inbound message as a transport hands it to the
// Runtime, with what the transport knows about it.
type Request struct {
	// Message is the decoded JSON-RPC message.
	Message *jsonrpc.Message
	// Transport is the transport the message arrived on.
	Transport TransportKind
	// ProtocolVersion is the version the connection claims outside the
	// message, for a transport that tracks it itself rather than through
	// Session: the version a successful initialize negotiated on the
	// connection, empty otherwise. On HTTP the MCP-Protocol-Version header
	// in Header plays this role, and Session's version takes precedence
	// over this field.
	ProtocolVersion string
	// Session is the initialize-era state of the connection (stdio) or
	// HTTP session the message belongs to; nil when there is none. The
	// version it negotiated is the transport's version claim when no
	// MCP-Protocol-Version header says otherwise.
	Session *Session
	// Header holds the HTTP request headers, keyed in canonical form
	// (net/http's textproto rules). Nil on other transports.
	Header map[string][]string
	// Principal is the verified identity the application attached (for
	// instance from its HTTP authentication middleware). Identity never
	// comes from the MCP message itself.
	Principal any
	// Notifier delivers request-scoped notifications (progress, log
	// messages). Nil means they are dropped.
	Notifier Notifier

	// params are the members of Message.Params admission reads, found
	// once (params_index.go).
	params paramMembers
}

// Notifier delivers a request-scoped notification frame on the request's
// own stream, before its response. Notify returns once the frame has been
// written, or with an error if it could not be.
type Notifier interface {
	// Notify writes frame on the request's stream.
	Notify(ctx context.Context, frame []byte) error
}

// Call is a request admitted by a dialect: it knows which operation serves
// it and how its result will be shaped. Obtain one from [Runtime.Admit].
type Call struct {
	// Info describes the request.
	Info RequestInfo
	// Params is the raw params object (nil when absent). It may be
	// replaced, not changed in place: the Call keeps where the members a
	// tools/call reads are in the slice it was admitted with.
	Params []byte
	// dialect is the protocol revision serving the call.
	dialect dialect
	// op is the operation that serves it.
	op operation
	// Notifier is the request's notification sink (may be nil).
	Notifier Notifier
	// Input holds the multi round-trip members (inputResponses,
	// requestState) admission checked; nil when the request had none.
	Input *Input
	// Session is the request's initialize-era session, if any.
	Session *Session

	// listenFilter is a subscriptions/listen's filter, parsed at
	// admission.
	listenFilter *mcp.SubscriptionFilter
	// clientInfo is what Info.ClientInfo points to when admission copied
	// it from a cached _meta: the call's own copy, in the call.
	clientInfo mcp.Implementation
	// params are where the members of Params a tools/call reads are,
	// when admission could tell in 16 bytes (params_index.go).
	params toolMembers
	// shaped is a 2026-07-28 tools/call result as its dialect shaped it,
	// kept in the call so shaping allocates nothing.
	shaped wire26CallTool
}

// SessionEra reports whether an initialize-era revision (2025-11-25,
// 2025-06-18) serves the call. An HTTP transport answers such a call's
// execution errors with 200 and requires a session for it when it issues
// sessions.
func (c *Call) SessionEra() bool { return c.dialect != nil && c.dialect.Era() == eraSession }

// operation serves one admitted call and returns a protocol-neutral result
// for the call's dialect to shape.
type operation func(ctx context.Context, rt *Runtime, c *Call) (any, error)

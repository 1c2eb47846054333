// Package clientconn is the contract between package client and its
// transports (client's own, and transports/inprocess): what a Client hands
// a transport when it connects, and what an open connection gives back.
package clientconn

import (
	"context"

	"github.com/snodo-go/snodo/jsonrpc"
)

// Peer is what a Client gives a transport when it connects.
type Peer struct {
	// Inbound receives messages the server sends outside any exchange:
	// server-to-client requests and notifications of the initialize era,
	// and notifications no exchange claims. It is called from the
	// transport's reading goroutine and must not block.
	Inbound func(msg *jsonrpc.Message)
	// Trace, when set, sees every frame as it crosses the wire (sent is
	// true for frames the client sends). It must not retain frame.
	Trace func(sent bool, frame []byte)
}

// Conn is one open connection to a server. Its methods are safe for
// concurrent use.
type Conn interface {
	// Call sends a request and returns the exchange that carries what the
	// server sends for it: notifications related to it, server-to-client
	// requests of the initialize era, and finally its response.
	Call(ctx context.Context, req *Outbound) (Exchange, error)
	// Send sends a notification, or a response to a server-to-client
	// request.
	Send(ctx context.Context, msg *Outbound) error
	// CacheKey identifies the server for a Cache shared by several
	// clients: connections with the same key reach the same server. ""
	// means unknown (the client then shares cached results with no other
	// client).
	CacheKey() string
	// Close ends the connection and releases everything it holds. It
	// returns once the transport's goroutines have ended (a spawned
	// process has exited). Exchanges still open end with ErrClosed.
	Close() error
}

// Exchange is the server's side of one request. A Client calls Next and
// Close from one goroutine at a time, and Close last.
type Exchange interface {
	// Next returns the next message for the request. The response is the
	// last; after it Next returns io.EOF. A transport failure ends the
	// exchange with an error (ErrClosed when the connection ended).
	Next(ctx context.Context) (*jsonrpc.Message, error)
	// Close releases the exchange. cancel is nil once the response has
	// arrived. Otherwise it is the encoded notifications/cancelled for the
	// request, and the transport tells the server the way its protocol
	// requires: stdio sends it; Streamable HTTP closes the response stream
	// (which is the cancellation on 2026-07-28) and, in the initialize
	// era, also posts it; in-process, the request's context is cancelled.
	Close(cancel []byte)
}

// Outbound is one message a Client sends, with what a transport needs to
// know about it besides its bytes.
type Outbound struct {
	// Frame is the encoded message, one JSON object without a newline.
	Frame []byte
	// ID is the request id; the zero ID for a notification. A response to
	// a server-to-client request carries that request's id and an empty
	// Method.
	ID jsonrpc.ID
	// Method is the JSON-RPC method; empty for a response.
	Method string
	// ProtocolVersion is the revision the message is sent under: the
	// probed or negotiated one, or empty for initialize itself. HTTP sends
	// it as MCP-Protocol-Version.
	ProtocolVersion string
	// Stateless is true for revisions without a handshake (2026-07-28):
	// HTTP then mirrors Mcp-Method, Mcp-Name and Mcp-Param-* headers, and
	// closing the response stream is how a request is cancelled.
	Stateless bool
	// Name is the value of the Mcp-Name header (params.name or
	// params.uri), already in header form, or "".
	Name string
	// ParamHeaders are the Mcp-Param-* headers from the tool's
	// x-mcp-header annotations, keyed by the full header name, values
	// already in header form.
	ParamHeaders map[string]string
	// ProgressToken is the request's progress token, if any: transports
	// that multiplex one stream route progress notifications by it.
	ProgressToken jsonrpc.ID
	// Stream is true for a subscriptions/listen request, whose response
	// stream stays open: transports bound each message instead of the
	// whole stream.
	Stream bool
}

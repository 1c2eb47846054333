package instrumentation

// The event of a request a transport refused before the core saw it.

// RefusalReason says why a transport refused a request. The set is
// closed: a transport reports each of its refusals with one of these.
// Its value is its name, as metric labels use it: the constant's name in
// snake case without its prefix ("origin", "session_not_found").
type RefusalReason string

const (
	// RefusalPath: the request path is not the endpoint's (HTTP 404).
	RefusalPath RefusalReason = "path"
	// RefusalMethodNotAllowed: an HTTP method the endpoint does not serve
	// (405).
	RefusalMethodNotAllowed RefusalReason = "method_not_allowed"
	// RefusalDraining: the transport is draining or shutting down (503).
	RefusalDraining RefusalReason = "draining"
	// RefusalOrigin: an Origin header that is not allowed (403).
	RefusalOrigin RefusalReason = "origin"
	// RefusalHost: a Host header that is not allowed (403).
	RefusalHost RefusalReason = "host"
	// RefusalContentType: the body is not application/json (415).
	RefusalContentType RefusalReason = "content_type"
	// RefusalAccept: the Accept header lacks a media type the response
	// may need (406).
	RefusalAccept RefusalReason = "accept"
	// RefusalLengthRequired: no Content-Length, or a Transfer-Encoding
	// (411).
	RefusalLengthRequired RefusalReason = "length_required"
	// RefusalBodyTooLarge: the body exceeds the transport's bound (413).
	RefusalBodyTooLarge RefusalReason = "body_too_large"
	// RefusalBodyTimeout: the body did not arrive within the body
	// timeout (408).
	RefusalBodyTimeout RefusalReason = "body_timeout"
	// RefusalHeaderTooLarge: the request head exceeds the listener's
	// bound (431, answered by net/http before any handler runs).
	RefusalHeaderTooLarge RefusalReason = "header_too_large"
	// RefusalMalformed: the body could not be read or is not one
	// JSON-RPC message (400).
	RefusalMalformed RefusalReason = "malformed"
	// RefusalSessionNotFound: the Mcp-Session-Id names no live session
	// (404).
	RefusalSessionNotFound RefusalReason = "session_not_found"
	// RefusalSessionInvalid: the Mcp-Session-Id is missing where a
	// session is required, malformed or repeated (400).
	RefusalSessionInvalid RefusalReason = "session_invalid"
	// RefusalSessionLimit: an initialize found every session place
	// taken (503).
	RefusalSessionLimit RefusalReason = "session_limit"
	// RefusalStreamOpen: a session's GET stream is already open (409).
	RefusalStreamOpen RefusalReason = "stream_open"
	// RefusalOverloaded: every execution slot is busy and the queue is
	// full (503).
	RefusalOverloaded RefusalReason = "overloaded"
	// RefusalSubscriptionLimit: the subscription cap is reached (503).
	RefusalSubscriptionLimit RefusalReason = "subscription_limit"
	// RefusalDuplicateID: a request with the same id from the same peer
	// is in flight (400).
	RefusalDuplicateID RefusalReason = "duplicate_id"
	// RefusalConnectionLimit: the listener was at its connection cap and
	// closed a new connection without reading it (no status).
	RefusalConnectionLimit RefusalReason = "connection_limit"
	// RefusalLineTooLong: a stdio line exceeds the transport's bound
	// (answered with -32600).
	RefusalLineTooLong RefusalReason = "line_too_long"
)

// RefusalEvent describes a request a transport refused on its own,
// before the dispatch core saw it (so no DispatchStart precedes it). It
// carries no body content, no header values and nothing the client named
// that the server does not know.
type RefusalEvent struct {
	// Transport is "stdio" or "http".
	Transport string
	// Reason says why.
	Reason RefusalReason
	// Status is the HTTP status of the refusal; 0 on stdio and for a
	// connection closed unread.
	Status int
	// Code is the JSON-RPC error code the refusal carried, or 0 when it
	// carried no JSON-RPC error (a plain-text 404 or 431).
	Code int64
	// HTTPMethod is the request's HTTP method when it is one of the
	// standard ones (RFC 9110 and PATCH), "_OTHER" for any other, and ""
	// on stdio.
	HTTPMethod string
	// Method is the JSON-RPC method when the transport refused an
	// admitted request (so one the server serves), else "".
	Method string
	// Session is the Mcp-Session-Id of the live session the request
	// belongs to, else "" (an unknown session's id is not reported).
	Session string
}

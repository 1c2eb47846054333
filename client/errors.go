package client

// The errors a Client returns, for errors.Is and errors.As.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/snodo-go/snodo/mcp"
)

// Errors a Client returns. Protocol errors from the server are
// *jsonrpc.Error values (find them with errors.As); a tool that fails
// reports it in its result's IsError, not as a Go error.
var (
	// ErrClosed: the connection ended, or the Client was closed.
	ErrClosed = errors.New("client: connection closed")
	// ErrFrameTooLarge: a message from the server is larger than the
	// transport's bound. On a stream transport it ends the connection,
	// since the message cannot be routed without reading it.
	ErrFrameTooLarge = errors.New("client: message from the server exceeds the size bound")
	// ErrTooManyPages: a paginated list did not end within the page bound
	// ([Limits].MaxPages), or returned a cursor it had already returned,
	// which would loop forever.
	ErrTooManyPages = errors.New("client: too many pages")
	// ErrTooManyInputRounds: a multi round-trip request still asked for
	// input after the round bound.
	ErrTooManyInputRounds = errors.New("client: too many input rounds")
	// ErrNoCommonVersion: the client and the server share no protocol
	// revision. The error wrapping it lists both sides' revisions.
	ErrNoCommonVersion = errors.New("client: no protocol version in common with the server")
	// ErrUnexpectedResult: a result the client cannot interpret, such as
	// an unknown resultType.
	ErrUnexpectedResult = errors.New("client: unexpected result")
)

// errSessionExpired: the server no longer knows the HTTP session (404 to
// a request carrying Mcp-Session-Id). The client starts a new session and
// retries once; the error reaches the caller only if that fails too.
var errSessionExpired = errors.New("client: the server ended the session")

// versionError reports a failed version negotiation: offered are the
// revisions the client speaks, supported those the server named, if any.
func versionError(offered, supported []string) error {
	return fmt.Errorf("%w: client speaks %s, server %s", ErrNoCommonVersion,
		strings.Join(offered, ", "), strings.Join(supported, ", "))
}

// HTTPError is an HTTP response that carried no JSON-RPC message.
type HTTPError struct {
	// StatusCode is the response's HTTP status.
	StatusCode int
	// Body is the start of the response body, for diagnosis.
	Body string
}

// Error names the status and the start of the body.
func (e *HTTPError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("client: HTTP status %d", e.StatusCode)
	}
	return fmt.Sprintf("client: HTTP status %d: %s", e.StatusCode, e.Body)
}

// InputRequiredError is returned when a server asks for input (a multi
// round-trip request) that no registered handler can give. The
// application may answer it itself and retry with [WithInputResponses].
type InputRequiredError struct {
	// Requests are the server's input requests, by key.
	Requests map[string]mcp.InputRequest
	// RequestState is the opaque state to echo on the retry.
	RequestState string
	// Missing names the methods no handler is registered for.
	Missing []string
}

// Error names the methods no handler answers.
func (e *InputRequiredError) Error() string {
	return fmt.Sprintf("client: the server asked for input no handler answers (%s)", strings.Join(e.Missing, ", "))
}

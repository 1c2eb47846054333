package client

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
	// ErrRepeatedCursor: a paginated list returned a cursor it had already
	// returned, which would loop forever.
	ErrRepeatedCursor = errors.New("client: the server repeated a pagination cursor")
	// ErrTooManyPages: a paginated list did not end within the page bound.
	ErrTooManyPages = errors.New("client: too many pages")
	// ErrTooManyInputRounds: a multi round-trip request still asked for
	// input after the round bound.
	ErrTooManyInputRounds = errors.New("client: too many input rounds")
	// ErrNoCommonVersion: the client and the server share no protocol
	// revision. The error is a *VersionError.
	ErrNoCommonVersion = errors.New("client: no protocol version in common with the server")
	// ErrSessionExpired: the server no longer knows the HTTP session
	// (404 to a request carrying Mcp-Session-Id), and starting a new one
	// did not help.
	ErrSessionExpired = errors.New("client: the server ended the session")
	// ErrUnexpectedResult: a result the client cannot interpret, such as
	// an unknown resultType.
	ErrUnexpectedResult = errors.New("client: unexpected result")
)

// VersionError reports a failed version negotiation.
type VersionError struct {
	// Offered are the revisions the client speaks.
	Offered []string
	// Supported are the revisions the server named, when it named any.
	Supported []string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("client: no protocol version in common: client speaks %s, server %s",
		strings.Join(e.Offered, ", "), strings.Join(e.Supported, ", "))
}

// Unwrap makes errors.Is(err, ErrNoCommonVersion) hold.
func (e *VersionError) Unwrap() error { return ErrNoCommonVersion }

// HTTPError is an HTTP response that carried no JSON-RPC message.
type HTTPError struct {
	StatusCode int
	// Body is the start of the response body, for diagnosis.
	Body string
}

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

func (e *InputRequiredError) Error() string {
	return fmt.Sprintf("client: the server asked for input no handler answers (%s)", strings.Join(e.Missing, ", "))
}

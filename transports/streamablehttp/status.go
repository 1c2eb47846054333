package streamablehttp

// HTTP statuses for JSON-RPC outcomes.

import (
	"net/http"
	"strconv"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// statusFor maps a JSON-RPC error code to the HTTP status of a 2026-07-28
// response; 0 means a result. Initialize-era revisions (sessionEra)
// answer execution errors with 200.
func statusFor(sessionEra bool, code int64) int {
	if code == 0 {
		return http.StatusOK
	}
	if sessionEra {
		return http.StatusOK
	}
	return admissionStatus(code)
}

// addRetryAfter sets Retry-After (RFC 9110, section 10.2.3: whole
// seconds, rounded up) on the response to a call a component policy
// refused with a retry time (dispatch.CodeRateLimited, dispatch.CodeBusy).
// The status stays what the code maps to (200): the refusal is a JSON-RPC
// error, and the header is a hint any client may read. A response that
// has become an event stream has sent its headers already; the error's
// data.retryAfterMs says the same there.
func addRetryAfter(resp *Response, r executor.Result) {
	out, ok := r.Value.(dispatch.Outcome)
	if !ok || out.RetryAfter <= 0 {
		return
	}
	secs := int64((out.RetryAfter + time.Second - 1) / time.Second)
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	resp.Header["Retry-After"] = []string{strconv.FormatInt(secs, 10)}
}

// refusalStatus is the HTTP status of an admission refusal. For an
// initialize-era client 404 means that its session is gone (it would
// start a new one), so an unknown method is refused with 200 there, as the
// JSON-RPC error it is.
func refusalStatus(out dispatch.Outcome) int {
	if out.SessionEra && out.ErrorCode == jsonrpc.CodeMethodNotFound {
		return http.StatusOK
	}
	return admissionStatus(out.ErrorCode)
}

// admissionStatus maps the code of a refusal to its HTTP status.
func admissionStatus(code int64) int {
	switch code {
	case 0:
		return http.StatusOK
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability,
		mcp.CodeUnsupportedProtocolVersion, jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return http.StatusBadRequest
	case jsonrpc.CodeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusOK
}

// Errors the transport answers with itself.
var (
	errMethodNotAllowed = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: use POST"}
	errOrigin           = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: Origin not allowed"}
	errHost             = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: Host not allowed"}
	errContentType      = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: Content-Type must be application/json"}
	errAccept           = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: Accept must list application/json and text/event-stream"}
	errLength           = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: a Content-Length is required and Transfer-Encoding is not supported"}
	errTooLarge         = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: body exceeds the maximum size"}
	errBodyTimeout      = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: body not received in time"}
	errBodyRead         = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: body could not be read"}
	errShuttingDown     = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Server is shutting down"}
	errCapacity         = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Server execution capacity exhausted"}
	errSubscriptionCap  = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Subscription limit reached"}
	errDuplicateID      = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: a request with this id is already in flight"}
	errTimedOut         = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request execution timed out"}
	errWorker           = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Request worker failed"}
	errSessionCap       = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Session limit reached"}
	errSessionRequired  = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: the Mcp-Session-Id header is required"}
	errSessionID        = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: the Mcp-Session-Id header is malformed or repeated"}
	errSessionNotFound  = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: session not found"}
	errStreamOpenRPC    = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: the session already has a GET stream"}
	errAcceptSSE        = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: Accept must list text/event-stream"}
)

// Header values shared by every response; net/http only reads them.
var (
	jsonContentType = []string{mediaJSON}
	sseContentType  = []string{mediaSSE}
	noCache         = []string{"no-cache"}
	noBuffering     = []string{"no"}
	allowPost       = []string{http.MethodPost}
	allowSessions   = []string{"GET, POST, DELETE"}
	connectionClose = []string{"close"}
)

// encodeError encodes an error response; an id that could not be read
// leaves the id member out, as 2026-07-28 requires.
func encodeError(id jsonrpc.ID, e *jsonrpc.Error) []byte { return rpcwire.EncodeError(id, e) }

// errorResponse is a JSON-RPC error with its HTTP status.
func errorResponse(status int, id jsonrpc.ID, e *jsonrpc.Error) *Response {
	return &Response{Status: status, ContentType: mediaJSON, Body: encodeError(id, e)}
}

package streamablehttp

// Refusals: the transport's own refusals, reported to the instrumentation
// sink with their reason.

import (
	"net/http"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/jsonrpc"
)

// refuse reports a refusal of req and returns its JSON-RPC error
// response.
func (h *Handler) refuse(req *Request, reason instrumentation.RefusalReason, status int, id jsonrpc.ID, e *jsonrpc.Error) *Response {
	h.noteRefusal(req.Method, reason, status, e.Code, "", "")
	return errorResponse(status, id, e)
}

// refuseCall reports a refusal of an admitted request (whose method the
// server serves), in session sess when it has one, and returns its
// JSON-RPC error response.
func (h *Handler) refuseCall(p *Prepared, reason instrumentation.RefusalReason, status int, e *jsonrpc.Error) *Response {
	if h.sink != nil {
		session := ""
		if p.sess != nil {
			session = p.sess.id
		}
		h.noteRefusal(http.MethodPost, reason, status, e.Code, p.call.Info.Method, session)
	}
	return errorResponse(status, p.call.Info.ID, e)
}

// noteRefusal sends a RefusalEvent to the sink. Without a sink it costs
// one comparison: the event is built only when someone hears it, and
// building it allocates nothing.
func (h *Handler) noteRefusal(httpMethod string, reason instrumentation.RefusalReason, status int, code int64, method, session string) {
	if h.sink == nil {
		return
	}
	h.sink.Refusal(instrumentation.RefusalEvent{
		Transport:  "http",
		Reason:     reason,
		Status:     status,
		Code:       code,
		HTTPMethod: standardMethod(httpMethod),
		Method:     method,
		Session:    session,
	})
}

// standardMethod returns m when it is a standard HTTP method, else
// "_OTHER": a method token is the client's to choose and unbounded.
func standardMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

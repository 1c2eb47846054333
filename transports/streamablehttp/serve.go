package streamablehttp

// ServeHTTP: net/http on top of Prepare and Execute.

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// ServeHTTP implements http.Handler on top of Prepare and Execute.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := Request{
		Method:           r.Method,
		Path:             r.URL.Path,
		Host:             r.Host,
		Header:           r.Header,
		ContentLength:    declaredLength(r),
		TransferEncoding: r.TransferEncoding,
		Peer:             r.RemoteAddr,
	}
	if resp := h.checkHead(&req); resp != nil {
		if req.ContentLength != 0 {
			// The body stays unread: the connection cannot carry another
			// request. After the handler returns, net/http still reads up
			// to 256 KiB of an unread body before it closes the
			// connection (so that a client still sending can read the
			// answer), with no deadline of its own: the body timeout
			// bounds that too, so a client that never sends the body
			// cannot hold the connection.
			w.Header()["Connection"] = connectionClose
			setReadDeadline(w, time.Now().Add(h.o.limits.BodyTimeout))
		}
		h.write(w, resp)
		return
	}
	if h.o.principal != nil {
		req.Principal = h.o.principal(r)
	} else {
		req.Principal = principalFromContext(r.Context())
	}
	if req.Method != http.MethodPost {
		// A session's GET stream or DELETE (checkHead allowed them).
		p, resp := h.prepareSessionMethod(&req)
		if resp != nil {
			h.write(w, resp)
			return
		}
		if resp, stream := h.Execute(r.Context(), p); stream != nil {
			h.writeStream(w, r, stream)
		} else {
			h.write(w, resp)
		}
		return
	}
	req.Body = r.Body
	if req.ContentLength > 0 {
		// The body must be complete within the body timeout. The read
		// deadline interrupts a blocked read; the reader also checks the
		// clock after each read, for servers without read deadlines.
		deadline := time.Now().Add(h.o.limits.BodyTimeout)
		setReadDeadline(w, deadline)
		req.Body = &deadlineReader{r: r.Body, deadline: deadline}
	}
	body, resp := h.readBody(&req)
	if resp != nil {
		w.Header()["Connection"] = connectionClose
		h.write(w, resp)
		return
	}
	p, resp := h.admit(&req, body)
	if resp != nil {
		h.write(w, resp)
		return
	}
	resp, stream := h.Execute(r.Context(), p)
	if stream != nil {
		h.writeStream(w, r, stream)
		return
	}
	if r.Context().Err() == nil { // mutation: http-writes-nothing-after-disconnect
		h.write(w, resp)
	}
}

// declaredLength is the body length the request declared, or -1 when it
// declared none (an HTTP/1 request without Content-Length reads as 0 in
// net/http).
func declaredLength(r *http.Request) int64 {
	if r.ContentLength == 0 && r.ProtoMajor < 2 && r.Header["Content-Length"] == nil {
		return -1
	}
	return r.ContentLength
}

// write sends a complete response.
func (h *Handler) write(w http.ResponseWriter, resp *Response) {
	hd := w.Header()
	for k, v := range resp.Header {
		hd[k] = v
	}
	switch resp.ContentType {
	case "":
	case mediaJSON:
		hd["Content-Type"] = jsonContentType
	default:
		hd["Content-Type"] = []string{resp.ContentType}
	}
	if h.draining.Load() {
		hd["Connection"] = connectionClose
	}
	if resp.Status != http.StatusNoContent {
		hd["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	if h.boundAllWrites {
		setWriteDeadline(w, time.Now().Add(h.o.limits.WriteTimeout))
	}
	w.WriteHeader(resp.Status)
	if len(resp.Body) > 0 {
		_, _ = w.Write(resp.Body)
	}
}

// writeStream sends an event stream, flushing each event. A write that
// fails or outlives the write timeout cancels the request.
func (h *Handler) writeStream(w http.ResponseWriter, r *http.Request, s *StreamResponse) {
	hd := w.Header()
	for k, v := range s.Header() {
		hd[k] = v
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(h.o.limits.WriteTimeout))
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		s.Close()
		return
	}
	for {
		chunk, err := s.Next(r.Context())
		if err != nil {
			return // the final event was written, or the request ended
		}
		_ = rc.SetWriteDeadline(time.Now().Add(h.o.limits.WriteTimeout))
		if _, err := w.Write(chunk); err != nil {
			s.dropped()
			return
		}
		if err := rc.Flush(); err != nil {
			s.dropped()
			return
		}
	}
}

// setReadDeadline sets the connection's read deadline when the
// ResponseWriter supports it (net/http's own does, for HTTP/1 and HTTP/2).
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(t)
}

func setWriteDeadline(w http.ResponseWriter, t time.Time) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(t)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(t)
}

// deadlineReader fails reads that return after the deadline, for servers
// whose connections cannot be given a read deadline.
type deadlineReader struct {
	r        io.Reader
	deadline time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err == nil && time.Now().After(d.deadline) {
		return n, errBodyDeadline
	}
	return n, err
}

package main

import (
	"bytes"
	"io"
	"net/http"

	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// front applies the library's own Streamable HTTP rules to a stateless
// request before it is relayed: path, method, Origin, media types, length
// and body bounds, the JSON envelope, and the 2026-07-28 header rules of
// dispatch admission, all through Handler.Prepare over the copy of the
// stdio server's tools (see headerRules). A prepared request is discarded
// (nothing runs in the bridge) and relayed instead.
//
// Only the refusals a stdio server could not make itself are answered
// here: the HTTP-level ones and -32020 (HeaderMismatch). Every other
// verdict on the body (unknown method, invalid params, requestState) is
// left to the stdio server, which owns the catalog and the requestState
// key, and which judges it by the same rules.
type front struct{ h *streamablehttp.Handler }

func newFront(rules *headerRules) (*front, error) {
	h, err := streamablehttp.NewHandler(rules.rt, streamablehttp.WithPath("/mcp"))
	if err != nil {
		return nil, err
	}
	return &front{h: h}, nil
}

func (f *front) close() { _ = f.h.Close() }

// refusal returns the library's answer when it refuses r on grounds the
// stdio server cannot see, or nil to relay the request.
func (f *front) refusal(r *http.Request, body []byte) *streamablehttp.Response {
	p, resp := f.h.Prepare(&streamablehttp.Request{
		Method: r.Method, Path: r.URL.Path, Host: r.Host, Header: r.Header,
		ContentLength: r.ContentLength, TransferEncoding: r.TransferEncoding,
		Body: bytes.NewReader(body),
	})
	if p != nil {
		p.Discard()
		return nil
	}
	code := errorCode(resp.Body)
	switch {
	case code == -32020:
		return resp
	case resp.Status == http.StatusNotFound && code == 0: // the path
		return resp
	case resp.Status == http.StatusAccepted, resp.Status == http.StatusBadRequest,
		resp.Status == http.StatusNotFound, resp.Status == http.StatusInternalServerError:
		return nil
	}
	return resp
}

// writeResponse writes a library Response.
func writeResponse(w http.ResponseWriter, resp *streamablehttp.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if resp.ContentType != "" {
		w.Header().Set("Content-Type", resp.ContentType)
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// readAllBounded reads at most maxBody+1 bytes, so that the library's own
// size rule decides about a body over the bound.
func readAllBounded(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, maxBody+1))
}

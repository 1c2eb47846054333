// This file is the round-robin transport of a Cluster's reverse proxy:
// each request goes to the next instance, and past one that refuses the
// connection.

package clustertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

// maxBodyBytes bounds a request body the proxy holds to send again.
const maxBodyBytes = 16 << 20

// proxy sends each request to the next instance in turn.
type proxy struct {
	targets []*Instance
	tr      *http.Transport
	next    atomic.Uint64
	skipped atomic.Int64
}

func newProxy(targets []*Instance) *proxy {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxIdleConnsPerHost = 16
	return &proxy{targets: targets, tr: tr}
}

// RoundTrip implements http.RoundTripper. The request goes to the
// instance after the one the previous request went to; when dialling it
// fails, nothing of the request was sent, and it goes to the one after,
// until every instance has been tried. Any other failure (a connection
// that breaks once the request is on it: the request may have run), or
// any failure once the request's context has ended, is returned.
func (p *proxy) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxBodyBytes+1))
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(b) > maxBodyBytes {
			return nil, fmt.Errorf("clustertest proxy: request body over %d bytes", maxBodyBytes)
		}
		body = b
	}
	n := uint64(len(p.targets))
	first := p.next.Add(1) - 1
	var errs []error
	for i := range n {
		in := p.targets[(first+i)%n]
		addr := in.Server.Addr().String()
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host, out.Host = "http", addr, addr
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.ContentLength = int64(len(body))
		}
		resp, err := p.tr.RoundTrip(out)
		if err == nil {
			return resp, nil
		}
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" || req.Context().Err() != nil {
			return nil, err
		}
		p.skipped.Add(1)
		errs = append(errs, fmt.Errorf("instance %s: %w", in.Name, err))
	}
	return nil, fmt.Errorf("clustertest proxy: no instance accepted the connection: %w", errors.Join(errs...))
}

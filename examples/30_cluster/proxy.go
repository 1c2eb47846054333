// This file is the proxy's round-robin transport: each request goes to
// the next instance, and past one that refuses the connection.

package main

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
	targets []*instance
	tr      *http.Transport
	next    atomic.Uint64
	// last is the index of the instance the last request went to.
	last atomic.Int64
}

func newProxy(targets []*instance) *proxy {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return &proxy{targets: targets, tr: tr}
}

// RoundTrip implements http.RoundTripper. When dialling an instance
// fails, nothing of the request was sent, so it goes to the next one;
// any other failure is returned (the request may have run).
func (p *proxy) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxBodyBytes+1))
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(b) > maxBodyBytes {
			return nil, fmt.Errorf("proxy: request body over %d bytes", maxBodyBytes)
		}
		body = b
	}
	n := uint64(len(p.targets))
	first := p.next.Add(1) - 1
	var errs []error
	for i := range n {
		idx := (first + i) % n
		addr := p.targets[idx].srv.Addr().String()
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host, out.Host = "http", addr, addr
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.ContentLength = int64(len(body))
		}
		resp, err := p.tr.RoundTrip(out)
		if err == nil {
			p.last.Store(int64(idx))
			return resp, nil
		}
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" || req.Context().Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("proxy: no instance accepted the connection: %w", errors.Join(errs...))
}

package client

// The Streamable HTTP transport: POSTs, server-sent event streams, sessions.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/snodo-go/snodo/internal/clientconn"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/snodo-go/snodo/internal/sse"
	"github.com/snodo-go/snodo/jsonrpc"
)

// defaultMaxResponseBytes bounds an HTTP response body (a JSON body, or
// everything a request's event stream carries; on a listen stream, each
// event).
const defaultMaxResponseBytes = 16 << 20

// HTTP header names the transport sends and reads.
const (
	headerProtocolVersion = "MCP-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerSession         = "Mcp-Session-Id"
)

// HTTPTransport speaks Streamable HTTP: one POST per message, the answer
// read as JSON or as an event stream, incrementally. On 2026-07-28 every
// POST mirrors MCP-Protocol-Version, Mcp-Method, Mcp-Name and the tool's
// Mcp-Param-* headers. In the initialize era it keeps the session the
// server issues (Mcp-Session-Id), opens the GET stream for a
// subscription, answers server requests by POST, and deletes the session
// on Close.
type HTTPTransport struct {
	// URL is the MCP endpoint.
	URL string
	// Client sends the requests. Nil: a client of the transport's own,
	// with keep-alive connections released at Close.
	Client *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header
	// MaxResponseBytes bounds responses (default 16 MiB).
	MaxResponseBytes int64
	// TokenSource, when set, supplies the bearer token of every request
	// (it replaces an Authorization header in Header). When it is also a
	// [ChallengeHandler], a 401 or 403 answer is handed to it and the
	// request is sent again with the token it obtained.
	TokenSource TokenSource
}

// Connect implements Transport. It sends nothing: the first request is
// the negotiation's.
func (t *HTTPTransport) Connect(_ context.Context, peer clientconn.Peer) (clientconn.Conn, error) {
	hc, owned := t.Client, false
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 16
		hc, owned = &http.Client{Transport: tr}, true
	}
	max := t.MaxResponseBytes
	if max <= 0 {
		max = defaultMaxResponseBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &httpConn{t: t, hc: hc, owned: owned, max: max, peer: peer, ctx: ctx, cancel: cancel}, nil
}

type httpConn struct {
	t      *HTTPTransport
	hc     *http.Client
	owned  bool
	max    int64
	peer   clientconn.Peer
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	session    string
	version    string // the last negotiated version seen, for the GET stream and DELETE
	closed     bool
	eventsOpen bool
}

func (c *httpConn) trace(sent bool, frame []byte) {
	if c.peer.Trace != nil {
		c.peer.Trace(sent, frame)
	}
}

// newRequest builds a POST carrying out, with the headers its revision
// asks for.
func (c *httpConn) newRequest(ctx context.Context, out *clientconn.Outbound) (*http.Request, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.t.URL, bytes.NewReader(out.Frame))
	if err != nil {
		return nil, "", err
	}
	for k, vs := range c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if out.ProtocolVersion != "" {
		req.Header.Set(headerProtocolVersion, out.ProtocolVersion)
	}
	c.mu.Lock()
	session := c.session
	if out.ProtocolVersion != "" {
		c.version = out.ProtocolVersion
	}
	c.mu.Unlock()
	if session != "" && !out.Stateless {
		req.Header.Set(headerSession, session)
	}
	if out.Stateless && out.Method != "" {
		req.Header.Set(headerMethod, out.Method)
		if out.Name != "" {
			req.Header.Set(headerName, out.Name)
		}
		for k, v := range out.ParamHeaders {
			req.Header.Set(k, v)
		}
	}
	return req, session, nil
}

// Call implements Conn. The POST goes out on the exchange's first Next,
// so that a request still waiting for its response head is an open
// exchange the client can cancel like any other.
func (c *httpConn) Call(ctx context.Context, out *clientconn.Outbound) (clientconn.Exchange, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.mu.Unlock()
	// The request lives until the exchange closes, the caller's context
	// ends, or the connection closes.
	rctx, rcancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(ctx, rcancel)
	req, session, err := c.newRequest(rctx, out)
	if err != nil {
		stop()
		rcancel()
		return nil, err
	}
	return &httpExchange{c: c, out: out, req: req, session: session, cancel: rcancel, stop: stop}, nil
}

// send posts the request and reads the response head, and the body when
// it is a single JSON message.
func (ex *httpExchange) send() error {
	c, out := ex.c, ex.out
	c.trace(true, out.Frame)
	resp, err := c.do(ex.req)
	if err != nil {
		if c.ctx.Err() != nil {
			return ErrClosed
		}
		return err
	}
	ex.resp = resp
	if out.Method == "initialize" {
		if id := resp.Header.Get(headerSession); id != "" {
			c.mu.Lock()
			c.session = id
			c.mu.Unlock()
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusNotFound && ex.session != "":
		c.mu.Lock()
		if c.session == ex.session {
			c.session = ""
		}
		c.mu.Unlock()
		return errSessionExpired
	case resp.StatusCode/100 == 2 && ct == "text/event-stream":
		limit := c.max
		if out.Stream {
			limit = 1<<63 - 1 // a listen stream is bounded per event
		}
		ex.sse = newEventReader(&limitReader{r: resp.Body, n: limit}, c.max)
		return nil
	}
	// A single JSON body: a result, or an error with any status.
	body, rerr := io.ReadAll(&limitReader{r: resp.Body, n: c.max})
	if rerr == nil {
		c.trace(false, body)
		if msg, err := jsonrpc.Decode(body); err == nil && msg.Kind == jsonrpc.KindResponse {
			ex.single = msg
			return nil
		}
	}
	if errors.Is(rerr, ErrFrameTooLarge) {
		return ErrFrameTooLarge
	}
	if rerr != nil {
		return rerr
	}
	if resp.StatusCode/100 == 2 {
		return fmt.Errorf("%w: HTTP %d with content type %q and no JSON-RPC response", ErrUnexpectedResult, resp.StatusCode, ct)
	}
	return &HTTPError{StatusCode: resp.StatusCode, Body: snippet(body)}
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		b = b[:n]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// Send implements Conn: a notification or a response, answered with 202.
func (c *httpConn) Send(ctx context.Context, out *clientconn.Outbound) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	req, _, err := c.newRequest(ctx, out)
	if err != nil {
		return err
	}
	c.trace(true, out.Frame)
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return &HTTPError{StatusCode: resp.StatusCode, Body: snippet(body)}
	}
	return nil
}

// OpenEventStream opens the initialize era's GET stream once, so that
// notifications the server sends outside any request reach the Peer. A
// server without one (405) is fine.
func (c *httpConn) OpenEventStream() {
	c.mu.Lock()
	if c.eventsOpen || c.closed || c.session == "" && c.version == "" {
		c.mu.Unlock()
		return
	}
	c.eventsOpen = true
	session, version := c.session, c.version
	c.mu.Unlock()
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.t.URL, nil)
	if err != nil {
		return
	}
	for k, vs := range c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "text/event-stream")
	if session != "" {
		req.Header.Set(headerSession, session)
	}
	if version != "" {
		req.Header.Set(headerProtocolVersion, version)
	}
	c.wg.Add(1)
	ready := make(chan struct{})
	go func() {
		defer c.wg.Done()
		resp, err := c.do(req)
		close(ready)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			return
		}
		r := newEventReader(resp.Body, c.max)
		for {
			ev, err := r.Next()
			if err != nil {
				return
			}
			c.trace(false, ev.Data)
			if msg, err := jsonrpc.Decode(ev.Data); err == nil && c.peer.Inbound != nil {
				c.peer.Inbound(msg)
			}
		}
	}()
	// The stream is open (or refused) once the response head arrived.
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
	}
}

// Close implements Conn: requests in flight end, the GET stream closes,
// and a session is deleted.
func (c *httpConn) CacheKey() string { return "http:" + c.t.URL }

func (c *httpConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	session, version := c.session, c.version
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	var err error
	if session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, rerr := http.NewRequestWithContext(ctx, http.MethodDelete, c.t.URL, nil)
		if rerr == nil {
			for k, vs := range c.t.Header {
				for _, v := range vs {
					req.Header.Add(k, v)
				}
			}
			req.Header.Set(headerSession, session)
			if version != "" {
				req.Header.Set(headerProtocolVersion, version)
			}
			if resp, derr := c.do(req); derr == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
			} else {
				err = derr
			}
		}
		cancel()
	}
	if c.owned {
		c.hc.CloseIdleConnections()
	}
	return err
}

// httpExchange is one POST's response: a single JSON message or an event
// stream.
type httpExchange struct {
	c       *httpConn
	out     *clientconn.Outbound
	req     *http.Request
	session string // the session the request carries
	resp    *http.Response
	sendErr error
	resumes int
	cancel  context.CancelFunc
	stop    func() bool

	single *jsonrpc.Message
	sse    *sse.Reader

	mu        sync.Mutex
	answered  bool
	closeOnce sync.Once
}

// Next implements Exchange.
func (ex *httpExchange) Next(ctx context.Context) (*jsonrpc.Message, error) {
	ex.mu.Lock()
	answered := ex.answered
	ex.mu.Unlock()
	if answered {
		return nil, io.EOF
	}
	if ex.resp == nil && ex.sendErr == nil {
		// A read blocked on the response head ends when ctx does.
		stop := context.AfterFunc(ctx, ex.cancel)
		ex.sendErr = ex.send()
		stop()
		if ex.sendErr != nil && ctx.Err() != nil {
			ex.sendErr = ctx.Err()
		}
	}
	if ex.sendErr != nil {
		return nil, ex.sendErr
	}
	if ex.single != nil {
		ex.mu.Lock()
		ex.answered = true
		ex.mu.Unlock()
		return ex.single, nil
	}
	// A read blocked on the body ends when ctx does.
	stop := context.AfterFunc(ctx, ex.cancel)
	defer stop()
	for {
		ev, err := ex.sse.Next()
		event, data := ev.Type, ev.Data
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, ErrFrameTooLarge) {
				return nil, ErrFrameTooLarge
			}
			if errors.Is(err, io.EOF) {
				if rerr := ex.resume(ctx); rerr != nil {
					return nil, fmt.Errorf("%w: the event stream ended before the response: %v", ErrClosed, rerr)
				}
				continue
			}
			if ex.c.ctx.Err() != nil {
				return nil, ErrClosed
			}
			return nil, err
		}
		if event != "" && event != "message" {
			continue
		}
		ex.c.trace(false, data)
		msg, err := jsonrpc.Decode(data)
		if err != nil {
			continue
		}
		if msg.Kind == jsonrpc.KindResponse {
			if ex.resumes > 0 && msg.ID != ex.out.ID {
				continue // a resumed stream may carry others' responses
			}
			ex.mu.Lock()
			ex.answered = true
			ex.mu.Unlock()
		}
		return msg, nil
	}
}

// maxResumes bounds how often one request's event stream is resumed.
const maxResumes = 5

// resume continues an event stream the server closed before the response
// (2025-11-25 lets a server do that once it has sent an event id or a
// retry field): after the retry delay it asks for the rest with GET on
// the session, with Last-Event-ID when there was an id. 2026-07-28
// streams are never resumed: there a closed stream is a cancellation.
func (ex *httpExchange) resume(ctx context.Context) error {
	if ex.out.Stateless || ex.sse.LastID == "" && !ex.sse.RetrySet {
		return errors.New("the stream cannot be resumed")
	}
	if ex.resumes >= maxResumes {
		return fmt.Errorf("resumed %d times already", ex.resumes)
	}
	ex.resumes++
	delay := min(ex.sse.Retry, 5*time.Second)
	t := time.NewTimer(delay)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
	req, err := http.NewRequestWithContext(ex.req.Context(), http.MethodGet, ex.c.t.URL, nil)
	if err != nil {
		return err
	}
	for k, vs := range ex.c.t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "text/event-stream")
	if ex.sse.LastID != "" {
		req.Header.Set("Last-Event-ID", ex.sse.LastID)
	}
	if ex.session != "" {
		req.Header.Set(headerSession, ex.session)
	}
	if ex.out.ProtocolVersion != "" {
		req.Header.Set(headerProtocolVersion, ex.out.ProtocolVersion)
	}
	resp, err := ex.c.do(req)
	if err != nil {
		return err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		resp.Body.Close()
		return &HTTPError{StatusCode: resp.StatusCode}
	}
	ex.resp.Body.Close()
	ex.resp = resp
	last, retry, set := ex.sse.LastID, ex.sse.Retry, ex.sse.RetrySet
	ex.sse = newEventReader(&limitReader{r: resp.Body, n: ex.c.max}, ex.c.max)
	ex.sse.LastID, ex.sse.Retry, ex.sse.RetrySet = last, retry, set
	return nil
}

// Close implements Exchange. Closing the stream before the response is
// the cancellation on 2026-07-28; the initialize era also needs the
// notification, posted on the session.
func (ex *httpExchange) Close(cancel []byte) {
	ex.closeOnce.Do(func() {
		ex.mu.Lock()
		answered := ex.answered
		ex.mu.Unlock()
		if ex.resp == nil {
			ex.stop()
			ex.cancel()
			if cancel != nil && !ex.out.Stateless && ex.c.ctx.Err() == nil {
				ex.postCancel(cancel)
			}
			return
		}
		if answered && ex.sse != nil {
			// Let the connection be reused: read the end of a finished
			// stream, within small bounds of size and time.
			t := time.AfterFunc(100*time.Millisecond, ex.cancel)
			io.Copy(io.Discard, io.LimitReader(ex.resp.Body, 4096))
			t.Stop()
		}
		ex.resp.Body.Close()
		ex.stop()
		ex.cancel()
		if cancel != nil && !answered && !ex.out.Stateless && ex.c.ctx.Err() == nil {
			ex.postCancel(cancel)
		}
	})
}

// postCancel posts notifications/cancelled on the session (initialize
// era, where a closed stream is not a cancellation).
func (ex *httpExchange) postCancel(cancel []byte) {
	ctx, done := context.WithTimeout(ex.c.ctx, 5*time.Second)
	defer done()
	_ = ex.c.Send(ctx, &clientconn.Outbound{Frame: cancel, Method: "notifications/cancelled", ProtocolVersion: ex.out.ProtocolVersion})
}

// do sends req with the TokenSource's bearer token. A 401 or 403 answer
// goes to a ChallengeHandler, and the request is sent again with the
// token it obtained, at most maxAuthRetries times.
func (c *httpConn) do(req *http.Request) (*http.Response, error) {
	ts := c.t.TokenSource
	if ts == nil {
		return c.hc.Do(req)
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		token, err := ts.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		} else {
			req.Header.Del("Authorization")
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			return nil, err
		}
		ch, ok := ts.(ChallengeHandler)
		if !ok || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || attempt == maxAuthRetries {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if err := ch.HandleChallenge(ctx, &AuthChallenge{URL: c.t.URL, StatusCode: resp.StatusCode, Header: resp.Header, Token: token}); err != nil {
			return nil, fmt.Errorf("%w: HTTP %d: %w", ErrUnauthorized, resp.StatusCode, err)
		}
		next := req.Clone(ctx)
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}

// newEventReader reads an event stream whose events are bounded by max,
// one over it being ErrFrameTooLarge.
func newEventReader(r io.Reader, max int64) *sse.Reader {
	sr := sse.NewReader(r, int(max))
	sr.TooLarge = ErrFrameTooLarge
	return sr
}

// limitReader reads at most n bytes and fails with ErrFrameTooLarge past
// them.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			return 0, ErrFrameTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

package streamablehttp

// The native listener: Listen, its net/http server, its drain.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
)

// Server is the native Streamable HTTP listener: it owns its
// net.Listener and a net/http server bounded at every stage, and
// serves one endpoint path. Its node in the supervision tree (kind
// listener) is a child of the root supervisor and owns the accept loop;
// every request is a request actor under it.
//
// Keep-alive is allowed (Go clients reuse connections), and every bound
// holds per request: the head timeout restarts at each request's first
// byte, the body timeout at the end of each head, and the read timeout
// bounds each read of both.
type Server struct {
	h     *Handler
	srv   *http.Server
	ln    *boundedListener
	url   string
	done  chan struct{} // closed when the accept loop has returned
	ready chan struct{} // closed when Listen has filled in the server

	shutdownOnce sync.Once
}

// Listen binds the listener (127.0.0.1 on an ephemeral port unless
// [WithAddr] says otherwise) and starts serving rt in the background.
// Stop it with [Server.Shutdown] or [Server.Close], or by closing the
// supervisor it runs under.
func Listen(rt *dispatch.Runtime, opts ...ListenerOption) (*Server, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt.applyListener(&o); err != nil {
			return nil, fmt.Errorf("streamablehttp: %w", err)
		}
	}
	if rt == nil {
		return nil, errors.New("streamablehttp: nil Runtime")
	}
	nl := o.netListener
	if nl == nil {
		var err error
		if nl, err = net.Listen("tcp", o.addr); err != nil {
			return nil, fmt.Errorf("streamablehttp: %w", err)
		}
	}
	s := &Server{
		ln:    newBoundedListener(nl, o.listener.MaxConnections, o.listener.ReadTimeout),
		done:  make(chan struct{}),
		ready: make(chan struct{}),
		url:   "http://" + nl.Addr().String() + o.path,
	}
	// net/http adds 4 KiB of read-ahead slack to MaxHeaderBytes; take it
	// off so the whole head is bounded by the option.
	maxHeader := max(o.listener.MaxHeaderBytes-4096, 1024)
	s.srv = &http.Server{
		ReadHeaderTimeout: o.listener.HeadTimeout,
		IdleTimeout:       o.listener.IdleTimeout,
		MaxHeaderBytes:    maxHeader,
		ConnState:         s.ln.connState,
	}
	h, err := newHandler(rt, o, o.path)
	if err != nil {
		nl.Close()
		return nil, err
	}
	s.srv.ErrorLog = slog.NewLogLogger(h.sys.Logger().Handler(), slog.LevelWarn)
	h.boundAllWrites = true
	s.ln.sink = h.sink
	s.h = h
	var served http.Handler = h
	for i := len(o.middleware) - 1; i >= 0; i-- {
		served = o.middleware[i](served)
	}
	s.srv.Handler = served
	// The node's actor starts the accept loop, which waits for ready.
	err = h.start(tree.HostConfig{
		Prefix: "http",
		Kind:   tree.KindListener,
		Attrs:  s.describe,
		Run:    s.acceptLoop,
		Halt:   func() { _ = s.srv.Close() },
	})
	if err != nil {
		nl.Close()
		return nil, err
	}
	close(s.ready)
	return s, nil
}

// acceptLoop runs on the goroutine the listener's actor owns.
func (s *Server) acceptLoop() {
	defer close(s.done)
	<-s.ready
	err := s.srv.Serve(s.ln)
	if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		s.h.sys.Logger().Error("snodo: HTTP listener stopped accepting", "addr", s.ln.Addr().String(), "error", err)
	}
}

func (s *Server) describe(attrs map[string]string) {
	s.h.describe(attrs)
	attrs["addr"] = s.ln.Addr().String()
	attrs["connections"] = strconv.FormatInt(s.ln.open.n.Load(), 10)
	attrs["refused"] = strconv.FormatInt(s.ln.refused.Load(), 10)
}

// URL returns the endpoint's URL, such as "http://127.0.0.1:38123/mcp".
func (s *Server) URL() string { return s.url }

// Addr returns the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Done is closed once the listener's node has left the supervision tree.
func (s *Server) Done() <-chan struct{} { return s.h.host.Done() }

// Shutdown drains the listener: it stops accepting, lets requests in
// flight finish, asks open streams to complete (they send their final
// result), and closes each connection once its response is sent;
// requests that arrive meanwhile get 503. Once nothing is being served,
// every connection still open (its next request not read yet) is closed
// without a response: a 503 only answers a request that was read. At the drain timeout, or when ctx ends, it closes what
// is left (cancelling its requests) and returns an error wrapping
// context.DeadlineExceeded.
func (s *Server) Shutdown(ctx context.Context) error { return s.shutdown(ctx, true) }

// Close stops the listener at once: connections are closed and requests
// in flight cancelled; nothing more is written for them.
func (s *Server) Close() error { return s.shutdown(context.Background(), false) }

func (s *Server) shutdown(ctx context.Context, drain bool) error {
	err := errAlreadyStopped
	s.shutdownOnce.Do(func() {
		err = nil
		s.h.beginDrain()
		s.srv.SetKeepAlivesEnabled(false) // also closes idle connections
		_ = s.ln.Close()
		if drain {
			dctx, cancel := context.WithTimeout(ctx, s.h.o.listener.DrainTimeout)
			defer cancel()
			// Requests being served finish, streams complete; then the
			// connections serving nothing are closed.
			werr := s.ln.busy.wait(dctx)
			if werr == nil {
				s.ln.closeUnread()
				werr = s.ln.open.wait(dctx)
			}
			if werr != nil {
				err = fmt.Errorf("streamablehttp: drain gave up with requests in flight: %w", werr)
			}
		}
		err = errors.Join(err, s.stop())
	})
	if err == errAlreadyStopped {
		<-s.h.host.Done()
		return nil
	}
	return err
}

// errAlreadyStopped marks a second Shutdown or Close.
var errAlreadyStopped = errors.New("streamablehttp: already stopped")

// stop closes the HTTP server and removes the listener from the tree.
func (s *Server) stop() error {
	err := s.srv.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil // the listener was closed first, to stop accepting
	}
	<-s.done
	return errors.Join(err, s.h.Close())
}

// Serve runs the native listener until ctx ends, then drains it as
// [Server.Shutdown] does (bounded by the drain timeout) and returns
// Shutdown's result: nil after a clean drain. It returns at once if the listener cannot bind.
// When the supervisor the listener runs under is closed first, Serve
// returns as soon as the listener has stopped.
func Serve(ctx context.Context, rt *dispatch.Runtime, opts ...ListenerOption) error {
	s, err := Listen(rt, opts...)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return s.Shutdown(context.Background())
	case <-s.Done():
		return s.Close()
	}
}

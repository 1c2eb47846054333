// CloseStream: ending a request's event stream while the request goes on
// (SEP-1699 polling).

package dispatch

import "context"

// streamCloser is implemented by a [Notifier] whose transport can end the
// event stream of the request it serves while the request goes on: the
// client reconnects and receives the rest (SEP-1699 polling, 2025-11-25).
// CloseStream reports whether it will.
type streamCloser interface {
	// CloseStream closes the request's event stream, leaving the
	// request running, and reports whether it did.
	CloseStream() bool
}

// CloseStream asks the transport to close the event stream of the request
// ctx serves now, leaving the request running: a 2025-11-25 client in an
// HTTP session reconnects with Last-Event-ID and receives what follows,
// its response included, so a long call need not hold a connection. It
// reports whether the transport does; elsewhere (stdio, 2026-07-28, HTTP
// without sessions) nothing changes and the response comes as usual.
func CloseStream(ctx context.Context) bool {
	s := stateFrom(ctx)
	if s == nil || s.call == nil {
		return false
	}
	c, ok := s.call.Notifier.(streamCloser)
	return ok && c.CloseStream()
}

package stdio

// Application notifications: Conn.Notify and the kinds of its failures.

import (
	"context"
	"errors"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/internal/tree"
)

// The kinds of failure [Conn.Notify] reports. Each is distinct: test with
// errors.Is; errors.As with *NotifyError gives the underlying reason.
var (
	// ErrClosed: the connection is gone, or it ended normally before the
	// notification's turn came. Nothing was written.
	ErrClosed = errors.New("stdio: connection closed")
	// ErrTransportDown: the transport stopped abnormally (output failure,
	// cancelled context, Stop, its supervisor closing) while the
	// notification waited for its turn. Nothing was written.
	ErrTransportDown = errors.New("stdio: transport stopped abnormally while the notification waited")
	// ErrOutputFailed: the write carrying the notification (or, for the
	// error Serve and Wait return, a response) failed or timed out. Part
	// of it may have reached the client. This is terminal: the connection
	// ends and nothing more is written.
	ErrOutputFailed = errors.New("stdio: output failed")
	// ErrOutcomeUnknown: the caller's context ended before the write
	// finished. The notification may still be written afterwards (it is
	// dropped only if its turn comes after the context ended).
	ErrOutcomeUnknown = errors.New("stdio: notification outcome unknown: the caller's context ended first")
	// ErrInvalidNotification: the method is not allowed on the connection
	// or the params cannot be sent. Nothing was written.
	ErrInvalidNotification = errors.New("stdio: invalid notification")
)

// NotifyError is the error [Conn.Notify] returns: Kind is one of ErrClosed,
// ErrTransportDown, ErrOutputFailed, ErrOutcomeUnknown or
// ErrInvalidNotification; Reason says more, when there is more to say (the
// write's error, why the transport stopped, the context's error).
type NotifyError struct {
	// Kind is one of ErrClosed, ErrTransportDown, ErrOutputFailed,
	// ErrOutcomeUnknown or ErrInvalidNotification.
	Kind error
	// Reason is the underlying cause, or nil.
	Reason error
}

// Error describes the kind and, when there is one, the reason.
func (e *NotifyError) Error() string {
	if e.Reason == nil {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + e.Reason.Error()
}

// Unwrap exposes the kind and the reason to errors.Is and errors.As, so
// errors.Is(err, context.DeadlineExceeded) holds for a timed-out caller.
func (e *NotifyError) Unwrap() []error {
	if e.Reason == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Reason}
}

// Notify sends the application notification
// {"jsonrpc","method","params"} to the connection's client. method must be
// one of those given with [WithNotificationMethods]; params must encode to
// a JSON object (nil sends {}).
//
// The frame goes through the connection's writer, after the frames already
// waiting there, so it never interleaves with a response; Notify returns
// once it has been written. Nothing is buffered or retried: ctx bounds the
// wait, and on failure the error's kind (see [NotifyError]) says whether
// anything may have been written.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	frame, err := c.encodeNotification(method, params)
	if err != nil {
		return &NotifyError{Kind: ErrInvalidNotification, Reason: err}
	}
	// A Conn found by its name may still be starting.
	select {
	case <-c.started:
	case <-ctx.Done():
		return &NotifyError{Kind: ErrOutcomeUnknown, Reason: ctx.Err()}
	}
	if c.ac == nil {
		return &NotifyError{Kind: ErrClosed}
	}
	err = c.ac.Notify(ctx, frame)
	var de *tree.DeliveryError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tree.ErrConnClosed):
		return &NotifyError{Kind: ErrClosed}
	case errors.As(err, &de) && de.Kind == tree.ErrOutputFailed:
		return &NotifyError{Kind: ErrOutputFailed, Reason: de.Reason}
	case errors.As(err, &de):
		return &NotifyError{Kind: ErrTransportDown, Reason: de.Reason}
	case ctx.Err() != nil:
		return &NotifyError{Kind: ErrOutcomeUnknown, Reason: ctx.Err()}
	}
	return &NotifyError{Kind: ErrTransportDown, Reason: err}
}

func (c *Conn) encodeNotification(method string, params any) ([]byte, error) {
	if !c.allowed[method] {
		return nil, fmt.Errorf("method %q is not among the connection's notification methods", method)
	}
	if params == nil {
		params = struct{}{}
	}
	frame, err := rpcwire.EncodeNotification(method, params)
	if err != nil {
		return nil, fmt.Errorf("params cannot be encoded: %w", err)
	}
	if p, ok := jsonwire.Member(frame, "params"); !ok || len(p) == 0 || p[0] != '{' {
		return nil, errors.New("params must encode to a JSON object")
	}
	return frame, nil
}

package tree

// Why a frame handed to a connection's writer was not written, or not
// known to be written. A frame's producer receives one of these (inside a
// *DeliveryError where a cause exists) in place of a successful write.

import (
	"errors"
	"os"
)

var (
	// ErrConnClosed: the connection had ended (or was ending) before the
	// frame's turn came; nothing of it was written.
	ErrConnClosed = errors.New("connection closed")
	// ErrConnDown: the connection failed while the frame waited for its
	// turn; nothing of it was written.
	ErrConnDown = errors.New("connection stopped abnormally")
	// ErrOutputFailed: the write carrying the frame failed or timed out.
	// Some of its bytes may have reached the device. It is terminal for
	// the connection.
	ErrOutputFailed = errors.New("output failed")
)

// ErrWriteTimeout reports a write that did not return within the write
// timeout. It is terminal for the connection: bytes may already have
// reached the device, so nothing is retried and nothing more is written.
// It matches os.ErrDeadlineExceeded, as a deadline on a file or a network
// connection does.
var ErrWriteTimeout error = writeTimeoutError{}

type writeTimeoutError struct{}

func (writeTimeoutError) Error() string        { return "write timed out" }
func (writeTimeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// DeliveryError is a frame's failed delivery: Kind is ErrConnDown or
// ErrOutputFailed, Reason the underlying cause (ErrWriteTimeout, the
// device's error, or why the connection ended).
type DeliveryError struct {
	// Kind is ErrConnDown or ErrOutputFailed.
	Kind error
	// Reason is the underlying cause.
	Reason error
}

// Error describes the kind and the reason.
func (e *DeliveryError) Error() string {
	if e.Reason == nil {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + e.Reason.Error()
}

// Unwrap exposes both the kind and the reason to errors.Is and errors.As.
func (e *DeliveryError) Unwrap() []error { return []error{e.Kind, e.Reason} }

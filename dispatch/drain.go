// The drain signal a transport gives long-lived operations when it shuts
// down gracefully.

package dispatch

import "context"

type drainKey struct{}

// contextWithDrain returns a context whose [draining] channel is ch. Transports
// that shut down gracefully pass it to long-lived operations.
func contextWithDrain(ctx context.Context, ch <-chan struct{}) context.Context {
	return context.WithValue(ctx, drainKey{}, ch)
}

// draining returns a channel the serving transport closes when it begins a
// graceful shutdown. A long-lived operation, such as a subscriptions/listen
// stream, should then end with its final result instead of waiting to be
// cancelled. It returns nil, a channel that never closes, when the
// transport gave none.
func draining(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(drainKey{}).(<-chan struct{})
	return ch
}

// This file checks, at start, that the application's NATS connection can
// carry the backplane, so that a deployment that cannot share state fails
// at once with the reason instead of serving requests it cannot keep.

package backplane

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrUnavailable is wrapped by a constructor's error when the NATS
// connection cannot carry the backplane: nil, closed, not connected, or
// on a server without JetStream.
var ErrUnavailable = errors.New("backplane: NATS unavailable")

// checkConn reports whether nc is connected now.
func checkConn(nc *nats.Conn) error {
	if nc == nil {
		return fmt.Errorf("%w: no NATS connection (nil *nats.Conn)", ErrUnavailable)
	}
	if st := nc.Status(); st != nats.CONNECTED {
		return fmt.Errorf("%w: the NATS connection is %s, not connected (servers %v)", ErrUnavailable, st, nc.Servers())
	}
	return nil
}

// openJetStream checks nc and that its server answers JetStream requests.
func openJetStream(ctx context.Context, nc *nats.Conn) (jetstream.JetStream, error) {
	if err := checkConn(nc); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, fmt.Errorf("%w: JetStream is not enabled on the NATS server at %s (start it with JetStream): %w", ErrUnavailable, nc.ConnectedUrlRedacted(), err)
		}
		return nil, fmt.Errorf("%w: the NATS server at %s did not answer a JetStream request: %w", ErrUnavailable, nc.ConnectedUrlRedacted(), err)
	}
	return js, nil
}

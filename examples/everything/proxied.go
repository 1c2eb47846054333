// The -proxy mode: the fixture served through a proxy Runtime, so that
// the conformance suite checks what a proxied server offers.

package main

import (
	"context"
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// proxied dials rt in process through package proxy and returns the
// proxy's Runtime, which the transport then serves, and the function
// that closes the backend.
func proxied(ctx context.Context, rt *dispatch.Runtime, logger *slog.Logger) (*dispatch.Runtime, func() error, error) {
	b, err := proxy.Dial(ctx, inprocess.New(rt), proxy.WithLogger(logger), proxy.WithInfo(rt.Info()))
	if err != nil {
		return nil, nil, err
	}
	return b.Runtime(), b.Close, nil
}

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
)

// serveHTTP is where the Streamable HTTP transport plugs in once
// transports/streamablehttp is merged: listen with benchtool.ListenHTTP
// (which announces the URL to the driver), serve rt through the listener
// with exec, and return when ctx ends. Until then the server says it has
// no HTTP transport and the driver records the case as unsupported.
func serveHTTP(_ context.Context, _ *dispatch.Runtime, _ *actors.Executor, _ string) error {
	fmt.Fprintln(os.Stderr, benchtool.UnsupportedLine)
	os.Exit(2)
	return nil
}

// Command listeneronly must not compile: each option below belongs to the
// native listener alone, and a Handler does not take it
// (TestListenerOnlyOptionsDoNotCompileOnAHandler builds it and reads the
// compiler's errors, one per line).
package main

import (
	"net"
	"net/http"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

func main() {
	rt, _ := dispatch.New(mcp.Implementation{Name: "x", Version: "1"})
	var ln net.Listener
	_, _ = streamablehttp.NewHandler(rt, streamablehttp.WithAddr("127.0.0.1:0"))
	_, _ = streamablehttp.NewHandler(rt, streamablehttp.WithListener(ln))
	_, _ = streamablehttp.NewHandler(rt, streamablehttp.WithListenerLimits(streamablehttp.ListenerLimits{}))
	_, _ = streamablehttp.NewHandler(rt, streamablehttp.WithHTTPMiddleware(func(h http.Handler) http.Handler { return h }))
	// Options of both compile on either.
	_, _ = streamablehttp.NewHandler(rt, streamablehttp.WithPath("/mcp"), streamablehttp.WithLimits(streamablehttp.Limits{}))
	_, _ = streamablehttp.Listen(rt, streamablehttp.WithPath("/mcp"), streamablehttp.WithAddr("127.0.0.1:0"))
}

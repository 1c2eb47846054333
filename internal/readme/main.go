// Command readme is the code of the repository's README.md, compiled: each
// Go block of the README stands here, paragraph by paragraph, and
// readme_test.go fails when one does not. Run, it serves the README's
// first server over stdio.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/instrumentation/otel"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/tasks"
	"github.com/snodo-go/snodo/transports/inprocess"
	"github.com/snodo-go/snodo/transports/stdio"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

type ForecastIn struct {
	City string `json:"city" jsonschema:"the city to forecast"`
	Days int    `json:"days" jsonschema:"how many days, 1 to 7"`
}

type ForecastOut struct {
	City  string    `json:"city"`
	Highs []float64 `json:"highs"`
}

func forecast(ctx context.Context, in ForecastIn) (ForecastOut, error) {
	if in.Days < 1 || in.Days > 7 {
		return ForecastOut{}, fmt.Errorf("days must be from 1 to 7, got %d", in.Days)
	}
	out := ForecastOut{City: in.City}
	for d := range in.Days {
		out.Highs = append(out.Highs, 20+float64(d)/2)
	}
	return out, nil
}

func newRuntime() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		dispatch.WithTypedTool(mcp.Tool{Name: "forecast", Description: "Daily highs for a city."}, forecast),
	)
}

func main() {
	rt, err := newRuntime()
	if err != nil {
		log.Fatal(err) // invalid configuration fails here, never at request time
	}
	if err := stdio.Serve(context.Background(), rt); err != nil {
		log.Fatal(err)
	}
}

var docs = map[string]string{"intro": "# Introduction"}

func resources() (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "docs", Version: "1.0.0"},
		dispatch.WithResource(mcp.Resource{URI: "docs://index", Name: "index", MIMEType: "text/plain"},
			func(ctx context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/plain", "docs://pages/intro")}}, nil
			}),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://pages/{name}", Name: "page", MIMEType: "text/markdown"},
			func(ctx context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text, ok := docs[req.Vars.Get("name")]
				if !ok {
					return nil, dispatch.ErrResourceNotFound
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{mcp.TextContents(req.URI, "text/markdown", text)}}, nil
			}),
	)
}

func serveHTTP(ctx context.Context, rt *dispatch.Runtime, mux *http.ServeMux, requireToken func(http.Handler) http.Handler) error {
	srv, err := streamablehttp.Listen(rt, streamablehttp.WithAddr("127.0.0.1:4000"))
	if err != nil {
		return err
	}
	fmt.Println(srv.URL())  // http://127.0.0.1:4000/mcp
	defer srv.Shutdown(ctx) // in-flight requests finish, new ones get 503

	h, err := streamablehttp.NewHandler(rt)
	if err != nil {
		return err
	}
	mux.Handle("/mcp", requireToken(h))
	return nil
}

func subscriptions(search, report mcp.Tool, searchHandler, reportHandler dispatch.ToolHandler) (*dispatch.Runtime, error) {
	changes := hub.New(hub.Options{})
	reg := hub.NewRegistry(changes)
	rt, err := dispatch.New(mcp.Implementation{Name: "live", Version: "1.0.0"},
		dispatch.WithSubscriptions(changes), // advertises listChanged and resources.subscribe
		dispatch.WithCatalog(reg),
		dispatch.WithTool(search, searchHandler),
	)
	if err != nil {
		return nil, err
	}

	// Later, from anywhere (a handler included):
	if err := reg.AddTool(report, reportHandler); err != nil { // notifications/tools/list_changed
		return nil, err
	}
	if _, err := changes.ResourceUpdated("file:///notes.txt"); err != nil { // notifications/resources/updated
		return nil, err
	}
	changes.Complete() // every open stream ends with its final result
	return rt, nil
}

func useClient(ctx context.Context, rt *dispatch.Runtime) error {
	c, err := client.New(ctx, &client.CommandTransport{Path: "my-mcp-server"})
	if err != nil {
		return err
	}
	defer c.Close() // stdin closed, then SIGTERM, then SIGKILL

	tools, err := c.ListTools(ctx) // follows every page
	if err != nil {
		return err
	}
	fmt.Println(len(tools), "tools")
	res, err := c.CallTool(ctx, "forecast", map[string]any{"city": "Lyon", "days": 3})
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("refused with %d: %s", rpcErr.Code, rpcErr.Message)
	}
	if err != nil {
		return err
	}
	fmt.Println(mcp.TextOf(res.Content))

	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		return err
	}
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			break // io.EOF when the server ends the stream; otherwise why it ended
		}
		fmt.Println(ev.Method)
	}

	local, err := client.New(ctx, inprocess.New(rt)) // the same calls, in process
	if err != nil {
		return err
	}
	return local.Close()
}

func observe(ctx context.Context) error {
	sink, err := otel.New() // the global tracer and meter providers unless given
	if err != nil {
		return err
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "weather", Version: "1.0.0"},
		dispatch.WithInstrumentation(sink),
		dispatch.WithTypedTool(mcp.Tool{Name: "forecast"}, forecast),
	)
	if err != nil {
		return err
	}
	sup, err := supervisor.New(rt) // inherits the Runtime's logger and sink
	if err != nil {
		return err
	}
	defer sup.Close(ctx)
	http.Handle("/debug/tree", sup.Handler())
	fmt.Fprint(os.Stderr, sup.Tree())
	return stdio.Serve(ctx, rt, stdio.WithSupervisor(sup))
}

func withTasks(ctx context.Context, render dispatch.ToolHandler) error {
	runner, err := tasks.New(tasks.WithTools(tasks.Tool{Name: "render", Support: tasks.Optional}))
	if err != nil {
		return err
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "renderer", Version: "1.0.0"},
		runner.Option(),
		dispatch.WithTool(mcp.Tool{Name: "render"}, render),
	)
	if err != nil {
		return err
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		return err
	}
	if err := runner.Start(ctx, rt, sup); err != nil {
		return err
	}
	defer runner.Close(ctx)
	return stdio.Serve(ctx, rt, stdio.WithSupervisor(sup))
}

// Every function above is the README's; they are referenced here so
// that the compiler keeps checking them.
var _ = []any{resources, serveHTTP, subscriptions, useClient, observe, withTasks, limited}

func limited(search, costly, shell dispatch.ToolHandler, logCalls dispatch.Middleware) (*dispatch.Runtime, error) {
	return dispatch.New(mcp.Implementation{Name: "tools", Version: "1.0.0"},
		dispatch.WithComponentPolicies(
			dispatch.WithCallTimeout(30*time.Second),
			dispatch.WithMiddleware(logCalls)),
		dispatch.WithTool(mcp.Tool{Name: "search"}, search,
			dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 4, MaxWaiting: 16})),
		dispatch.WithTool(mcp.Tool{Name: "costly"}, costly,
			dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Every(time.Minute), Burst: 3})),
		dispatch.WithTool(mcp.Tool{Name: "shell"}, shell,
			dispatch.WithCallTimeout(5*time.Second)),
	)
}

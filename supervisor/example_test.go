package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
)

// Tree takes a snapshot of the live tree; its String is the indented text
// an operator reads. With transports running, their connections, writers
// and in-flight requests appear under the root beside the executor.
func ExampleSupervisor_Tree() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		panic(err)
	}
	defer sup.Close(context.Background())
	fmt.Print(sup.Tree())
	// Output:
	// supervisor snodo
	// └── executor snodo/executor cancelled=0 max_concurrency=32 max_queue=256 queued=0 rejected=0 running=0 submitted=0 subscriptions=0 timed_out=0 waiting=0
}

// A debug mux with the tree's page: JSON by default, the live page in a
// browser, the cancel and stop actions for operators on this machine.
func ExampleSupervisor_DebugHandler() {
	rt, err := dispatch.New(mcp.Implementation{Name: "example", Version: "1.0.0"})
	if err != nil {
		panic(err)
	}
	sup, err := supervisor.New(rt)
	if err != nil {
		panic(err)
	}
	defer sup.Close(context.Background())
	debug, err := sup.DebugHandler(
		supervisor.WithPageLimits(supervisor.PageLimits{Interval: time.Second}), // at most one update a second
		supervisor.WithActions(func(r *http.Request) error {
			if host, _, _ := net.SplitHostPort(r.RemoteAddr); !net.ParseIP(host).IsLoopback() {
				return errors.New("local operators only")
			}
			return nil
		}),
	)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/tree", debug)

	// What a browser gets.
	req := httptest.NewRequest(http.MethodGet, "/debug/tree", nil)
	req.Header.Set("Accept", "text/html")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output:
	// 200 text/html; charset=utf-8
}

package backplane_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// Two instances of one server: a session created through instance a is
// used through instance b, which relays the request to a.
func ExampleSessions() {
	ns, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	ns.Start()
	defer ns.WaitForShutdown()
	defer ns.Shutdown()
	ns.ReadyForConnections(10 * time.Second)

	instance := func(name string) (url string, stop func()) {
		nc, _ := nats.Connect(ns.ClientURL())
		rt, _ := dispatch.New(mcp.Implementation{Name: "example", Version: "1"})
		relay, err := backplane.NewSessions(context.Background(), nc, name, backplane.SessionsConfig{})
		if err != nil {
			panic(err)
		}
		srv, err := streamablehttp.Listen(rt,
			streamablehttp.WithHTTPMiddleware(relay.Middleware), // before any authentication
			streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: relay.IDPrefix()}))
		if err != nil {
			panic(err)
		}
		return srv.URL(), func() { _ = relay.Close(); _ = srv.Close(); nc.Close() }
	}
	a, stopA := instance("a")
	defer stopA()
	b, stopB := instance("b")
	defer stopB()

	post := func(url, session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return resp
	}
	resp := post(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"client","version":"1"}}}`)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	fmt.Println("owner:", strings.SplitN(id, ".", 2)[0])
	resp = post(b, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("through b:", resp.StatusCode, strings.TrimSpace(string(body)))
	// Output:
	// owner: a
	// through b: 200 {"jsonrpc":"2.0","id":2,"result":{}}
}

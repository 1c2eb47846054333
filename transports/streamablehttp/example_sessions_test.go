package streamablehttp_test

import (
	"bytes"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// Serve initialize-era clients (2025-11-25, 2025-06-18) with sessions:
// initialize issues an Mcp-Session-Id, later requests name it, and DELETE
// ends the session.
func ExampleWithSessions() {
	srv, err := streamablehttp.Listen(exampleRuntime(), streamablehttp.WithSessions(streamablehttp.SessionConfig{}))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	send := func(method, session, body string) (*http.Response, string) {
		req, _ := http.NewRequest(method, srv.URL(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp, strings.TrimSpace(b.String())
	}

	resp, _ := send(http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"client","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	fmt.Println("session id length:", len(id))
	resp, _ = send(http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Println("initialized:", resp.StatusCode)
	_, body := send(http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	fmt.Println(body)
	resp, _ = send(http.MethodDelete, id, "")
	fmt.Println("DELETE:", resp.StatusCode)
	resp, _ = send(http.MethodPost, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	fmt.Println("after DELETE:", resp.StatusCode)
	// Output:
	// session id length: 43
	// initialized: 202
	// {"jsonrpc":"2.0","id":2,"result":{}}
	// DELETE: 204
	// after DELETE: 404
}

package streamablehttp_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// statusOf sends raw on a new connection and returns the status of the
// answer and whether the server then closed the connection.
func statusOf(t *testing.T, addr, raw string) (int, string) {
	t.Helper()
	c := dial(t, addr)
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	resp := c.readHead(t)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.waitClosed(t)
	return resp.StatusCode, string(body)
}

// A request refused from its head alone is answered without reading its
// body, and the connection is closed within the body timeout: net/http
// would otherwise wait, with no deadline, for up to 256 KiB of a body
// that never comes, so a client could hold connections (and the
// listener's slots) with heads alone.
func TestRefusedHeadDoesNotWaitForItsBody(t *testing.T) {
	frame := discover(1)
	cases := []struct {
		name   string
		extra  []string
		status int
	}{
		{"foreign Origin", []string{"Origin: http://evil.example", "Content-Length: 1000"}, 403},
		{"chunked", []string{"Transfer-Encoding: chunked"}, 411},
		{"chunked with a length", []string{"Transfer-Encoding: chunked", "Content-Length: 1000"}, 411},
		{"wrong media type", []string{"Content-Type: text/plain", "Content-Length: 1000"}, 415},
		{"over the body limit", []string{"Content-Length: 200000"}, 413},
	}
	forEachTarget(t, func(t *testing.T, tg target) {
		ep := tg.start(t, testRuntime(t, nil), streamablehttp.WithMaxBodyBytes(100_000), streamablehttp.WithBodyTimeout(200*time.Millisecond))
		for _, tc := range cases {
			raw := rawRequest("/mcp", frame, tc.extra...) + "\r\n"
			if tc.name == "wrong media type" {
				raw = strings.Replace(raw, "Content-Type: application/json\r\n", "", 1)
			}
			status, _ := statusOf(t, ep.addr, raw) // fails unless the server closes within 10 s
			if status != tc.status {
				t.Errorf("%s: status %d, want %d", tc.name, status, tc.status)
			}
		}
		if tg.name == "listener" {
			testkit.WaitTree(t, ep.sup, func(n *supervisor.Node) bool { return listenerNode(n).Attrs["connections"] == "0" })
		}
	})
}

package supervisor_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/supervisor"
)

func TestNodeString(t *testing.T) {
	tree := &supervisor.Node{Kind: "supervisor", ID: "snodo", Children: []*supervisor.Node{
		{Kind: "executor", ID: "snodo/executor", Attrs: map[string]string{"running": "1", "queued": "0"}},
		{Kind: "connection", ID: "snodo/stdio$1", Attrs: map[string]string{"transport": "stdio"}, Children: []*supervisor.Node{
			{Kind: "request", ID: "snodo/stdio$1/req$2", Attrs: map[string]string{"id": `"a b"`, "method": "tools/call"}},
			{Kind: "writer", ID: "snodo/stdio$1/writer"},
		}},
	}}
	want := `supervisor snodo
├── executor snodo/executor queued=0 running=1
└── connection snodo/stdio$1 transport=stdio
    ├── request snodo/stdio$1/req$2 id="\"a b\"" method=tools/call
    └── writer snodo/stdio$1/writer
`
	if got := tree.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestHandler(t *testing.T) {
	sup := newSupervisor(t)
	srv := httptest.NewServer(sup.Handler())
	defer srv.Close()
	get := func(q string) (*http.Response, string) {
		resp, err := http.Get(srv.URL + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("/")
	var n supervisor.Node
	if err := json.Unmarshal([]byte(body), &n); err != nil || resp.Header.Get("Content-Type") != "application/json" || n.ID != "snodo" {
		t.Fatalf("json view: %v %s", err, body)
	}
	resp, body = get("/?format=text")
	if !strings.HasPrefix(body, "supervisor snodo\n") || !strings.Contains(body, "executor snodo/executor") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("text view: %s", body)
	}
	if resp, _ = get("/?format=yaml"); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown format: %d", resp.StatusCode)
	}
	if resp, body = get("/?format=json"); resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"kind": "supervisor"`) {
		t.Fatalf("format=json: %s", body)
	}
	r, err := http.Post(srv.URL, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", r.StatusCode)
	}
}

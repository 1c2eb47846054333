package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// serve answers every request line in order, one line each, skips
// notifications and unparsable lines, and returns at the end of input,
// including a last line without a newline.
func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`,
	}, "\n")
	var out bytes.Buffer
	if err := serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b"}]}}` + "\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

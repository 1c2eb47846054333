package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

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

// An answer is written as soon as no complete line is left to read, even
// when the start of the next line has already arrived.
func TestServeFlushesBeforeAPartialLine(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve(inR, outW); _ = outW.Close() }()
	const first = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`
	const second = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`
	if _, err := inW.Write([]byte(first + "\n" + second[:20])); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if !strings.Contains(l, `"id":1`) {
			t.Fatalf("first answer: %s", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first answer waited for the rest of the second line")
	}
	if _, err := inW.Write([]byte(second[20:] + "\n")); err != nil {
		t.Fatal(err)
	}
	if l := <-lines; !strings.Contains(l, `"id":2`) {
		t.Fatalf("second answer: %s", l)
	}
	_ = inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
}

package jsonrpc_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// toolsCall is the frame the load harness sends: a 2026-07-28 tools/call
// of echo with the three reserved _meta keys.
var toolsCall = []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo",` +
	`"arguments":{"text":"The quick brown fox jumps over the lazy dog, 0123456789."},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"}}}}`)

// BenchmarkDecodeToolsCall is the wire step of every request: the bounded
// scan of the whole frame and the envelope.
func BenchmarkDecodeToolsCall(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(toolsCall)))
	for b.Loop() {
		m, err := jsonrpc.Decode(toolsCall)
		if err != nil || m.Method != "tools/call" {
			b.Fatal(m, err)
		}
	}
}

// echoResult mirrors the shape of a tools/call result.
type echoResult struct {
	ResultType string `json:"resultType"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func resultWith(text string) *echoResult {
	r := &echoResult{ResultType: "complete"}
	r.Content = append(r.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", text})
	return r
}

// BenchmarkEncodeResult encodes a result frame: jsoniter, then the
// non-ASCII pass, then the envelope. ascii is the common case (the pass
// only scans); nonascii has every fourth character outside ASCII.
func BenchmarkEncodeResult(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"ascii", "The quick brown fox jumps over the lazy dog, 0123456789."},
		{"nonascii", strings.Repeat("abcé", 14)},
		{"nonascii-4KiB", strings.Repeat("abc日本", 455)},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := resultWith(c.text)
			id := jsonrpc.IntID(12345)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rpcwire.EncodeResult(id, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEscapeNonASCII isolates the \u escaping pass over an encoded
// 4 KiB body.
func BenchmarkEscapeNonASCII(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"ascii-4KiB", strings.Repeat("abcd", 1024)},
		{"cjk-4KiB", strings.Repeat("ab日本", 512)},
	} {
		b.Run(c.name, func(b *testing.B) {
			in := []byte(c.body)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				out := jsonwire.EscapeNonASCII(in)
				if len(out) < len(in) {
					b.Fatal("escaping shrank the body")
				}
			}
		})
	}
}

package client

import (
	"encoding/base64"
	"errors"
	"go/build"
	"io"
	"strings"
	"testing"
	"time"
)

func TestHeaderValue(t *testing.T) {
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for in, want := range map[string]string{
		"eu-west":         "eu-west",
		"two words":       "two words",
		"":                "",
		" padded":         b64(" padded"),
		"tab\there":       b64("tab\there"),
		"Z\u00fcrich":     b64("Z\u00fcrich"),
		"=?base64?abc?=":  b64("=?base64?abc?="),
		"=?base64?abc":    "=?base64?abc",
		"line\nbreak":     b64("line\nbreak"),
		"del\x7f":         b64("del\x7f"),
		"!#$%&'*+-.^_`|~": "!#$%&'*+-.^_`|~",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParamHeaders(t *testing.T) {
	hs, err := paramHeaders([]byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":"integer","x-mcp-header":"N"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"nested":{"type":"object","properties":{"deep":{"type":"string","x-mcp-header":"Deep"}}},
		"plain":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := paramHeaderValues(hs, []byte(`{"region":"eu","n":42.0,"flag":false,"nested":{"deep":"x y"},"plain":"p"}`))
	want := map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-N": "42", "Mcp-Param-Flag": "false", "Mcp-Param-Deep": "x y"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Null and absent arguments send no header.
	if got := paramHeaderValues(hs, []byte(`{"region":null}`)); len(got) != 0 {
		t.Errorf("null argument gave %v", got)
	}
	for name, schema := range map[string]string{
		"under items":     `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"under anyOf":     `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"on a number":     `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"without a type":  `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`,
		"not a token":     `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"empty":           `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"twice":           `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}`,
		"on the root":     `{"type":"string","x-mcp-header":"A"}`,
		"not a string":    `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`,
		"under $defs ref": `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}}}`,
	} {
		if _, err := paramHeaders([]byte(schema)); err == nil {
			t.Errorf("%s: accepted %s", name, schema)
		}
	}
}

func TestLimitReader(t *testing.T) {
	b, err := io.ReadAll(&limitReader{r: strings.NewReader("12345"), n: 5})
	if err != nil || string(b) != "12345" {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := io.ReadAll(&limitReader{r: strings.NewReader("123456"), n: 5}); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestCacheExpiresAndEvicts(t *testing.T) {
	now := time.Unix(1000, 0)
	k := &Cache{MaxEntries: 2, MaxBytes: 100}
	k.now = func() time.Time { return now }
	a := cacheKey{server: "s", method: "m", arg: "a"}
	b := cacheKey{server: "s", method: "m", arg: "b"}
	c := cacheKey{server: "s", method: "m", arg: "c"}
	k.put(a, []byte(`"a"`), time.Second)
	if _, ok := k.get(a); !ok {
		t.Fatal("fresh entry missing")
	}
	now = now.Add(time.Second)
	if _, ok := k.get(a); ok {
		t.Fatal("expired entry served")
	}
	if k.len() != 0 {
		t.Fatal("expired entry kept")
	}
	k.put(a, []byte(`"a"`), time.Minute)
	k.put(b, []byte(`"b"`), time.Minute)
	k.get(a) // a is now the most recent
	k.put(c, []byte(`"c"`), time.Minute)
	if _, ok := k.get(b); ok {
		t.Fatal("the least recently used entry survived")
	}
	if _, ok := k.get(a); !ok {
		t.Fatal("a recent entry was evicted")
	}
	// The byte bound: one large entry pushes the others out; one over
	// the whole bound is not stored.
	k.put(b, []byte(strings.Repeat("x", 99)), time.Minute)
	if k.len() != 1 {
		t.Fatalf("%d entries after a large one", k.len())
	}
	k.put(c, []byte(strings.Repeat("x", 101)), time.Minute)
	if _, ok := k.get(c); ok {
		t.Fatal("an entry over the byte bound was stored")
	}
	// A ttl of zero is not stored.
	k.put(a, []byte(`"a"`), 0)
	if _, ok := k.get(a); ok {
		t.Fatal("ttl 0 stored")
	}
}

// TestStandsAlone: the client speaks the wire itself; of this module it
// imports only the shared vocabulary (jsonrpc, mcp), the wire layer's
// bytes and frames (internal/jsonwire, internal/rpcwire), the shared
// event-stream format (internal/sse) and its transports' contract
// (internal/clientconn), never the server core.
func TestStandsAlone(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		switch imp {
		case "github.com/snodo-go/snodo/jsonrpc", "github.com/snodo-go/snodo/mcp", "github.com/snodo-go/snodo/internal/jsonwire", "github.com/snodo-go/snodo/internal/rpcwire",
			"github.com/snodo-go/snodo/internal/sse", "github.com/snodo-go/snodo/internal/clientconn":
			continue
		}
		if strings.HasPrefix(imp, "github.com/snodo-go/snodo/") {
			t.Errorf("client imports %s", imp)
		}
	}
}

package mcp

import (
	"errors"
	"slices"
	"testing"

	"github.com/snodo-go/snodo/jsonrpc"
)

func TestNewHeaderMismatchError(t *testing.T) {
	e := NewHeaderMismatchError("Mcp-Name header is required", nil)
	if e.Code != CodeHeaderMismatch || e.Message != "Header mismatch: Mcp-Name header is required" || e.Data != nil {
		t.Fatalf("got %+v", e)
	}
	data := map[string]any{"header": "a", "body": "b"}
	if e := NewHeaderMismatchError("x", data); e.Data == nil {
		t.Fatal("data dropped")
	}
	if !errors.Is(e, &jsonrpc.Error{Code: -32020}) {
		t.Fatal("errors.Is does not match the code")
	}
}

func TestNewUnsupportedVersionError(t *testing.T) {
	supported := []string{Version20260728, Version20251125}
	e := NewUnsupportedVersionError("2099-01-01", supported, "")
	if e.Code != CodeUnsupportedProtocolVersion || e.Message != "Unsupported protocol version: 2099-01-01" {
		t.Fatalf("got %+v", e)
	}
	supported[0] = "changed"
	data := e.Data.(map[string]any)
	if got := data["supported"].([]string); !slices.Equal(got, []string{Version20260728, Version20251125}) {
		t.Fatalf("supported = %v: the data must not share the caller's slice", got)
	}
	if data["requested"] != "2099-01-01" {
		t.Fatalf("requested = %v", data["requested"])
	}
	e = NewUnsupportedVersionError(Version20251125, supported, "is served only after initialize")
	if e.Message != "Unsupported protocol version: 2025-11-25 is served only after initialize" {
		t.Fatalf("message %q", e.Message)
	}
}

func TestVersionsIsACopy(t *testing.T) {
	v := Versions()
	if !slices.Equal(v, []string{"2026-07-28", "2025-11-25", "2025-06-18"}) {
		t.Fatalf("Versions() = %v", v)
	}
	v[0] = "x"
	if Versions()[0] != Version20260728 {
		t.Fatal("Versions shares its slice with callers")
	}
}

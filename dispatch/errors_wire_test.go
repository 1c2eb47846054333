package dispatch

import (
	"errors"
	"slices"
	"testing"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

func TestHeaderMismatchError(t *testing.T) {
	e := headerMismatchError("Mcp-Name header is required", nil)
	if e.Code != mcp.CodeHeaderMismatch || e.Message != "Header mismatch: Mcp-Name header is required" || e.Data != nil {
		t.Fatalf("got %+v", e)
	}
	data := map[string]any{"header": "a", "body": "b"}
	if e := headerMismatchError("x", data); e.Data == nil {
		t.Fatal("data dropped")
	}
	if !errors.Is(e, &jsonrpc.Error{Code: -32020}) {
		t.Fatal("errors.Is does not match the code")
	}
}

func TestUnsupportedVersionError(t *testing.T) {
	supported := []string{mcp.Version20260728, mcp.Version20251125}
	e := unsupportedVersionError("2099-01-01", supported, "")
	if e.Code != mcp.CodeUnsupportedProtocolVersion || e.Message != "Unsupported protocol version: 2099-01-01" {
		t.Fatalf("got %+v", e)
	}
	supported[0] = "changed"
	data := e.Data.(map[string]any)
	if got := data["supported"].([]string); !slices.Equal(got, []string{mcp.Version20260728, mcp.Version20251125}) {
		t.Fatalf("supported = %v: the data must not share the caller's slice", got)
	}
	if data["requested"] != "2099-01-01" {
		t.Fatalf("requested = %v", data["requested"])
	}
	e = unsupportedVersionError(mcp.Version20251125, supported, "is served only after initialize")
	if e.Message != "Unsupported protocol version: 2025-11-25 is served only after initialize" {
		t.Fatalf("message %q", e.Message)
	}
}

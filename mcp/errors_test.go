package mcp

import (
	"slices"
	"testing"
)

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

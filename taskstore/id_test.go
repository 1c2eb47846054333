package taskstore_test

import (
	"strings"
	"testing"

	"github.com/snodo-go/snodo/taskstore"
)

func TestNewIDIsRandomAndValid(t *testing.T) {
	seen := map[string]bool{}
	// Each position takes every base32 symbol across many ids: nothing in an
	// id is fixed (no prefix, no counter).
	symbols := make([]map[rune]bool, 26)
	for i := range symbols {
		symbols[i] = map[rune]bool{}
	}
	for range 20000 {
		id := taskstore.NewID()
		if !taskstore.ValidID(id) {
			t.Fatalf("NewID() = %q, which ValidID refuses", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
		for i, r := range id {
			symbols[i][r] = true
		}
	}
	// The last character holds 5 bits like the others (26 × 5 = 130).
	for i, s := range symbols {
		if len(s) != 32 {
			t.Fatalf("position %d took %d distinct symbols over 20000 ids, want all 32", i, len(s))
		}
	}
}

func TestValidIDRefusesOtherStrings(t *testing.T) {
	good := taskstore.NewID()
	for _, id := range []string{
		"", good[:25], good + "A", strings.ToLower(good), "tasks-conformance-nonexistent-12345",
		good[:25] + "1", good[:25] + "=", good[:25] + "é",
	} {
		if taskstore.ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

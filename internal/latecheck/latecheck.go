// Package latecheck checks a package's list of messages expected to
// arrive late (after their actor stopped) against its source: each listed
// type is one the source marks as such and carries its reason, and each
// marked type is listed. The actors and supervisor packages each keep
// such a list, and mark their types each in its own way.
package latecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Check parses the non-test Go files of dir, collects the names of the
// types marked reports (it is called once per file), and checks listed,
// the package's list of message types expected late, each with its
// reason, against them. It fails t when a listed type has no reason or
// is not marked, when a marked type is not listed, and when the parse
// found no marked type at all (it read the wrong files).
func Check(t testing.TB, dir string, listed map[reflect.Type]string, marked func(*ast.File) []string) {
	t.Helper()
	hidden := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range marked(file) {
			hidden[n] = true
		}
	}
	if len(hidden) == 0 {
		t.Fatalf("no type in %s is marked as expected late: is the check reading the package's files?", dir)
	}
	names := map[string]bool{}
	for typ, reason := range listed {
		name := typ.Name()
		if typ.Kind() == reflect.Pointer {
			name = typ.Elem().Name()
		}
		names[name] = true
		if strings.TrimSpace(reason) == "" {
			t.Errorf("%s is listed as expected late without a reason", name)
		}
		if !hidden[name] {
			t.Errorf("%s is listed as expected late but its type is not marked as such", name)
		}
	}
	var missing []string
	for name := range hidden {
		if !names[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("marked as expected late but not listed with a reason: %v", missing)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snodo-go/snodo/testkit"
)

func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// testdata/mod holds one case of every rule: see lib/lib.go.
const tree = "testdata/mod"

func TestMeasureCountsByTheRule(t *testing.T) {
	pkgs, err := Measure(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{
		{
			Dir: "lib",
			// Documented Bare Low High Lone Ready Gone Naked Pair Base
			// Pair.Method Pair.BareMethod Doer Box Box.Get Naked2 Race
			Names: 17,
			// Left Right Bare Nested Nested.Deep Nested.Shown
			Fields: 6,
			Undocumented: []string{
				"lib/lib.go:7: Bare",
				"lib/lib.go:18: Lone",
				"lib/lib.go:24: Naked",
				"lib/lib.go:32: Pair.Bare (field)",
				"lib/lib.go:39: Pair.Nested.Shown (field)",
				"lib/lib.go:49: Pair.BareMethod",
				"lib/lib.go:62: Doer.Undone (interface method)",
				"lib/lib.go:72: Naked2",
				"lib/race_off.go:3: the file has no opening comment naming its job",
				"lib/race_off.go:5: Race",
			},
		},
		{Dir: "lib/sub", Names: 1},
	}
	if len(pkgs) != len(want) {
		t.Fatalf("got %d packages %+v, want %d (internal/, examples/, the sibling module and package main left out)", len(pkgs), pkgs, len(want))
	}
	for i := range want {
		g, w := pkgs[i], want[i]
		if g.Dir != w.Dir || g.Names != w.Names || g.Fields != w.Fields || !slices.Equal(g.Undocumented, w.Undocumented) {
			t.Errorf("package %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestRunExitStatus(t *testing.T) {
	documentedTree := t.TempDir()
	writeFile(t, documentedTree, "go.mod", "module example.com/doc\n\ngo 1.26\n")
	writeFile(t, documentedTree, "p/p.go", "// Package p is documented.\npackage p\n\n// F is documented.\nfunc F() {}\n")
	emptyModule := t.TempDir()
	writeFile(t, emptyModule, "go.mod", "module example.com/empty\n\ngo 1.26\n")
	broken := t.TempDir()
	writeFile(t, broken, "go.mod", "module example.com/broken\n\ngo 1.26\n")
	writeFile(t, broken, "p/p.go", "package p\n\nfunc {\n")

	cases := []struct {
		name   string
		root   string
		opts   options
		status int
		output string
	}{
		{"report only", tree, options{}, 0, "total     18       6            10"},
		{"at the limit", tree, options{max: 18}, 0, "total"},
		{"over the limit", tree, options{max: 17}, 1, "over the limit of 17 by 1"},
		{"undocumented", tree, options{documented: true}, 1, "10 exported names, fields and files have no doc comment"},
		{"all documented", documentedTree, options{max: 1, documented: true}, 0, "total      1       0             0"},
		{"not a module root", t.TempDir(), options{}, 2, "is not a module root"},
		{"no package", emptyModule, options{}, 2, "no library package found"},
		{"unparsable file", broken, options{}, 2, "p.go:3:6: expected 'IDENT'"},
		// With a stated set, -max limits the set's total, not the module's.
		{"set at the limit", tree, options{max: 1, packages: []string{"lib/sub"}}, 0, "stated packages: 1 names, 0 fields (lib/sub)"},
		{"set over the limit", tree, options{max: 17, packages: []string{"lib/..."}}, 1, "stated packages is 18 names, over the limit of 17 by 1"},
		{"set names what is missing", tree, options{packages: []string{"lib", "gone"}}, 0, "no package matches: gone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if got := run(&out, &out, c.root, c.opts); got != c.status {
				t.Fatalf("status %d, want %d; output:\n%s", got, c.status, out.String())
			}
			if !strings.Contains(out.String(), c.output) {
				t.Errorf("output lacks %q:\n%s", c.output, out.String())
			}
		})
	}
}

func TestQuietLeavesOutTheList(t *testing.T) {
	var out bytes.Buffer
	run(&out, &out, tree, options{quiet: true})
	if strings.Contains(out.String(), "without a doc comment") {
		t.Errorf("-q printed the list:\n%s", out.String())
	}
}

func TestNamesListsTheCountedNames(t *testing.T) {
	var out bytes.Buffer
	run(&out, &out, tree, options{quiet: true, names: true})
	for _, want := range []string{"lib/sub (1): One\n", "Pair.BareMethod", "Box.Get"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-names output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSelectMatchesDirectoriesAndTrees(t *testing.T) {
	pkgs := []Package{{Dir: "a"}, {Dir: "a/b"}, {Dir: "ab"}, {Dir: "c/d"}}
	got, missing := Select(pkgs, []string{"a/...", "c", "c/d"})
	var dirs []string
	for _, p := range got {
		dirs = append(dirs, p.Dir)
	}
	if want := []string{"a", "a/b", "c/d"}; !slices.Equal(dirs, want) {
		t.Errorf("selected %v, want %v", dirs, want)
	}
	if want := []string{"c"}; !slices.Equal(missing, want) {
		t.Errorf("missing %v, want %v", missing, want)
	}
	if got := splitList(" a, ,b,a "); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("splitList = %v", got)
	}
}

func writeFile(t *testing.T, root, name, text string) {
	t.Helper()
	path := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Command surface counts the exported surface of the module's library
// packages and lists every exported name and exported struct field that
// has no doc comment, and every file without an opening comment naming
// its job.
//
// What counts: in every package of the module (non-test files; package
// main and files constrained by "//go:build ignore" left out), the
// exported top-level names (functions, types, variables, constants) and
// the exported methods of exported types. Directories named internal,
// testdata or vendor, the top-level examples, conformance and bench
// directories, and any directory with its own go.mod (a sibling module)
// are left out. A name declared in several files (one per build tag)
// counts once. Exported fields of exported struct types, nested struct
// types included, are counted apart; embedded fields are not counted.
// The methods of an interface are part of its declaration: they are not
// counted, but each must be documented.
//
// A declaration is documented when it carries a doc comment; a constant
// or variable in a parenthesized group may take the group's comment. A
// field or interface method is documented by a comment above it or at
// the end of its line.
//
// Usage:
//
//	go run ./internal/cmd/surface [-max N] [-packages LIST] [-names] [-documented] [-q] [module root]
//
// It prints one row per package, the total, and every undocumented name
// with its position (-q leaves that list out); -names also lists each
// package's counted names. With -packages, a comma-separated list of
// package directories ("dir/..." for a directory and every package below
// it), it also prints the total of that set and names any entry that
// matches no package. With -max it exits with status 1 when the total
// (the set's total when -packages is given) exceeds N; with -documented,
// when anything in the module is undocumented. Status 2 means it could
// not measure (no module root, a file that does not parse, no package
// found).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

// options are the command's flags.
type options struct {
	max        int      // the limit on the total (the set's, with packages); 0 for none
	packages   []string // the stated set's patterns; nil for the whole module
	documented bool     // fail on an undocumented name or field
	quiet      bool     // leave out the list of undocumented names
	names      bool     // list each package's counted names
}

func main() {
	var o options
	flag.IntVar(&o.max, "max", 0, "exit 1 when the exported surface (of the -packages set, if given) exceeds `N` names (0: no limit)")
	packages := flag.String("packages", "", "count also the total of this comma-separated `list` of package directories (dir/... for a tree)")
	flag.BoolVar(&o.documented, "documented", false, "exit 1 when an exported name or field has no doc comment, or a file no opening comment")
	flag.BoolVar(&o.quiet, "q", false, "leave out the list of undocumented names")
	flag.BoolVar(&o.names, "names", false, "list each package's counted names")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: surface [-max N] [-packages LIST] [-names] [-documented] [-q] [module root, default .]")
		flag.PrintDefaults()
	}
	flag.Parse()
	root := "."
	switch flag.NArg() {
	case 0:
	case 1:
		root = flag.Arg(0)
	default:
		flag.Usage()
		os.Exit(2)
	}
	o.packages = splitList(*packages)
	os.Exit(run(os.Stdout, os.Stderr, root, o))
}

// run measures root, writes the report to w (and why it could not
// measure to errw) and returns the exit status.
func run(w, errw io.Writer, root string, o options) int {
	pkgs, err := Measure(root)
	if err != nil {
		fmt.Fprintln(errw, "surface:", err)
		return 2
	}
	if len(pkgs) == 0 {
		fmt.Fprintf(errw, "surface: no library package found under %s\n", root)
		return 2
	}
	total := Report(w, pkgs, !o.quiet, o.names)
	limited, what := total, "the exported surface"
	if o.packages != nil {
		set, missing := Select(pkgs, o.packages)
		limited = ReportSet(w, set, missing)
		what = "the exported surface of the stated packages"
	}
	status := 0
	if o.max > 0 && limited.Names > o.max {
		fmt.Fprintf(w, "FAIL: %s is %d names, over the limit of %d by %d\n", what, limited.Names, o.max, limited.Names-o.max)
		status = 1
	}
	if o.documented && total.Undocumented > 0 {
		fmt.Fprintf(w, "FAIL: %d exported names, fields and files have no doc comment\n", total.Undocumented)
		status = 1
	}
	return status
}

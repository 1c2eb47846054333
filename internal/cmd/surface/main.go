// Command surface counts the exported surface of the module's library
// packages and lists every exported name and exported struct field that
// has no doc comment.
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
//	go run ./internal/cmd/surface [-max N] [-documented] [-q] [module root]
//
// It prints one row per package, the total, and every undocumented name
// with its position (-q leaves that list out). With -max it exits with
// status 1 when the total exceeds N; with -documented, when anything is
// undocumented. Status 2 means it could not measure (no module root, a
// file that does not parse, no package found).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	max := flag.Int("max", 0, "exit 1 when the exported surface exceeds `N` names (0: no limit)")
	documented := flag.Bool("documented", false, "exit 1 when an exported name or field has no doc comment")
	quiet := flag.Bool("q", false, "leave out the list of undocumented names")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: surface [-max N] [-documented] [-q] [module root, default .]")
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
	os.Exit(run(os.Stdout, os.Stderr, root, *max, *documented, *quiet))
}

// run measures root, writes the report to w (and why it could not
// measure to errw) and returns the exit status.
func run(w, errw io.Writer, root string, max int, documented, quiet bool) int {
	pkgs, err := Measure(root)
	if err != nil {
		fmt.Fprintln(errw, "surface:", err)
		return 2
	}
	if len(pkgs) == 0 {
		fmt.Fprintf(errw, "surface: no library package found under %s\n", root)
		return 2
	}
	total := Report(w, pkgs, !quiet)
	status := 0
	if max > 0 && total.Names > max {
		fmt.Fprintf(w, "FAIL: the exported surface is %d names, over the limit of %d by %d\n", total.Names, max, total.Names-max)
		status = 1
	}
	if documented && total.Undocumented > 0 {
		fmt.Fprintf(w, "FAIL: %d exported names and fields have no doc comment\n", total.Undocumented)
		status = 1
	}
	return status
}

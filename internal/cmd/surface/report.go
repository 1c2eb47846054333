// This file writes the per-package table, the total and the list of
// undocumented names.

package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Total sums the packages' counts.
type Total struct {
	// Names is the exported surface: top-level names plus methods.
	Names int
	// Fields is the number of exported struct fields.
	Fields int
	// Undocumented counts the names and fields without a doc comment and
	// the files without an opening comment.
	Undocumented int
}

// Report writes one row per package and the total to w, then, when list
// is set, every undocumented name with its position and, when names is
// set, each package's counted names. It returns the total.
func Report(w io.Writer, pkgs []Package, list, names bool) Total {
	var total Total
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "package\tnames\tfields\tundocumented\t")
	for _, p := range pkgs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", p.Dir, p.Names, p.Fields, len(p.Undocumented))
		total.Names += p.Names
		total.Fields += p.Fields
		total.Undocumented += len(p.Undocumented)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t\n", total.Names, total.Fields, total.Undocumented)
	tw.Flush()
	if list && total.Undocumented > 0 {
		fmt.Fprintln(w, "\nwithout a doc comment (or a file without its opening comment):")
		for _, p := range pkgs {
			for _, u := range p.Undocumented {
				fmt.Fprintln(w, "  "+u)
			}
		}
	}
	if names {
		for _, p := range pkgs {
			fmt.Fprintf(w, "\n%s (%d): %s\n", p.Dir, p.Names, strings.Join(p.Exported, " "))
		}
	}
	return total
}

// ReportSet writes the total of the stated set of packages, the packages
// it holds and the patterns that matched no package. It returns the
// set's total.
func ReportSet(w io.Writer, set []Package, missing []string) Total {
	var total Total
	dirs := make([]string, 0, len(set))
	for _, p := range set {
		total.Names += p.Names
		total.Fields += p.Fields
		total.Undocumented += len(p.Undocumented)
		dirs = append(dirs, p.Dir)
	}
	fmt.Fprintf(w, "\nstated packages: %d names, %d fields (%s)\n", total.Names, total.Fields, strings.Join(dirs, ", "))
	if len(missing) > 0 {
		fmt.Fprintf(w, "no package matches: %s\n", strings.Join(missing, ", "))
	}
	return total
}

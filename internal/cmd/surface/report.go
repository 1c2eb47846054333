// This file writes the per-package table, the total and the list of
// undocumented names.

package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Total sums the packages' counts.
type Total struct {
	// Names is the exported surface: top-level names plus methods.
	Names int
	// Fields is the number of exported struct fields.
	Fields int
	// Undocumented counts the names and fields without a doc comment.
	Undocumented int
}

// Report writes one row per package and the total to w and, when list is
// set, every undocumented name with its position. It returns the total.
func Report(w io.Writer, pkgs []Package, list bool) Total {
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
		fmt.Fprintln(w, "\nwithout a doc comment:")
		for _, p := range pkgs {
			for _, u := range p.Undocumented {
				fmt.Fprintln(w, "  "+u)
			}
		}
	}
	return total
}

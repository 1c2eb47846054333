// This file picks the packages of a stated set (-packages) out of the
// measured ones.

package main

import (
	"slices"
	"strings"
)

// Select returns the packages of pkgs that match one of patterns, in
// pkgs' order, and the patterns that match none. A pattern is a package
// directory relative to the module root ("client"), or a directory
// followed by "/..." for it and every package below it ("transports/...").
func Select(pkgs []Package, patterns []string) (selected []Package, missing []string) {
	matched := make([]bool, len(patterns))
	for _, p := range pkgs {
		hit := false
		for i, pattern := range patterns {
			if matches(pattern, p.Dir) {
				matched[i], hit = true, true
			}
		}
		if hit {
			selected = append(selected, p)
		}
	}
	for i, pattern := range patterns {
		if !matched[i] {
			missing = append(missing, pattern)
		}
	}
	return selected, missing
}

// matches reports whether the package directory dir is matched by pattern.
func matches(pattern, dir string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	return dir == pattern
}

// splitList splits a comma-separated -packages value, dropping empty
// entries and surrounding spaces.
func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

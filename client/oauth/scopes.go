// Scope sets as OAuth writes them: space-separated, order kept, no
// repeats.
package oauth

import (
	"slices"
	"strings"
)

// union returns a followed by the scopes of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

func splitScopes(s string) []string { return union(nil, strings.Fields(s)) }

func joinScopes(s []string) string { return strings.Join(s, " ") }

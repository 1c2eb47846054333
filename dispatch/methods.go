// The method table every built-in revision shares: the methods whose
// operation and required capability do not depend on the revision.

package dispatch

import "maps"

// methodRoute is where a dialect routes one method: its operation and
// the capability it needs ("" for none).
type methodRoute struct {
	op         operation
	capability string
}

// baseMethods are the methods 2026-07-28, 2025-11-25 and 2025-06-18 all
// serve with the same operation; each dialect shapes the results for its
// own wire.
var baseMethods = map[string]methodRoute{
	"tools/list":               {opToolsList, "tools"},
	"tools/call":               {opToolsCall, "tools"},
	"prompts/list":             {opPromptsList, "prompts"},
	"prompts/get":              {opPromptsGet, "prompts"},
	"resources/list":           {opResourcesList, "resources"},
	"resources/templates/list": {opTemplatesList, "resources"},
	"resources/read":           {opResourcesRead, "resources"},
	"completion/complete":      {opComplete, "completions"},
}

// withBaseMethods returns a revision's table: baseMethods plus the
// methods only that revision has. A revision's own entry never replaces a
// shared one.
func withBaseMethods(own map[string]methodRoute) map[string]methodRoute {
	t := maps.Clone(baseMethods)
	for m, r := range own {
		if _, shared := t[m]; shared {
			panic("dispatch: method " + m + " is in the shared table")
		}
		t[m] = r
	}
	return t
}

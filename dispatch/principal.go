// A principal's identity: which party a verified principal stands for.

package dispatch

import "fmt"

// IdentifiedPrincipal is implemented by a principal that names the party
// it stands for, for principals whose value changes while the party does
// not (a new value per access token, so that a refreshed token would
// otherwise look like someone else). Two principals of the same type with
// the same non-empty PrincipalID are the same party: a requestState
// sealed for one is accepted for the other (unless [WithPrincipalID]
// says otherwise), and a Streamable HTTP session bound to one
// (streamablehttp.SessionConfig.BindPrincipal) answers the other.
type IdentifiedPrincipal interface {
	// PrincipalID returns the party's identity, "" when it is not
	// known (the principal then matches only a value equal to itself).
	// It is compared, never shown: it may carry claims that logs must
	// not.
	PrincipalID() string
}

// principalIdentity returns the identity of an IdentifiedPrincipal,
// qualified by its type, or "" when p is none or names none.
func principalIdentity(p any) string {
	ip, ok := p.(IdentifiedPrincipal)
	if !ok {
		return ""
	}
	id := ip.PrincipalID()
	if id == "" {
		return ""
	}
	return fmt.Sprintf("%T:", p) + id
}

// Protocol revisions: their names and the order this module prefers them.

package mcp

// Protocol revisions this module speaks.
const (
	// Version20260728 is the stateless revision: no initialize handshake,
	// the version and client capabilities in every request's _meta.
	Version20260728 = "2026-07-28"
	// Version20251125 is the newest revision with an initialize handshake.
	Version20251125 = "2025-11-25"
	// Version20250618 is the oldest revision this module speaks.
	Version20250618 = "2025-06-18"
)

// Versions returns every revision this module speaks, in preference order:
// the stateless 2026-07-28 first, then the initialize-era revisions,
// newest first. Each call returns a new slice.
func Versions() []string {
	return []string{Version20260728, Version20251125, Version20250618}
}

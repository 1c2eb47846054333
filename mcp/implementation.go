// Implementation and Icon: how a server or client describes itself.

package mcp

// Implementation describes an MCP implementation: a server's identity in
// its results, or a client's as it reports it (unverified).
type Implementation struct {
	// Name identifies the implementation programmatically; required.
	Name string `json:"name"`
	// Title is a name for people to read.
	Title string `json:"title,omitempty"`
	// Version is the implementation's version; required.
	Version string `json:"version"`
	// Description says what the implementation does (2025-11-25 and
	// later).
	Description string `json:"description,omitempty"`
	// WebsiteURL is the implementation's home page (2025-11-25 and later).
	WebsiteURL string `json:"websiteUrl,omitempty"`
	// Icons are images a client may show for it (2025-11-25 and later).
	Icons []Icon `json:"icons,omitempty"`
}

// Icon is an optionally sized image a client may show in its interface.
type Icon struct {
	// Src is an http(s) URL or a data: URI.
	Src string `json:"src"`
	// MIMEType is the image's media type, such as "image/png".
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes lists the sizes the image suits, such as "48x48" or "any".
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark" when the icon suits only one.
	Theme string `json:"theme,omitempty"`
}

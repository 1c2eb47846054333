package dispatch

// Implementation describes an MCP implementation: the server's own identity
// in results, or the client's as it reports it.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an optionally sized image a client may show in its interface.
type Icon struct {
	// Src is an http(s) URL or a data: URI.
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark" when the icon suits only one.
	Theme string `json:"theme,omitempty"`
}

// ServerCapabilities is what the server advertises. The Runtime derives it
// from the registered components; applications never build it by hand.
type ServerCapabilities struct {
	Tools        *ListChangedCapability    `json:"tools,omitempty"`
	Resources    *ResourcesCapability      `json:"resources,omitempty"`
	Prompts      *ListChangedCapability    `json:"prompts,omitempty"`
	Completions  *struct{}                 `json:"completions,omitempty"`
	Logging      *struct{}                 `json:"logging,omitempty"`
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	Extensions   map[string]map[string]any `json:"extensions,omitempty"`
}

// ListChangedCapability advertises a component kind and whether the server
// announces changes to its list.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability advertises resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities is what a client declares: per request on 2026-07-28,
// once at initialize on the earlier revisions. A nil field means the
// capability is absent.
type ClientCapabilities struct {
	Elicitation  *ElicitationCapability    `json:"elicitation,omitempty"`
	Sampling     *SamplingCapability       `json:"sampling,omitempty"`
	Roots        *RootsCapability          `json:"roots,omitempty"`
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	Extensions   map[string]map[string]any `json:"extensions,omitempty"`
}

// ElicitationCapability: an empty value means form mode only.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// SamplingCapability declares sampling and its optional features.
type SamplingCapability struct {
	Context *struct{} `json:"context,omitempty"`
	Tools   *struct{} `json:"tools,omitempty"`
}

// RootsCapability declares roots.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

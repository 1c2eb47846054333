// What servers and clients declare they can do.

package mcp

// ServerCapabilities is what a server advertises. A nil field means the
// capability is absent.
type ServerCapabilities struct {
	// Tools: the server offers tools.
	Tools *ListChangedCapability `json:"tools,omitempty"`
	// Resources: the server offers resources.
	Resources *ResourcesCapability `json:"resources,omitempty"`
	// Prompts: the server offers prompts.
	Prompts *ListChangedCapability `json:"prompts,omitempty"`
	// Completions: the server answers completion/complete.
	Completions *struct{} `json:"completions,omitempty"`
	// Logging: the server may send log messages.
	Logging *struct{} `json:"logging,omitempty"`
	// Experimental holds non-standard capabilities by name.
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	// Extensions holds the settings of each extension the server offers,
	// by extension id (2026-07-28).
	Extensions map[string]map[string]any `json:"extensions,omitempty"`
}

// ListChangedCapability advertises a component kind and whether the
// server announces changes to its list.
type ListChangedCapability struct {
	// ListChanged: the server sends list_changed notifications.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability advertises resources.
type ResourcesCapability struct {
	// Subscribe: clients may subscribe to updates of single resources.
	Subscribe bool `json:"subscribe,omitempty"`
	// ListChanged: the server sends notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities is what a client declares: per request on
// 2026-07-28, once at initialize on the earlier revisions. A nil field
// means the capability is absent.
type ClientCapabilities struct {
	// Elicitation: the client can ask its user for input.
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// Sampling: the client can sample its language model.
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Roots: the client can list its roots.
	Roots *RootsCapability `json:"roots,omitempty"`
	// Experimental holds non-standard capabilities by name.
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
	// Extensions holds the client's settings of each extension it
	// supports, by extension id (2026-07-28).
	Extensions map[string]map[string]any `json:"extensions,omitempty"`
}

// ElicitationCapability declares the elicitation modes a client serves.
// An empty value means form mode only.
type ElicitationCapability struct {
	// Form: the client serves form-mode elicitation.
	Form *struct{} `json:"form,omitempty"`
	// URL: the client serves url-mode elicitation.
	URL *struct{} `json:"url,omitempty"`
}

// SamplingCapability declares sampling and its optional features.
type SamplingCapability struct {
	// Context: the client honours includeContext.
	Context *struct{} `json:"context,omitempty"`
	// Tools: the client lets the sampled model use tools.
	Tools *struct{} `json:"tools,omitempty"`
}

// RootsCapability declares roots.
type RootsCapability struct {
	// ListChanged: the client sends notifications/roots/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// Missing returns the capabilities a client with c lacks to serve the
// input request r, or nil when it can serve it.
func (c ClientCapabilities) Missing(r InputRequest) *ClientCapabilities {
	if r == nil {
		return nil
	}
	return r.missing(c)
}

// merge adds what src declares to dst.
func (dst *ClientCapabilities) merge(src *ClientCapabilities) {
	if src.Elicitation != nil {
		if dst.Elicitation == nil {
			dst.Elicitation = &ElicitationCapability{}
		}
		if src.Elicitation.Form != nil {
			dst.Elicitation.Form = src.Elicitation.Form
		}
		if src.Elicitation.URL != nil {
			dst.Elicitation.URL = src.Elicitation.URL
		}
	}
	if src.Sampling != nil {
		if dst.Sampling == nil {
			dst.Sampling = &SamplingCapability{}
		}
		if src.Sampling.Tools != nil {
			dst.Sampling.Tools = src.Sampling.Tools
		}
		if src.Sampling.Context != nil {
			dst.Sampling.Context = src.Sampling.Context
		}
	}
	if src.Roots != nil {
		dst.Roots = src.Roots
	}
	for k, v := range src.Extensions {
		if dst.Extensions == nil {
			dst.Extensions = map[string]map[string]any{}
		}
		dst.Extensions[k] = v
	}
}

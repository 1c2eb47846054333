// The 2026-07-28 dialect: admission (headers, _meta, version) and the wire
// shapes of its results.

package dispatch

import (
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// dialect20260728 is the stateless revision: no initialize, _meta on every
// request, resultType on every result.
type dialect20260728 struct{}

func (dialect20260728) Version() string { return mcp.Version20260728 }
func (dialect20260728) Era() era        { return eraStateless }

func (d dialect20260728) Detect(req *Request, metaVersion string) match {
	switch {
	case metaVersion == mcp.Version20260728:
		return matchExact
	case versionClaim(req) == mcp.Version20260728:
		return matchClaim
	}
	// It answers everything else with the error that tells a client what
	// is supported.
	return matchFallback
}

// methods20260728 maps each method of the revision to its operation and the
// capability it needs ("" for none): the shared table plus discovery and
// subscriptions/listen.
var methods20260728 = withBaseMethods(map[string]methodRoute{
	"server/discover": {opDiscover, ""},
	MethodListen:      {opListen, "subscriptions"},
})

// removed20260728 are methods of earlier revisions this one removed.
var removed20260728 = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
}

// decodeMeta decodes the members of a checked _meta (version already read)
// and remembers the result when the _meta has no progress token, whose
// bytes would differ on every request.
func (rt *Runtime) decodeMeta(raw []byte, version string, wm *wireRequestMeta) (*admittedMeta, jsonrpc.ID, *jsonrpc.Error) {
	caps, jerr := parseClientCapabilities(wm.ClientCapabilities)
	if jerr != nil {
		return nil, jsonrpc.ID{}, jerr
	}
	info, jerr := parseClientInfo(wm.ClientInfo)
	if jerr != nil {
		return nil, jsonrpc.ID{}, jerr
	}
	level, jerr := parseLogLevel(wm.LogLevel)
	if jerr != nil {
		return nil, jsonrpc.ID{}, jerr
	}
	token, jerr := parseProgressToken(wm.ProgressToken)
	if jerr != nil {
		return nil, jsonrpc.ID{}, jerr
	}
	e := &admittedMeta{version: version, caps: caps, info: info, level: level}
	if len(wm.ProgressToken) == 0 {
		rt.metaCache.put(raw, e)
	}
	return e, token, nil
}

func (dialect20260728) hasMethod(method string) bool { _, ok := methods20260728[method]; return ok }

func (d dialect20260728) Admit(rt *Runtime, req *Request) (*Call, *jsonrpc.Error) {
	msg := req.Message
	entry, known := methods20260728[msg.Method]
	if known && !rt.hasCapability(entry.capability) {
		known = false
	}
	ext := rt.extensionRoute(msg.Method, mcp.Version20260728)
	if !known && ext != nil {
		entry.op, known = opExtension, true
	}
	pm := req.members()
	if req.Header != nil {
		mirrors, name := mirrorsName(msg.Method), mirroredName(msg, pm)
		if param := ext.nameParam(msg.Method); param != "" {
			raw, _ := jsonwire.Member(msg.Params, param)
			name, _ = jsonwire.Unquote(raw)
			mirrors = true
		}
		if e := checkMirroredHeaders(req.Header, msg.Method, mirrors, name); e != nil {
			return nil, e
		}
		if e := rt.checkToolHeaders(req.Header, msg, pm); e != nil {
			return nil, e
		}
	}
	meta, hasMeta := pm.meta.in(msg.Params)
	if !known && (removed20260728[msg.Method] || !hasMeta) {
		// A client of an earlier revision: tell it what is served.
		return nil, rt.methodNotFound(msg.Method)
	}
	if !hasMeta || len(meta) == 0 || meta[0] != '{' {
		return nil, invalidParams("Invalid params: _meta is required")
	}
	// A _meta seen before (without a progress token) was admitted then:
	// only the checks that depend on the request are repeated.
	cached := rt.metaCache.get(meta)
	var wm *wireRequestMeta // decoded only when not cached
	var version string
	if cached != nil {
		version = cached.version
	} else {
		wm = new(wireRequestMeta)
		if err := jsonwire.Unmarshal(meta, wm); err != nil {
			return nil, invalidParams("Invalid params: malformed _meta")
		}
		var ok bool
		version, ok = jsonwire.UnquoteInterned(wm.ProtocolVersion)
		if len(wm.ProtocolVersion) == 0 || !ok {
			return nil, invalidParams("Invalid params: _meta." + mcp.MetaProtocolVersion + " is required")
		}
		if len(wm.ClientCapabilities) == 0 {
			return nil, invalidParams("Invalid params: _meta." + mcp.MetaClientCapabilities + " is required")
		}
	}
	if req.Header != nil {
		h, present, ok := singleHeader(req.Header, mcp.HeaderProtocolVersion)
		switch {
		case !present:
			return nil, headerMismatchError("MCP-Protocol-Version header is required", nil)
		case !ok:
			return nil, headerMismatchError("MCP-Protocol-Version header is malformed or repeated", nil)
		case h != version:
			return nil, headerMismatchError("MCP-Protocol-Version header does not match _meta", map[string]any{"header": h, "body": version})
		}
	}
	if version != mcp.Version20260728 {
		return nil, rt.unsupportedVersion(version)
	}
	if !known {
		return nil, rt.methodNotFound(msg.Method)
	}
	var token jsonrpc.ID
	if cached == nil {
		var jerr *jsonrpc.Error
		if cached, token, jerr = rt.decodeMeta(meta, version, wm); jerr != nil {
			return nil, jerr
		}
	}
	caps, level := cached.caps, cached.level
	if level == "" {
		// A level the client set on this connection with logging/setLevel
		// (an initialize-era message, sent by clients that name no
		// revision) applies to its requests that name none of their own.
		level = req.Session.currentLogLevel()
	}
	if ext != nil && entry.capability == "" {
		if jerr := admitExtension(ext, caps); jerr != nil {
			return nil, jerr
		}
	}
	input, jerr := rt.admitInput(msg.Method, msg.Params, pm, req.Principal)
	if jerr != nil {
		return nil, jerr
	}
	listen, jerr := rt.admitListen(msg)
	if jerr != nil {
		return nil, jerr
	}
	call := &Call{
		Info: RequestInfo{
			ID:                 msg.ID,
			Method:             msg.Method,
			ProtocolVersion:    version,
			ClientCapabilities: caps,
			LogLevel:           level,
			ProgressToken:      token,
			Meta:               meta,
			Principal:          req.Principal,
			Transport:          req.Transport,
		},
		Params:   msg.Params,
		dialect:  d,
		op:       entry.op,
		Notifier: req.Notifier,
		Input:    input,

		params:       pm.forCall(),
		listenFilter: listen,
	}
	if cached.info != nil {
		// The call's own copy, so its handler never changes what another
		// request sees.
		call.clientInfo = *cached.info
		call.Info.ClientInfo = &call.clientInfo
	}
	return call, nil
}

// checkToolHeaders checks the Mcp-Param-* headers of a tools/call for a
// known tool with x-mcp-header annotations.
func (rt *Runtime) checkToolHeaders(h map[string][]string, msg *jsonrpc.Message, pm *paramMembers) *jsonrpc.Error {
	if msg.Method != "tools/call" {
		return nil
	}
	raw, _ := pm.member(msg.Params, pm.name, "name")
	name, _ := jsonwire.Unquote(raw)
	e, ok := rt.catalog.snapshot().tools[name]
	if !ok || len(e.headers) == 0 {
		return nil
	}
	args, _ := pm.member(msg.Params, pm.arguments, "arguments")
	if len(args) == 0 || args[0] != '{' {
		args = emptyObject
	}
	return checkParamHeaders(h, e.headers, args)
}

// mirrorsName reports whether a method's Mcp-Name header mirrors the body.
func mirrorsName(method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

// mirroredName is params.name, or params.uri for resources/read.
func mirroredName(msg *jsonrpc.Message, pm *paramMembers) string {
	var raw []byte
	if msg.Method == "resources/read" {
		raw, _ = jsonwire.Member(msg.Params, "uri")
	} else {
		raw, _ = pm.member(msg.Params, pm.name, "name")
	}
	s, _ := jsonwire.Unquote(raw)
	return s
}

func (rt *Runtime) hasCapability(name string) bool {
	switch name {
	case "":
		return true
	case "tools":
		return rt.capabilities.Tools != nil
	case "prompts":
		return rt.capabilities.Prompts != nil
	case "resources":
		return rt.capabilities.Resources != nil
	case "completions":
		return rt.capabilities.Completions != nil
	case "subscriptions":
		return rt.source != nil
	}
	return false
}

func (rt *Runtime) methodNotFound(method string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + method}).
		WithData(map[string]any{"method": method, "supported": rt.registry.versions})
}

func (rt *Runtime) unsupportedVersion(requested string) *jsonrpc.Error {
	detail := ""
	for _, d := range rt.registry.dialects {
		if d.Version() == requested && d.Era() == eraSession {
			// Listed as supported, but only through initialize.
			detail = "is served only after initialize"
		}
	}
	return unsupportedVersionError(requested, rt.registry.versions, detail)
}

// Wire shapes of 2026-07-28 results.
type (
	wire26Discover struct {
		ResultType        string                 `json:"resultType"`
		SupportedVersions []string               `json:"supportedVersions"`
		Capabilities      mcp.ServerCapabilities `json:"capabilities"`
		Instructions      string                 `json:"instructions,omitempty"`
		TTLMs             int64                  `json:"ttlMs"`
		CacheScope        string                 `json:"cacheScope"`
		Meta              json.RawMessage        `json:"_meta"`
	}
	wire26ListTools struct {
		ResultType string          `json:"resultType"`
		Tools      []mcp.Tool      `json:"tools"`
		NextCursor string          `json:"nextCursor,omitempty"`
		TTLMs      int64           `json:"ttlMs"`
		CacheScope string          `json:"cacheScope"`
		Meta       json.RawMessage `json:"_meta"`
	}
	wire26ListPrompts struct {
		ResultType string          `json:"resultType"`
		Prompts    []mcp.Prompt    `json:"prompts"`
		NextCursor string          `json:"nextCursor,omitempty"`
		TTLMs      int64           `json:"ttlMs"`
		CacheScope string          `json:"cacheScope"`
		Meta       json.RawMessage `json:"_meta"`
	}
	wire26ListResources struct {
		ResultType string          `json:"resultType"`
		Resources  []mcp.Resource  `json:"resources"`
		NextCursor string          `json:"nextCursor,omitempty"`
		TTLMs      int64           `json:"ttlMs"`
		CacheScope string          `json:"cacheScope"`
		Meta       json.RawMessage `json:"_meta"`
	}
	wire26ListTemplates struct {
		ResultType        string                 `json:"resultType"`
		ResourceTemplates []mcp.ResourceTemplate `json:"resourceTemplates"`
		NextCursor        string                 `json:"nextCursor,omitempty"`
		TTLMs             int64                  `json:"ttlMs"`
		CacheScope        string                 `json:"cacheScope"`
		Meta              json.RawMessage        `json:"_meta"`
	}
	wire26ReadResource struct {
		ResultType string                  `json:"resultType"`
		Contents   []*mcp.ResourceContents `json:"contents"`
		TTLMs      int64                   `json:"ttlMs"`
		CacheScope string                  `json:"cacheScope"`
		Meta       json.RawMessage         `json:"_meta"`
	}
	wire26GetPrompt struct {
		ResultType  string              `json:"resultType"`
		Description string              `json:"description,omitempty"`
		Messages    []mcp.PromptMessage `json:"messages"`
		Meta        json.RawMessage     `json:"_meta"`
	}
	wire26Complete struct {
		ResultType string          `json:"resultType"`
		Completion *mcp.Completion `json:"completion"`
		Meta       json.RawMessage `json:"_meta"`
	}
	wire26InputRequired struct {
		ResultType    string                      `json:"resultType"`
		InputRequests map[string]wireInputRequest `json:"inputRequests,omitempty"`
		RequestState  string                      `json:"requestState,omitempty"`
		Meta          json.RawMessage             `json:"_meta"`
	}
	wire26CallTool struct {
		ResultType        string          `json:"resultType"`
		Content           []mcp.Content   `json:"content"`
		StructuredContent any             `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		Meta              json.RawMessage `json:"_meta"`
	}
)

// wireInputRequest is an input request as the wire carries it.
type wireInputRequest struct {
	Method string           `json:"method"`
	Params mcp.InputRequest `json:"params"`
}

const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

func (d dialect20260728) ShapeResult(rt *Runtime, c *Call, result any) (any, error) {
	switch r := result.(type) {
	case *discoverResult:
		ttl, scope := rt.cacheHint(CacheDiscovery)
		return &wire26Discover{
			ResultType: resultComplete, SupportedVersions: r.versions, Capabilities: r.capabilities,
			Instructions: r.instructions, TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(nil),
		}, nil
	case *listToolsResult:
		ttl, scope := rt.cacheHint(CacheTools)
		tools := r.tools
		if tools == nil {
			tools = []mcp.Tool{}
		}
		return &wire26ListTools{
			ResultType: resultComplete, Tools: tools, NextCursor: r.nextCursor,
			TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(nil),
		}, nil
	case *listPromptsResult:
		ttl, scope := rt.cacheHint(CachePrompts)
		return &wire26ListPrompts{
			ResultType: resultComplete, Prompts: nonNil(r.prompts), NextCursor: r.nextCursor,
			TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(nil),
		}, nil
	case *listResourcesResult:
		ttl, scope := rt.cacheHint(CacheResources)
		return &wire26ListResources{
			ResultType: resultComplete, Resources: nonNil(r.resources), NextCursor: r.nextCursor,
			TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(nil),
		}, nil
	case *listTemplatesResult:
		ttl, scope := rt.cacheHint(CacheResources)
		return &wire26ListTemplates{
			ResultType: resultComplete, ResourceTemplates: nonNil(r.templates), NextCursor: r.nextCursor,
			TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(nil),
		}, nil
	case *mcp.ReadResourceResult:
		ttl, scope := rt.cacheHint(CacheResources)
		return &wire26ReadResource{
			ResultType: resultComplete, Contents: r.Contents,
			TTLMs: ttl, CacheScope: scope, Meta: rt.serverInfoMeta(r.Meta),
		}, nil
	case *mcp.GetPromptResult:
		return &wire26GetPrompt{
			ResultType: resultComplete, Description: r.Description, Messages: nonNil(r.Messages),
			Meta: rt.serverInfoMeta(r.Meta),
		}, nil
	case *completeResult:
		return &wire26Complete{ResultType: resultComplete, Completion: r.completion, Meta: rt.serverInfoMeta(nil)}, nil
	case *listenResult:
		return shapeListen20260728(rt, c), nil
	case *inputRequiredResult:
		w := &wire26InputRequired{ResultType: resultInputRequired, RequestState: r.state, Meta: rt.serverInfoMeta(nil)}
		if len(r.requests) > 0 {
			w.InputRequests = make(map[string]wireInputRequest, len(r.requests))
			for k, ir := range r.requests {
				w.InputRequests[k] = wireInputRequest{Method: ir.Method(), Params: ir}
			}
		}
		return w, nil
	case *extensionResult:
		return rt.shapeExtension20260728(r.body)
	case *mcp.CallToolResult:
		content := r.Content
		if content == nil {
			content = []mcp.Content{}
		}
		// Shaped into the call, which is per request: no allocation.
		c.shaped = wire26CallTool{
			ResultType: resultComplete, Content: content, StructuredContent: r.StructuredContent,
			IsError: r.IsError, Meta: rt.serverInfoMeta(r.Meta),
		}
		return &c.shaped, nil
	}
	return nil, fmt.Errorf("dispatch: no 2026-07-28 shape for %T", result)
}

// shapeExtension20260728 adds resultType (unless the extension chose
// one) and the server's identity to an extension's result object.
func (rt *Runtime) shapeExtension20260728(body []byte) (any, error) {
	var obj map[string]json.RawMessage
	if err := jsonwire.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"complete"`)
	}
	var user map[string]any
	if raw, ok := obj["_meta"]; ok {
		if err := jsonwire.Unmarshal(raw, &user); err != nil {
			return nil, fmt.Errorf("extension result _meta: %w", err)
		}
	}
	obj["_meta"] = rt.serverInfoMeta(user)
	return obj, nil
}

// nonNil returns s, or an empty slice for nil, so lists encode as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (dialect20260728) ShapeError(_ *Runtime, _ *Call, e *jsonrpc.Error) *jsonrpc.Error { return e }

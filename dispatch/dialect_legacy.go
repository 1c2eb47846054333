// The initialize-era dialects (2025-11-25, 2025-06-18): selection, admission
// and the session they keep.

package dispatch

import (
	"context"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// legacyDialect is an initialize-era revision (2025-11-25 or 2025-06-18):
// the client negotiates its version and capabilities once with
// initialize, and every later message is served under that negotiation,
// found through the transport's version claim (the stdio connection's
// session, or HTTP's MCP-Protocol-Version header). Both revisions share
// the method catalog; they differ only in wire shapes (see
// dialect_legacy_shape.go).
type legacyDialect struct{ version string }

func newLegacyDialect(version string) dialect { return legacyDialect{version: version} }

func (d legacyDialect) Version() string { return d.version }
func (legacyDialect) Era() era          { return eraSession }

// Detect claims a message only through the transport: an initialize-era
// request carries no version of its own. initialize itself is routed by
// the registry (forInitialize).
func (d legacyDialect) Detect(req *Request, _ string) match {
	if versionClaim(req) == d.version {
		return matchClaim
	}
	return matchNone
}

// Capabilities a legacy method needs beyond the component kinds of
// Runtime.hasCapability.
const (
	// capSessionLogging: logging/setLevel needs the logging capability
	// and a session to keep the level in.
	capSessionLogging = "logging+session"
	// capSessionSubscribe: resources/subscribe needs resources with
	// subscribe, a SessionSource to feed the updates, and a session to carry them.
	capSessionSubscribe = "subscribe+session"
)

// methodsLegacy maps each method the initialize-era revisions serve to
// its operation and the capability it needs: the shared table plus ping,
// logging/setLevel and resource subscriptions (initialize itself is
// admitted on its own, see admitInitialize).
var methodsLegacy = withBaseMethods(map[string]methodRoute{
	"ping":                  {opPing, ""},
	"logging/setLevel":      {opSetLevel, capSessionLogging},
	"resources/subscribe":   {opSubscribe, capSessionSubscribe},
	"resources/unsubscribe": {opUnsubscribe, capSessionSubscribe},
})

func (legacyDialect) hasMethod(method string) bool { _, ok := methodsLegacy[method]; return ok }

// serves reports whether the Runtime offers capability to a request with
// or without a session.
func (d legacyDialect) serves(rt *Runtime, session bool, capability string) bool {
	switch capability {
	case capSessionLogging:
		return rt.capabilities.Logging != nil && session
	case capSessionSubscribe:
		res := rt.capabilities.Resources
		return res != nil && res.Subscribe && rt.sessions != nil && session
	}
	return rt.hasCapability(capability)
}

func (d legacyDialect) Admit(rt *Runtime, req *Request) (*Call, *jsonrpc.Error) {
	msg := req.Message
	if msg.Method == "initialize" {
		return d.admitInitialize(rt, req)
	}
	sess := req.Session
	if v := sess.ProtocolVersion(); v != "" && v != d.version {
		return nil, invalidParams("Invalid params: MCP-Protocol-Version " + d.version + " does not match the version negotiated for this session, " + v)
	}
	pm := req.members()
	if mv := pm.protocolVersion(msg.Params); mv != "" && mv != d.version {
		return nil, invalidParams("Invalid params: _meta names protocol version " + mv + " but the request is served under " + d.version)
	}
	entry, known := methodsLegacy[msg.Method]
	if known && !d.serves(rt, sess != nil, entry.capability) {
		if sess == nil && d.serves(rt, true, entry.capability) {
			return nil, noSession(msg.Method)
		}
		known = false
	}
	ext := rt.extensionRoute(msg.Method, d.version)
	if !known && ext != nil {
		entry.op, known = opExtension, true
	}
	if !known {
		return nil, (&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + msg.Method}).
			WithData(map[string]any{"method": msg.Method})
	}
	meta, hasMeta := pm.meta.in(msg.Params)
	if hasMeta && (len(meta) == 0 || meta[0] != '{') {
		return nil, invalidParams("Invalid params: _meta must be an object")
	}
	var token jsonrpc.ID
	if hasMeta {
		raw, _ := jsonwire.Member(meta, mcp.MetaProgressToken)
		var jerr *jsonrpc.Error
		if token, jerr = parseProgressToken(raw); jerr != nil {
			return nil, jerr
		}
	} else {
		meta = nil
	}
	if mrtrMethods[msg.Method] {
		if pm.responses.end != 0 || pm.state.end != 0 {
			return nil, invalidParams("Invalid params: inputResponses and requestState are not part of protocol version " + d.version)
		}
	}
	op := entry.op
	if msg.Method == "tools/call" {
		op = legacyToolsCall
	}
	if mrtrMethods[msg.Method] {
		op = d.withClientRequests(op)
	}
	caps := d.knownCapabilities(sess.clientCapabilities())
	if ext != nil && entry.capability == "" {
		if jerr := admitExtension(ext, caps); jerr != nil {
			return nil, jerr
		}
	}
	return &Call{
		Info: RequestInfo{
			ID:                 msg.ID,
			Method:             msg.Method,
			ProtocolVersion:    d.version,
			ClientCapabilities: caps,
			ClientInfo:         sess.clientInfo(),
			LogLevel:           sess.currentLogLevel(),
			ProgressToken:      token,
			Meta:               meta,
			Principal:          req.Principal,
			Transport:          req.Transport,
		},
		Params:   msg.Params,
		dialect:  d,
		op:       op,
		Notifier: req.Notifier,
		Session:  sess,
		params:   pm.forCall(),
	}, nil
}

// knownCapabilities drops what the client declared that its revision
// does not have: 2025-06-18's elicitation is form mode only (no url).
func (d legacyDialect) knownCapabilities(caps mcp.ClientCapabilities) mcp.ClientCapabilities {
	if d.version == mcp.Version20250618 && caps.Elicitation != nil && caps.Elicitation.URL != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}}
	}
	return caps
}

// noSession answers a method the server offers only on a connection or
// an initialize-era session, for a request that has neither (stateless
// HTTP).
func noSession(method string) *jsonrpc.Error {
	why := method + " needs a connection or an initialize-era session to keep its state, and this request has neither"
	if method == "logging/setLevel" {
		why += "; a 2026-07-28 client sets the level in each request's _meta (" + mcp.MetaLogLevel + ")"
	}
	return (&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + why}).WithData(map[string]any{"method": method})
}

// legacyToolsCall refuses a tool the initialize-era revisions cannot
// carry with the error an unknown tool gets, and calls any other.
func legacyToolsCall(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	var raw []byte
	if c.params.indexes(c.Params) {
		raw = c.params.name.in(c.Params)
	} else {
		raw, _ = jsonwire.Member(c.Params, "name")
	}
	name, _ := jsonwire.Unquote(raw)
	if e, ok := rt.catalog.snapshot().tools[name]; ok && !legacyCarries(&e.tool) {
		return nil, unknownTool(name)
	}
	return opToolsCall(ctx, rt, c)
}

// legacyCarries reports whether an initialize-era client can be shown a
// tool: its schemas must be object-rooted, as those revisions require
// (the input schema always is; an output schema may be any 2020-12 schema
// on 2026-07-28).
func legacyCarries(t *mcp.Tool) bool {
	return objectRooted(t.InputSchema) && (len(t.OutputSchema) == 0 || objectRooted(t.OutputSchema))
}

func objectRooted(schema []byte) bool {
	typ, _ := jsonwire.Member(schema, "type")
	return string(typ) == `"object"`
}

// checkRuntime logs, once per Runtime, the tools initialize-era clients
// will not see.
func (d legacyDialect) checkRuntime(rt *Runtime) {
	var legacy []string
	for _, x := range rt.registry.dialects {
		if x.Era() == eraSession {
			legacy = append(legacy, x.Version())
		}
	}
	if len(legacy) == 0 || legacy[0] != d.version {
		return // the first initialize-era dialect speaks for all of them
	}
	for _, e := range rt.catalog.snapshot().toolList {
		if !legacyCarries(&e.tool) {
			rt.logger.Warn("snodo: tool has an output schema that is not object-rooted; initialize-era clients will not see it",
				"tool", e.tool.Name, "versions", strings.Join(legacy, ","))
		}
	}
}

// ReceiveNotification records notifications/initialized in the session.
func (d legacyDialect) ReceiveNotification(_ *Runtime, req *Request) {
	if req.Message.Method == "notifications/initialized" && req.Session.ProtocolVersion() == d.version {
		req.Session.markInitialized()
	}
}

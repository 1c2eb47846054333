// The operations only the initialize-era revisions have: the handshake,
// ping and logging/setLevel.

package dispatch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// The operations only the initialize-era revisions have: the handshake,
// ping and logging/setLevel. Everything else they serve with the core
// operations.

// initializeResult is the neutral result of initialize. It completes the
// handshake, which Execute records in the request's session.
type initializeResult struct {
	handshake    handshake
	capabilities mcp.ServerCapabilities
	instructions string
}

// handshake implements handshakeResult.
func (r *initializeResult) Handshake() handshake { return r.handshake }

// emptyResult is the neutral {} of ping and logging/setLevel.
type emptyResult struct{}

type initializeParams struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

var errAlreadyInitialized = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: this session is already initialized"}

// admitInitialize checks an initialize request: its params must be what
// the revision defines (protocolVersion a string, capabilities an
// object; clientInfo, when present, an object with name and version),
// and the session must not have negotiated already. The registry chose
// this dialect because it is the version the client asked for, or the
// preferred initialize-era version when that one is not enabled.
func (d legacyDialect) admitInitialize(rt *Runtime, req *Request) (*Call, *jsonrpc.Error) {
	msg := req.Message
	if req.Session.ProtocolVersion() != "" {
		return nil, errAlreadyInitialized
	}
	var p initializeParams
	if len(msg.Params) == 0 || jsonwire.Unmarshal(msg.Params, &p) != nil {
		return nil, invalidParams("Invalid params: initialize needs protocolVersion, capabilities and clientInfo")
	}
	if _, ok := jsonwire.Unquote(p.ProtocolVersion); len(p.ProtocolVersion) == 0 || !ok {
		return nil, invalidParams("Invalid params: protocolVersion must be a string")
	}
	caps, jerr := parseClientCapabilities(p.Capabilities)
	if jerr != nil {
		return nil, jerr
	}
	info, jerr := parseClientInfo(p.ClientInfo)
	if jerr != nil {
		return nil, jerr
	}
	sess := req.Session
	return &Call{
		Info: RequestInfo{
			ID:                 msg.ID,
			Method:             msg.Method,
			ProtocolVersion:    d.version,
			ClientCapabilities: caps,
			ClientInfo:         info,
			Principal:          req.Principal,
			Transport:          req.Transport,
		},
		Params:   msg.Params,
		dialect:  d,
		Notifier: req.Notifier,
		Session:  sess,
		op: func(context.Context, *Runtime, *Call) (any, error) {
			offer := d.serverCapabilities(rt, sess)
			if f := listChanges(offer); sess != nil && rt.sessions != nil && (!filterEmpty(f) || offer.Resources != nil && offer.Resources.Subscribe) {
				sess.attachSource(rt.sessions, f)
			}
			return &initializeResult{
				handshake:    handshake{ProtocolVersion: d.version, ClientCapabilities: caps, ClientInfo: info},
				capabilities: offer,
				instructions: rt.instructions,
			}, nil
		},
	}, nil
}

// serverCapabilities are the capabilities an initialize-era client is
// offered: those of the Runtime that the revision has and this
// connection can honour. Logging needs a session to keep the level in;
// listChanged and subscribe need a session to carry the notifications
// and a SessionSource to feed them; extensions are not part of these revisions.
func (d legacyDialect) serverCapabilities(rt *Runtime, s *Session) mcp.ServerCapabilities {
	c := rt.capabilities
	c.Extensions = nil
	if !d.serves(rt, s != nil, capSessionLogging) {
		c.Logging = nil
	}
	fed := rt.sessions != nil && s != nil
	if c.Tools != nil {
		c.Tools = &mcp.ListChangedCapability{ListChanged: c.Tools.ListChanged && fed}
	}
	if c.Prompts != nil {
		c.Prompts = &mcp.ListChangedCapability{ListChanged: c.Prompts.ListChanged && fed}
	}
	if c.Resources != nil {
		c.Resources = &mcp.ResourcesCapability{Subscribe: c.Resources.Subscribe && fed, ListChanged: c.Resources.ListChanged && fed}
	}
	return c
}

// listChanges is the session filter of the list changes a client was offered.
func listChanges(c mcp.ServerCapabilities) mcp.SubscriptionFilter {
	return mcp.SubscriptionFilter{
		ToolsListChanged:     c.Tools != nil && c.Tools.ListChanged,
		PromptsListChanged:   c.Prompts != nil && c.Prompts.ListChanged,
		ResourcesListChanged: c.Resources != nil && c.Resources.ListChanged,
	}
}

func opPing(context.Context, *Runtime, *Call) (any, error) { return emptyResult{}, nil }

type setLevelParams struct {
	Level json.RawMessage `json:"level"`
}

// opSetLevel keeps the level in the session: Logger(ctx) then sends the
// session's requests' records at or above it as notifications/message,
// through the same handler as 2026-07-28's per-request level.
func opSetLevel(_ context.Context, _ *Runtime, c *Call) (any, error) {
	var p setLevelParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, err
	}
	if len(p.Level) == 0 {
		return nil, invalidParams("Invalid params: logging/setLevel needs a level")
	}
	level, jerr := parseLogLevel(p.Level)
	if jerr != nil {
		return nil, jerr
	}
	c.Session.setLogLevel(level)
	return emptyResult{}, nil
}

type subscribeParams struct {
	URI *string `json:"uri"`
}

// subscribeURI reads and checks the uri of resources/subscribe and
// resources/unsubscribe.
func subscribeURI(c *Call) (string, error) {
	var p subscribeParams
	if err := decodeParams(c.Params, &p); err != nil {
		return "", err
	}
	if p.URI == nil {
		return "", invalidParams("Invalid params: " + c.Info.Method + " needs a uri")
	}
	if err := checkAbsoluteURI(*p.URI); err != nil {
		return "", invalidParams("Invalid params: uri is " + err.Error())
	}
	return *p.URI, nil
}

// opSubscribe adds a resource to the session's feed: the client
// then gets notifications/resources/updated for it. The Authorizer is
// asked as for a listen stream's resourceSubscriptions; a concealed
// resource gets the not-found error. The resource need not exist yet.
func opSubscribe(ctx context.Context, rt *Runtime, c *Call) (any, error) {
	uri, err := subscribeURI(c)
	if err != nil {
		return nil, err
	}
	if err := rt.authorizeUse(ctx, c, KindResource, uri, uri, func() *jsonrpc.Error { return resourceNotFound(uri) }); err != nil {
		return nil, err
	}
	if !c.Session.subscribe(uri) {
		return nil, invalidParams(fmt.Sprintf("Invalid params: a session may subscribe to at most %d resources", maxResourceSubscriptions))
	}
	return emptyResult{}, nil
}

// opUnsubscribe removes a resource from the session's feed.
func opUnsubscribe(_ context.Context, _ *Runtime, c *Call) (any, error) {
	uri, err := subscribeURI(c)
	if err != nil {
		return nil, err
	}
	c.Session.unsubscribe(uri)
	return emptyResult{}, nil
}

package dispatch

import (
	"context"
	"encoding/json"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// The operations only the initialize-era revisions have: the handshake,
// ping and logging/setLevel. Everything else they serve with the core
// operations.

// initializeResult is the neutral result of initialize. It completes the
// handshake, which Execute records in the request's session.
type initializeResult struct {
	handshake    Handshake
	capabilities ServerCapabilities
	instructions string
}

// Handshake implements HandshakeResult.
func (r *initializeResult) Handshake() Handshake { return r.handshake }

// emptyResult is the neutral {} of ping and logging/setLevel.
type emptyResult struct{}

type initializeParams struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

var errAlreadyInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: this session is already initialized")

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
	if len(msg.Params) == 0 || jsonrpc.Unmarshal(msg.Params, &p) != nil {
		return nil, invalidParams("Invalid params: initialize needs protocolVersion, capabilities and clientInfo")
	}
	if _, ok := jsonrpc.Unquote(p.ProtocolVersion); len(p.ProtocolVersion) == 0 || !ok {
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
		Dialect:  d,
		Notifier: req.Notifier,
		Session:  sess,
		Op: func(context.Context, *Runtime, *Call) (any, error) {
			return &initializeResult{
				handshake:    Handshake{ProtocolVersion: d.version, ClientCapabilities: caps, ClientInfo: info},
				capabilities: d.serverCapabilities(rt, sess),
				instructions: rt.instructions,
			}, nil
		},
	}, nil
}

// serverCapabilities are the capabilities an initialize-era client is
// offered: those of the Runtime that the revision has and this
// connection can honour. Logging needs a session to keep the level in;
// extensions are not part of these revisions.
func (d legacyDialect) serverCapabilities(rt *Runtime, s *Session) ServerCapabilities {
	c := rt.capabilities
	c.Extensions = nil
	if !d.serves(rt, s, capSessionLogging) {
		c.Logging = nil
	}
	return c
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

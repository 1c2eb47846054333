// Initialize-era input requests: a handler's InputRequired sent as real
// server-to-client requests.

package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// maxInputRounds bounds how many times a handler serving an
// initialize-era client may ask for input before it completes: after the
// last round's answers it must return a result or an error.
const maxInputRounds = 16

// withClientRequests serves the multi round-trip protocol for an
// initialize-era client, which has no inputRequests/requestState: when
// the handler returns an *InputRequired, each input request is sent to
// the client as a real server-to-client request on the stream of the
// request being served, the answers are collected into the call's Input
// (with the handler's State, unsealed), and the handler runs again, until
// it returns something else. One handler serves both eras.
func (d legacyDialect) withClientRequests(op operation) operation {
	return func(ctx context.Context, rt *Runtime, c *Call) (any, error) {
		for round := 1; ; round++ {
			res, err := op(ctx, rt, c)
			ir, ok := res.(*inputRequiredResult)
			if err != nil || !ok {
				return res, err
			}
			switch {
			case !canAskClient(c):
				return nil, d.noChannel(c, ir)
			case round > maxInputRounds:
				return nil, rt.internal(c, "input_required", fmt.Errorf("the handler asked for input more than %d times", maxInputRounds))
			}
			in, err := d.askClient(ctx, rt, c, ir)
			if err != nil {
				return nil, err
			}
			c.Input = in
		}
	}
}

// noChannel answers a handler's input requests that the request cannot
// carry as server-to-client requests: the error says what is missing (a
// session, or notifications/initialized) instead of blaming the client's
// capabilities. On 2025-11-25 a request that needs only URL elicitations
// gets -32042 listing them, so the client can open them and retry.
func (d legacyDialect) noChannel(c *Call, ir *inputRequiredResult) error {
	keys := slices.Sorted(maps.Keys(ir.requests))
	if d.version == mcp.Version20251125 {
		var urls []any
		for _, k := range keys {
			if e, ok := ir.requests[k].(*mcp.ElicitRequest); ok && e.Mode == "url" {
				p, err := d.clientRequestParams(e)
				if err != nil {
					return err
				}
				urls = append(urls, p)
			}
		}
		if len(urls) == len(keys) {
			return (&jsonrpc.Error{Code: mcp.CodeURLElicitationRequired, Message: "URL elicitation required: open each URL in data.elicitations, then retry the request"}).
				WithData(map[string]any{"elicitations": urls})
		}
	}
	methods := make([]string, 0, len(keys))
	for _, k := range keys {
		if m := ir.requests[k].Method(); !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
	}
	what := strings.Join(methods, " and ")
	var why string
	switch {
	case c.Session != nil && !c.Session.isInitialized():
		why = "the client has not sent notifications/initialized yet"
	case c.Info.Transport == TransportHTTP:
		why = "this server serves HTTP without sessions, which has no channel for server-to-client requests; its operator can turn initialize-era sessions on (streamablehttp.WithSessions)"
	default:
		why = "this request has no channel for server-to-client requests"
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The server cannot send " + what + " to the client: " + why}
}

// askClient sends the input requests one at a time, in key order, and
// returns the answers as the next round's Input.
func (d legacyDialect) askClient(ctx context.Context, rt *Runtime, c *Call, ir *inputRequiredResult) (*Input, error) {
	keys := slices.Sorted(maps.Keys(ir.requests))
	in := &Input{responses: make(map[string]json.RawMessage, len(keys)), state: ir.appState, hasState: ir.appState != nil}
	for _, k := range keys {
		r := ir.requests[k]
		params, err := d.clientRequestParams(r)
		if err != nil {
			return nil, rt.internal(c, "input request "+k, err)
		}
		answer, err := c.Session.request(ctx, c.Notifier, r.Method(), params)
		var ce *clientError
		switch {
		case err == nil:
		case errors.As(err, &ce):
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The client could not serve %s: %s", r.Method(), ce.Err.Message)}
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			return nil, rt.internal(c, "server-to-client request "+r.Method(), err)
		}
		in.responses[k] = answer
	}
	return in, nil
}

// clientRequestParams shapes an input request's params for the revision:
// a url-mode elicitation gets the elicitationId 2025-11-25 requires, and
// 2025-06-18, which has form mode only, no mode member.
func (d legacyDialect) clientRequestParams(r mcp.InputRequest) (any, error) {
	e, ok := r.(*mcp.ElicitRequest)
	if !ok {
		return r, nil
	}
	cp := *e
	switch {
	case d.version == mcp.Version20250618:
		cp.Mode = ""
		return &cp, nil
	case cp.Mode == "url":
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		return &urlElicitation{ElicitRequest: cp, ElicitationID: hex.EncodeToString(b[:])}, nil
	}
	return &cp, nil
}

// urlElicitation is a url-mode elicitation as 2025-11-25 sends it.
type urlElicitation struct {
	mcp.ElicitRequest
	ElicitationID string `json:"elicitationId"`
}

package client

// Answering the server: elicitation, sampling and roots, for requests and input-required results.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Multi round-trip requests (2026-07-28) and server-to-client requests
// (initialize era) ask the same questions: elicitation, sampling, roots.
// The application answers them through the handlers it registered.

// fulfil asks the handler for one input request and returns its result.
// It returns errNoHandler when none is registered for the method.
func (c *Client) fulfil(ctx context.Context, req mcp.InputRequest) (any, error) {
	switch p := req.(type) {
	case *mcp.ElicitRequest:
		if c.cfg.elicit == nil {
			return nil, errNoHandler
		}
		res, err := c.cfg.elicit(ctx, p)
		if err == nil && res == nil {
			err = errors.New("client: elicitation handler returned no result")
		}
		return res, err
	case *mcp.CreateMessageRequest:
		if c.cfg.sample == nil {
			return nil, errNoHandler
		}
		res, err := c.cfg.sample(ctx, p)
		if err == nil && res == nil {
			err = errors.New("client: sampling handler returned no result")
		}
		return res, err
	case *mcp.ListRootsRequest:
		if c.cfg.roots == nil {
			return nil, errNoHandler
		}
		roots, err := c.cfg.roots(ctx)
		if roots == nil {
			roots = []mcp.Root{}
		}
		return &mcp.ListRootsResult{Roots: roots}, err
	}
	return nil, errNoHandler
}

var errNoHandler = errors.New("client: no handler for this request")

// answer responds to a server-to-client request (initialize era).
func (c *Client) answer(ctx context.Context, conn clientconn.Conn, version string, msg *jsonrpc.Message) {
	var frame []byte
	if msg.Method == "ping" {
		frame = rpcwire.AppendResult(nil, msg.ID, []byte("{}"))
	} else {
		res, err := c.answerRequest(ctx, msg)
		var je *jsonrpc.Error
		switch {
		case errors.Is(err, errNoHandler):
			frame = rpcwire.EncodeError(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + msg.Method})
		case errors.As(err, &je):
			// A handler's own JSON-RPC error is the answer (a proxy
			// passes on what its client answered).
			frame = rpcwire.EncodeError(msg.ID, je)
		case err != nil:
			c.cfg.logger.Warn("client: handler for a server request failed", "method", msg.Method, "error", err)
			frame = rpcwire.EncodeError(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The client could not answer the request"})
		default:
			if frame, err = rpcwire.EncodeResult(msg.ID, res); err != nil {
				frame = rpcwire.EncodeError(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The client could not encode its answer"})
			}
		}
	}
	if err := conn.Send(ctx, &clientconn.Outbound{Frame: frame, ID: msg.ID, ProtocolVersion: version}); err != nil {
		c.cfg.logger.Warn("client: answering a server request", "method", msg.Method, "error", err)
	}
}

// answerRequest decodes a server-to-client request and asks the
// application's handler for the answer.
func (c *Client) answerRequest(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	switch msg.Method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
	default:
		return nil, errNoHandler
	}
	req, err := mcp.DecodeInputRequest(msg.Method, msg.Params)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return c.fulfil(ctx, req)
}

// inputMethods returns the methods of requests, sorted, each once.
func inputMethods(requests map[string]mcp.InputRequest) []string {
	var out []string
	for _, r := range requests {
		out = append(out, r.Method())
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// resultType returns a result's resultType ("" when absent, which means
// complete).
func resultType(raw []byte) string {
	v, ok := jsonwire.Member(raw, "resultType")
	if !ok {
		return ""
	}
	s, _ := jsonwire.Unquote(v)
	return s
}

// answerInputs asks the registered handlers for every input request of
// method's result, in key order. A request no handler answers makes it
// return an *InputRequiredError listing what is missing.
func (c *Client) answerInputs(ctx context.Context, method string, requests map[string]mcp.InputRequest, requestState string) (map[string]any, error) {
	responses := map[string]any{}
	var missing []string
	for _, key := range slices.Sorted(maps.Keys(requests)) {
		res, err := c.fulfil(ctx, requests[key])
		switch {
		case errors.Is(err, errNoHandler):
			missing = append(missing, requests[key].Method())
		case err != nil:
			return nil, fmt.Errorf("client: %s: answering %s: %w", method, requests[key].Method(), err)
		default:
			responses[key] = res
		}
	}
	if len(missing) > 0 {
		return nil, &InputRequiredError{Requests: requests, RequestState: requestState, Missing: slices.Compact(slices.Sorted(slices.Values(missing)))}
	}
	return responses, nil
}

// call runs a request to completion, answering input requests through the
// registered handlers for up to maxInputRounds retries. Results are served
// from and stored in the cache when the request is cacheable.
func (c *Client) call(ctx context.Context, r *request) (json.RawMessage, error) {
	if r.cacheable {
		if raw, ok := c.cacheGet(r); ok {
			return raw, nil
		}
	}
	renewed, resent := false, false
	for round := 0; ; round++ {
		gen := c.sessionGen.Load()
		connGen := c.connGen.Load()
		raw, err := c.roundTrip(ctx, r)
		if err != nil && c.cfg.reconnect != nil && ctx.Err() == nil && connectionLost(err) {
			if rerr := c.reconnect(ctx, connGen); rerr != nil {
				return nil, fmt.Errorf("%w (%w)", unsent(err), rerr)
			}
			var ns *notSent
			if errors.As(err, &ns) && !resent {
				resent = true
				round--
				continue
			}
		}
		err = unsent(err)
		if errors.Is(err, errSessionExpired) && !renewed {
			// The server forgot the session: start a new one and try
			// once more, as the protocol asks of clients.
			renewed = true
			if rerr := c.renewSession(ctx, gen); rerr != nil {
				return nil, fmt.Errorf("%w (renewing the session: %v)", err, rerr)
			}
			round--
			continue
		}
		if err != nil {
			return nil, err
		}
		switch resultType(raw) {
		case "", "complete":
			if r.cacheable && !r.inputRound {
				c.cachePut(r, raw)
			}
			return raw, nil
		case "input_required":
		case mcp.ResultTypeTask:
			if r.task {
				return raw, nil
			}
			return nil, fmt.Errorf("%w: %s returned a task, which only StartTool asks for", ErrUnexpectedResult, r.method)
		default:
			return nil, fmt.Errorf("%w: %s returned resultType %q", ErrUnexpectedResult, r.method, resultType(raw))
		}
		switch r.method {
		case "tools/call", "resources/read", "prompts/get":
		default:
			return nil, fmt.Errorf("%w: %s may not ask for input", ErrUnexpectedResult, r.method)
		}
		var ir mcp.InputRequiredResult
		if err := unmarshal(raw, &ir); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnexpectedResult, r.method, err)
		}
		if round >= c.cfg.maxInputRounds {
			return nil, fmt.Errorf("client: %s: %w (%d)", r.method, ErrTooManyInputRounds, c.cfg.maxInputRounds)
		}
		if r.caps != nil && len(ir.InputRequests) > 0 {
			// The request declared the capabilities of another party,
			// who answers: the handlers are not asked.
			return nil, &InputRequiredError{Requests: ir.InputRequests, RequestState: ir.RequestState, Missing: inputMethods(ir.InputRequests)}
		}
		responses, err := c.answerInputs(ctx, r.method, ir.InputRequests, ir.RequestState)
		if err != nil {
			return nil, err
		}
		if len(ir.InputRequests) == 0 {
			// Only requestState: the server asks for a plain retry (for
			// instance while shedding load).
			t := time.NewTimer(c.cfg.retryDelay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("client: %s: %w", r.method, context.Cause(ctx))
			}
		}
		next := *r
		next.params = maps.Clone(r.params)
		delete(next.params, "inputResponses")
		delete(next.params, "requestState")
		if len(responses) > 0 {
			next.params["inputResponses"] = responses
		}
		if ir.RequestState != "" {
			next.params["requestState"] = ir.RequestState
		}
		next.inputRound = true
		r = &next
	}
}

// unsent strips the notSent mark, which only call reads.
func unsent(err error) error {
	if ns, ok := err.(*notSent); ok {
		return ns.err
	}
	return err
}

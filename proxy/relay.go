// Relaying an initialize-era remote's input: the remote asks with
// server-to-client requests in the middle of a call, so the call is held
// open upstream while the proxy's own client answers, round by round.

package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/snodo-go/snodo/client"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// An initialize-era remote (2025-11-25, 2025-06-18) asks for input with
// an elicitation/create, sampling/createMessage or roots/list request of
// its own while its handler waits. The proxy's client answers it through
// the relay: the call it belongs to is found (the exchange it arrived on
// carries the call's context; over stdio, which relates no request to a
// call, it must be the only call of the backend in flight), the proxy's
// handler returns it to the downstream client as a dispatch.InputRequired
// whose sealed state names the held call, and the retry's answer goes
// back to the remote, which goes on. A 2026-07-28 downstream client sees
// an input_required result; an initialize-era one a request of its own
// (dispatch turns one into the other). A request the downstream client
// did not declare the capability for is answered -32601 at once, as a
// client without it would.

// heldCall is one call to an initialize-era remote: its run upstream, the
// remote's input requests, and the downstream round it serves.
type heldCall struct {
	key    string
	asks   chan *ask        // the remote's requests, from the client's handlers
	done   chan heldOutcome // the call's end; buffered
	ctx    context.Context  // the upstream call's; ends with it
	cancel context.CancelFunc

	mu      sync.Mutex
	round   context.Context // the downstream request being served; nil between rounds
	waiting *ask            // the request the downstream client is answering
	seq     int
	expiry  *time.Timer
}

// ask is one input request of the remote, waiting for its answer.
type ask struct {
	req   mcp.InputRequest
	key   string
	reply chan askReply // buffered
}

type askReply struct {
	raw json.RawMessage
	err error
}

type heldOutcome struct {
	res any
	err error
}

type heldKey struct{}

// initializeEra reports whether the remote asks for input with
// server-to-client requests.
func (b *Backend) initializeEra() bool {
	v := b.client.Server().ProtocolVersion
	return v == mcp.Version20251125 || v == mcp.Version20250618
}

// forward runs one call, read or get upstream. For a 2026-07-28 remote
// it is one request whose input comes back as an InputRequired; for an
// initialize-era remote the call is held (see above).
func (b *Backend) forward(ctx context.Context, what string, info *dispatch.RequestInfo, in *dispatch.Input,
	run func(ctx context.Context, opts []client.CallOption) (any, error)) (any, error) {
	if !b.initializeEra() {
		res, err := run(ctx, callOptions(ctx, info, in))
		if err != nil {
			return nil, b.failure(what, err)
		}
		return res, nil
	}
	if state, ok := in.State(); ok {
		hc := b.heldCall(string(state))
		if hc == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "The call this input answers is no longer held by backend " + b.name +
				" (it waited past Limits.InputWait, or the backend closed)"}

		}
		hc.answered(in)
		return b.await(ctx, what, info, hc)
	}
	hc, err := b.hold(ctx, info, run)
	if err != nil {
		return nil, err
	}
	return b.await(ctx, what, info, hc)
}

// hold starts the call upstream, detached from the downstream request's
// cancellation (the rounds come as several requests).
func (b *Backend) hold(ctx context.Context, info *dispatch.RequestInfo, run func(context.Context, []client.CallOption) (any, error)) (*heldCall, error) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	hc := &heldCall{key: hex.EncodeToString(id[:]), asks: make(chan *ask), done: make(chan heldOutcome, 1), cancel: cancel,
		round: ctx} // the first round's, before the run can report progress
	hc.ctx = context.WithValue(hctx, heldKey{}, hc)
	b.heldMu.Lock()
	if b.closed {
		b.heldMu.Unlock()
		cancel()
		return nil, b.failure("relaying", client.ErrClosed)
	}
	b.held[hc.key] = hc
	b.heldWG.Add(1)
	b.heldMu.Unlock()
	var opts []client.CallOption
	if info.ProgressToken.IsValid() {
		opts = append(opts, client.WithProgress(hc.progress))
	}
	go func() {
		defer b.heldWG.Done()
		res, err := run(hc.ctx, opts)
		hc.done <- heldOutcome{res: res, err: err}
	}()
	return hc, nil
}

// await serves one downstream round: it waits for the call's end or the
// remote's next input request, which it returns as an InputRequired.
func (b *Backend) await(ctx context.Context, what string, info *dispatch.RequestInfo, hc *heldCall) (any, error) {
	hc.begin(ctx)
	defer hc.end()
	for {
		select {
		case a := <-hc.asks:
			if missing := info.ClientCapabilities.Missing(a.req); missing != nil {
				a.reply <- askReply{err: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + a.req.Method() +
					" (the proxy's client does not serve it)"}}
				continue
			}
			if !b.waitOne() {
				a.reply <- askReply{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
					"The proxy holds its most calls waiting for input (Limits.MaxHeldCalls %d)", b.cfg.limits.MaxHeldCalls)}}
				continue
			}
			key := hc.ask(a, b.cfg.limits.InputWait, func() { b.drop(hc) })
			return nil, &dispatch.InputRequired{Requests: map[string]mcp.InputRequest{key: a.req}, State: []byte(hc.key)}
		case out := <-hc.done:
			b.drop(hc)
			if out.err != nil {
				return nil, b.failure(what, out.err)
			}
			return out.res, nil
		case <-ctx.Done():
			b.drop(hc)
			return nil, ctx.Err()
		}
	}
}

// waitOne takes a place among the calls waiting for the downstream
// client; false when MaxHeldCalls are waiting.
func (b *Backend) waitOne() bool {
	b.heldMu.Lock()
	defer b.heldMu.Unlock()
	if b.waitingCalls >= b.cfg.limits.MaxHeldCalls {
		return false
	}
	b.waitingCalls++
	return true
}

// heldCall returns the held call key names, taking it out of the waiting
// count.
func (b *Backend) heldCall(key string) *heldCall {
	b.heldMu.Lock()
	defer b.heldMu.Unlock()
	hc := b.held[key]
	if hc == nil {
		return nil
	}
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if hc.expiry == nil || !hc.expiry.Stop() {
		return nil // not waiting for an answer, or expiring now
	}
	hc.expiry = nil
	b.waitingCalls--
	return hc
}

// drop forgets a held call and ends its run upstream.
func (b *Backend) drop(hc *heldCall) {
	b.heldMu.Lock()
	if b.held[hc.key] == hc {
		delete(b.held, hc.key)
		hc.mu.Lock()
		if hc.expiry != nil {
			hc.expiry.Stop()
			hc.expiry = nil
			b.waitingCalls--
		}
		hc.mu.Unlock()
	}
	b.heldMu.Unlock()
	hc.cancel()
}

// closeHeld ends every held call and waits for their runs.
func (b *Backend) closeHeld() {
	b.heldMu.Lock()
	b.closed = true
	calls := make([]*heldCall, 0, len(b.held))
	for _, hc := range b.held {
		calls = append(calls, hc)
	}
	b.heldMu.Unlock()
	for _, hc := range calls {
		b.drop(hc)
	}
	b.heldWG.Wait()
}

// begin makes ctx the round that progress goes to.
func (hc *heldCall) begin(ctx context.Context) {
	hc.mu.Lock()
	hc.round = ctx
	hc.mu.Unlock()
}

// end closes the round: progress arriving until the next is dropped.
func (hc *heldCall) end() {
	hc.mu.Lock()
	hc.round = nil
	hc.mu.Unlock()
}

// progress passes the remote's progress to the round being served.
func (hc *heldCall) progress(p mcp.Progress) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if hc.round != nil {
		_ = dispatch.ReportProgress(hc.round, p)
	}
}

// ask records a as the request the downstream client answers next,
// gives the client wait to retry before expire runs, and returns the
// request's key.
func (hc *heldCall) ask(a *ask, wait time.Duration, expire func()) string {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	hc.seq++
	a.key = fmt.Sprintf("input%d", hc.seq)
	hc.waiting = a
	hc.expiry = time.AfterFunc(wait, expire)
	return a.key
}

// answered passes the retry's answer to the request waiting for it.
func (hc *heldCall) answered(in *dispatch.Input) {
	hc.mu.Lock()
	a := hc.waiting
	hc.waiting = nil
	hc.mu.Unlock()
	if a == nil {
		return
	}
	if raw, ok := in.Raw(a.key); ok {
		a.reply <- askReply{raw: raw}
		return
	}
	a.reply <- askReply{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The proxy's client did not answer " + a.req.Method()}}
}

// relay is how the backend's client answers the remote's input
// requests: it finds the held call the request belongs to and waits for
// the downstream client's answer.
func (b *Backend) relay(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	hc, _ := ctx.Value(heldKey{}).(*heldCall)
	if hc == nil {
		hc = b.soleHeld()
	}
	if hc == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The proxy cannot tell which of its calls " + req.Method() +
			" belongs to, so it has no client to ask"}

	}
	a := &ask{req: req, reply: make(chan askReply, 1)}
	select {
	case hc.asks <- a:
	case <-hc.ctx.Done():
		return nil, hc.ctx.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-a.reply:
		return r.raw, r.err
	case <-hc.ctx.Done():
		return nil, hc.ctx.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// soleHeld returns the backend's only call in flight, or nil.
func (b *Backend) soleHeld() *heldCall {
	b.heldMu.Lock()
	defer b.heldMu.Unlock()
	if len(b.held) != 1 {
		return nil
	}
	for _, hc := range b.held {
		return hc
	}
	return nil
}

// relayOptions are the client options that answer the remote's input
// requests through the relay, declaring every input capability.
func (b *Backend) relayOptions() []client.Option {
	return []client.Option{
		client.WithElicitation(func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			var r mcp.ElicitResult
			return &r, b.relayInto(ctx, req, &r)
		}, mcp.ElicitModeForm, mcp.ElicitModeURL),
		client.WithSampling(func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			var r mcp.CreateMessageResult
			return &r, b.relayInto(ctx, req, &r)
		}),
		client.WithRoots(func(ctx context.Context) ([]mcp.Root, error) {
			var r mcp.ListRootsResult
			if err := b.relayInto(ctx, &mcp.ListRootsRequest{}, &r); err != nil {
				return nil, err
			}
			return r.Roots, nil
		}),
	}
}

// relayInto relays req and decodes the answer into v.
func (b *Backend) relayInto(ctx context.Context, req mcp.InputRequest, v any) error {
	raw, err := b.relay(ctx, req)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The proxy's client answered " + req.Method() + " with what it cannot read"}
	}
	return nil
}

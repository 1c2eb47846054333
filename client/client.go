package client

// The Client: connecting, its lifetime, and what it learned of the server.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snodo-go/snodo/internal/clientconn"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"

	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// Client is a connection to one MCP server, over any Transport, in the
// newest protocol revision both sides speak. Its methods are safe for
// concurrent use.
type Client struct {
	cfg       config
	transport Transport
	nextID    atomic.Int64

	// bg ends when the Client closes; background work (answering server
	// requests, listen pumps) runs under it.
	bg     context.Context
	stopBg context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	conn    clientconn.Conn
	version string
	server  ServerInfo
	closed  bool

	cache       *Cache
	cacheServer string

	toolsMu sync.Mutex
	tools   map[string][]paramHeader // x-mcp-header annotations by tool name

	subsMu sync.Mutex
	subs   map[*Subscription]struct{} // initialize-era listeners

	// renewMu serializes renewing an expired HTTP session; sessionGen
	// counts renewals.
	renewMu    sync.Mutex
	sessionGen atomic.Int64

	// answering bounds the server requests answered at once.
	answering chan struct{}

	// reconnMu serializes reconnections; connGen counts them, and
	// retrying tells fail that a reconnection, not the Client, failed.
	reconnMu   sync.Mutex
	connGen    atomic.Int64
	reconnects atomic.Int64
	retrying   bool // guarded by mu
}

// maxAnswering is how many server-to-client requests are answered at
// once; more are refused with -32603 rather than queued without bound.
const maxAnswering = 16

var clientSeq atomic.Int64

// New connects to the server over t and negotiates the protocol revision:
// it probes server/discover and uses the newest revision both sides
// speak, and otherwise falls back to initialize with the newest
// initialize-era revision it offers. ctx bounds the connection and the
// negotiation only.
func New(ctx context.Context, t Transport, opts ...Option) (*Client, error) {
	if t == nil {
		return nil, errors.New("client: nil transport")
	}
	cfg := config{
		info:           mcp.Implementation{Name: "snodo-go", Version: "0"},
		versions:       mcp.Versions(),
		requestTimeout: defaultRequestTimeout,
		probeTimeout:   defaultProbeTimeout,
		maxPages:       defaultMaxPages,
		maxInputRounds: defaultMaxInputRounds,
		retryDelay:     defaultRetryDelay,
		listenBuffer:   defaultListenBuffer,
		logger:         slog.Default(),
		now:            time.Now,
	}
	for _, opt := range opts {
		if err := opt.applyClient(&cfg); err != nil {
			return nil, err
		}
	}
	c := &Client{cfg: cfg, transport: t, tools: map[string][]paramHeader{}, subs: map[*Subscription]struct{}{},
		answering: make(chan struct{}, maxAnswering)}
	c.bg, c.stopBg = context.WithCancel(context.Background())
	if !cfg.cacheOff {
		c.cache = cfg.cache
		if c.cache == nil {
			c.cache = &Cache{}
		}
		c.cache.now = cfg.now
	}
	if err := c.connect(ctx); err != nil {
		c.stopBg()
		return nil, err
	}
	return c, nil
}

// Close ends the connection: open subscriptions end, an HTTP session is
// deleted, a spawned server is stopped. It returns once everything the
// Client started has ended.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	conn := c.conn
	c.mu.Unlock()
	c.subsMu.Lock()
	subs := slices.Collect(maps.Keys(c.subs))
	c.subsMu.Unlock()
	for _, s := range subs {
		s.Close()
	}
	c.stopBg()
	var err error
	if conn != nil {
		err = conn.Close()
	}
	c.wg.Wait()
	return err
}

// negotiated returns the negotiated revision.
func (c *Client) negotiated() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Server returns what the client learned about the server when it
// connected.
func (c *Client) Server() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.server
	s.SupportedVersions = slices.Clone(s.SupportedVersions)
	return s
}

func (c *Client) state() (clientconn.Conn, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.conn == nil {
		return nil, "", ErrClosed
	}
	return c.conn, c.version, nil
}

func (c *Client) peer() clientconn.Peer {
	return clientconn.Peer{Inbound: c.inbound, Trace: c.cfg.trace}
}

// request is one request as the client builds it.
type request struct {
	method string
	params map[string]any
	// name is the raw value mirrored in Mcp-Name.
	name         string
	paramHeaders map[string]string
	progress     func(mcp.Progress)
	// version overrides the negotiated revision (the probe; initialize
	// sends none).
	version    string
	noVersion  bool
	noTimeout  bool
	stream     bool
	cacheArg   string // resources/read uri or list cursor
	cacheable  bool
	inputRound bool
	knownTool  bool
	extraMeta  map[string]any
	// task declares the tasks extension on this request (2026-07-28),
	// so that a tools/call may answer with a task.
	task bool
	// caps, when set, are the capabilities declared on this request in
	// place of those the handlers declare (2026-07-28).
	caps *mcp.ClientCapabilities
	// logLevel and onLog route this exchange's log messages.
	logLevel string
	onLog    func(mcp.LogMessage)
}

var progressSeq atomic.Int64

// capabilities returns the client capabilities the handlers declare.
func (c *Client) capabilities() map[string]any {
	caps := map[string]any{}
	if c.cfg.elicit != nil {
		e := map[string]any{}
		if c.cfg.elicitForm {
			e["form"] = map[string]any{}
		}
		if c.cfg.elicitURL {
			e["url"] = map[string]any{}
		}
		caps["elicitation"] = e
	}
	if c.cfg.sample != nil {
		caps["sampling"] = map[string]any{}
	}
	if c.cfg.roots != nil {
		caps["roots"] = map[string]any{}
	}
	return caps
}

// pending is a request on the wire.
type pending struct {
	ex      clientconn.Exchange
	id      jsonrpc.ID
	token   jsonrpc.ID
	conn    clientconn.Conn
	version string
}

// start encodes r (adding _meta as its revision requires) and sends it.
func (c *Client) start(ctx context.Context, r *request) (*pending, error) {
	conn, version, err := c.state()
	if err != nil {
		return nil, err
	}
	if r.version != "" {
		version = r.version
	}
	if r.noVersion {
		version = ""
	}
	id := jsonrpc.IntID(c.nextID.Add(1))
	params := maps.Clone(r.params)
	if params == nil {
		params = map[string]any{}
	}
	var token jsonrpc.ID
	meta := maps.Clone(r.extraMeta)
	if meta == nil {
		meta = map[string]any{}
	}
	if r.progress != nil {
		token = jsonrpc.StringID(fmt.Sprintf("p%d", progressSeq.Add(1)))
		meta["progressToken"] = token
	}
	isStateless := version != "" && stateless(version)
	if isStateless {
		meta["io.modelcontextprotocol/protocolVersion"] = version
		caps := c.capabilities()
		if r.task {
			caps["extensions"] = map[string]any{mcp.ExtensionTasks: map[string]any{}}
		}
		meta["io.modelcontextprotocol/clientCapabilities"] = caps
		if r.caps != nil {
			meta["io.modelcontextprotocol/clientCapabilities"] = r.caps
		}
		meta["io.modelcontextprotocol/clientInfo"] = c.cfg.info
		if c.cfg.logLevel != "" {
			meta["io.modelcontextprotocol/logLevel"] = c.cfg.logLevel
		}
		if r.logLevel != "" {
			meta["io.modelcontextprotocol/logLevel"] = r.logLevel
		}
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	frame, err := rpcwire.EncodeRequest(id, r.method, params)
	if err != nil {
		return nil, fmt.Errorf("client: encoding %s: %w", r.method, err)
	}
	out := &clientconn.Outbound{
		Frame: frame, ID: id, Method: r.method, ProtocolVersion: version, Stateless: isStateless,
		ProgressToken: token, Stream: r.stream,
	}
	if isStateless {
		if r.name != "" {
			out.Name = headerValue(r.name)
		}
		out.ParamHeaders = r.paramHeaders
	}
	ex, err := conn.Call(ctx, out)
	if err != nil {
		return nil, c.callError(ctx, r.method, err)
	}
	return &pending{ex: ex, id: id, token: token, conn: conn, version: version}, nil
}

// roundTrip sends one request and returns its raw result. Notifications
// and server requests that arrive for it are handled on the way.
func (c *Client) roundTrip(ctx context.Context, r *request) (json.RawMessage, error) {
	if !r.noTimeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.requestTimeout)
		defer cancel()
	}
	p, err := c.start(ctx, r)
	if err != nil {
		return nil, &notSent{err}
	}
	answered := false
	defer func() {
		if answered {
			p.ex.Close(nil)
			return
		}
		p.ex.Close(cancelFrame(p.id, ctx))
	}()
	for {
		msg, err := p.ex.Next(ctx)
		if err != nil {
			return nil, c.callError(ctx, r.method, err)
		}
		switch msg.Kind {
		case jsonrpc.KindResponse:
			answered = true
			if msg.Error != nil {
				return nil, decodeRPCError(msg.Error)
			}
			return json.RawMessage(msg.Result), nil
		case jsonrpc.KindNotification:
			if msg.Method == "notifications/message" && r.onLog != nil {
				var m mcp.LogMessage
				if unmarshal(msg.Params, &m) == nil {
					r.onLog(m)
				}
				continue
			}
			c.onNotification(msg, p.token, r.progress)
		case jsonrpc.KindRequest:
			c.answer(ctx, p.conn, p.version, msg)
		}
	}
}

// callError words a failed exchange: the context's error when it ended
// the request, the transport's error otherwise.
func (c *Client) callError(ctx context.Context, method string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("client: %s: %w", method, context.Cause(ctx))
	}
	return fmt.Errorf("client: %s: %w", method, err)
}

// cancelFrame encodes the notifications/cancelled for an abandoned
// request.
func cancelFrame(id jsonrpc.ID, ctx context.Context) []byte {
	reason := "cancelled by the client"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = "request timed out"
	}
	f, _ := rpcwire.EncodeNotification("notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
	return f
}

// decodeRPCError turns a raw error member into a *jsonrpc.Error.
func decodeRPCError(raw []byte) error {
	var e jsonrpc.Error
	if err := jsonwire.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("%w: unreadable error object: %v", ErrUnexpectedResult, err)
	}
	return &e
}

// onNotification handles a notification that arrived within an exchange.
func (c *Client) onNotification(msg *jsonrpc.Message, token jsonrpc.ID, progress func(mcp.Progress)) {
	if msg.Method == "notifications/progress" {
		if progress == nil || !token.IsValid() {
			return
		}
		raw, _ := jsonwire.Member(msg.Params, "progressToken")
		if got, err := rpcwire.ParseID(raw); err != nil || got != token {
			return
		}
		var p mcp.Progress
		if err := unmarshal(msg.Params, &p); err == nil {
			progress(p)
		}
		return
	}
	c.inbound(msg)
}

// inbound handles messages outside any exchange. It runs on a transport's
// reading goroutine, so anything that may block runs elsewhere.
func (c *Client) inbound(msg *jsonrpc.Message) {
	switch msg.Kind {
	case jsonrpc.KindRequest:
		conn, version, err := c.state()
		if err != nil {
			return
		}
		select {
		case c.answering <- struct{}{}:
		default:
			frame := rpcwire.EncodeError(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The client is answering too many requests"})
			ctx, cancel := context.WithTimeout(c.bg, c.cfg.requestTimeout)
			defer cancel()
			_ = conn.Send(ctx, &clientconn.Outbound{Frame: frame, ID: msg.ID, ProtocolVersion: version})
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer func() { <-c.answering }()
			ctx, cancel := context.WithTimeout(c.bg, c.cfg.requestTimeout)
			defer cancel()
			c.answer(ctx, conn, version, msg)
		}()
	case jsonrpc.KindNotification:
		switch msg.Method {
		case "notifications/message":
			if c.cfg.onLog != nil {
				var m mcp.LogMessage
				if unmarshal(msg.Params, &m) == nil {
					c.cfg.onLog(m)
				}
			}
		case "notifications/progress", "notifications/cancelled":
		default:
			ev := eventFrom(msg)
			c.invalidate(ev)
			c.publish(ev)
		}
	}
}

// unmarshal decodes a raw value with the shared configuration.
func unmarshal(raw []byte, v any) error {
	if len(raw) == 0 {
		return errors.New("client: empty value")
	}
	return jsonwire.Unmarshal(raw, v)
}

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"sync/atomic"
	"testing"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// mcpGo drives github.com/mark3labs/mcp-go's client.
type mcpGo struct {
	c          *mcpclient.Client
	version    string
	server     string
	ev         *events
	fr         *frames
	cmd        *exec.Cmd
	stderr     *testfixture.Buffer
	token      atomic.Int64
	stopListen func() // the 2026-07-28 subscriptions/listen stream, once opened
}

// mcpGoHandlers answer the server's input requests.
type mcpGoHandlers struct{}

func (mcpGoHandlers) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	schema, _ := json.Marshal(req.Params.RequestedSchema)
	action, content := elicitAnswer(req.Params.Mode, schema)
	res := &mcp.ElicitationResult{}
	res.Action = mcp.ElicitationResponseAction(action)
	if content != nil {
		res.Content = content
	}
	return res, nil
}

func (mcpGoHandlers) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res := &mcp.CreateMessageResult{Model: "interop-model"}
	res.Role = mcp.RoleAssistant
	res.Content = mcp.NewTextContent(samplingAnswer)
	return res, nil
}

func (mcpGoHandlers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: rootURI, Name: "project"}}}, nil
}

// connectMCPGo connects mcp-go's client to target. Pinned to an
// initialize-era revision over HTTP it listens continuously (a GET
// stream), the mode that client offers for server notifications there.
func connectMCPGo(t *testing.T, target serverTarget, version string) session {
	t.Helper()
	s := &mcpGo{ev: newEvents(), fr: &frames{}}
	var tr transport.Interface
	if target.command != nil {
		s.cmd = target.command()
		s.stderr = &testfixture.Buffer{}
		s.cmd.Stderr = s.stderr
		stdin, err := s.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := s.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tr = transport.NewIO(&tapReader{r: stdout, f: s.fr}, &tapWriter{w: stdin, f: s.fr}, nil)
	} else {
		hc := &http.Client{Transport: &tapTransport{next: target.roundTripper(t), f: s.fr}}
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc)}
		if version != "" {
			opts = append(opts, transport.WithContinuousListening())
		}
		h, err := transport.NewStreamableHTTP(target.url, opts...)
		if err != nil {
			t.Fatal(err)
		}
		tr = h
	}
	copts := []mcpclient.ClientOption{
		mcpclient.WithElicitationHandler(mcpGoHandlers{}),
		mcpclient.WithSamplingHandler(mcpGoHandlers{}),
		mcpclient.WithRootsHandler(mcpGoHandlers{}),
		mcpclient.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}),
	}
	if version != "" {
		copts = append(copts, mcpclient.WithProtocolVersion(version))
	}
	s.c = mcpclient.NewClient(tr, copts...)
	s.c.OnNotification(s.notified)
	// Start's context is the transport's lifetime (mcp-go's stdio
	// transport serves the server's requests under it).
	if err := s.c.Start(context.Background()); err != nil {
		_ = s.Close()
		t.Fatalf("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "interop-mcp-go", Version: "1.2.1"}
	res, err := s.c.Initialize(ctx, req)
	if err != nil {
		_ = s.Close()
		t.Fatalf("initialize: %v", err)
	}
	s.version, s.server = res.ProtocolVersion, res.ServerInfo.Name
	// An application hears list changes on a 2026-07-28 connection by
	// opening a listen stream; mcp-go opens none by itself.
	if err := s.relisten(); err != nil {
		_ = s.Close()
		t.Fatalf("listen: %v", err)
	}
	return s
}

func (s *mcpGo) notified(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	num := func(k string) float64 { v, _ := f[k].(float64); return v }
	str := func(k string) string { v, _ := f[k].(string); return v }
	ev := event{Method: n.Method}
	switch n.Method {
	case "notifications/progress":
		ev.Progress, ev.Total = num("progress"), num("total")
	case "notifications/message":
		ev.Level, ev.Data = str("level"), fmt.Sprint(f["data"])
	case "notifications/resources/updated":
		ev.URI = str("uri")
	}
	s.ev.add(ev)
}

func (s *mcpGo) Negotiated() (string, string) { return s.version, s.server }

func (s *mcpGo) Ping(ctx context.Context) error { return mcpGoErr(s.c.Ping(ctx)) }

func (s *mcpGo) ListTools(ctx context.Context, cursor string) (page, error) {
	req := mcp.ListToolsRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := s.c.ListToolsByPage(ctx, req)
	if err != nil {
		return page{}, mcpGoErr(err)
	}
	p := page{Next: string(res.NextCursor)}
	for _, tl := range res.Tools {
		p.Names = append(p.Names, tl.Name)
	}
	return p, nil
}

func (s *mcpGo) AllTools(ctx context.Context) ([]string, error) {
	var names []string
	for tl, err := range s.c.IterTools(ctx, mcp.ListToolsRequest{}) {
		if err != nil {
			return nil, mcpGoErr(err)
		}
		names = append(names, tl.Name)
	}
	return names, nil
}

func (s *mcpGo) CallTool(ctx context.Context, name string, args map[string]any, progress bool) (*toolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != nil {
		req.Params.Arguments = args
	}
	if progress {
		req.Params.Meta = &mcp.Meta{ProgressToken: fmt.Sprintf("p%d", s.token.Add(1))}
	}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return nil, mcpGoErr(err)
	}
	return normalizeResult(res)
}

func (s *mcpGo) ListResources(ctx context.Context, cursor string) (page, error) {
	req := mcp.ListResourcesRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := s.c.ListResourcesByPage(ctx, req)
	if err != nil {
		return page{}, mcpGoErr(err)
	}
	p := page{Next: string(res.NextCursor)}
	for _, r := range res.Resources {
		p.Names = append(p.Names, r.URI)
	}
	return p, nil
}

func (s *mcpGo) ListTemplates(ctx context.Context, cursor string) (page, error) {
	req := mcp.ListResourceTemplatesRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := s.c.ListResourceTemplatesByPage(ctx, req)
	if err != nil {
		return page{}, mcpGoErr(err)
	}
	p := page{Next: string(res.NextCursor)}
	for _, r := range res.ResourceTemplates {
		raw, _ := json.Marshal(r.URITemplate)
		var tmpl string
		_ = json.Unmarshal(raw, &tmpl)
		p.Names = append(p.Names, tmpl)
	}
	return p, nil
}

func (s *mcpGo) ReadResource(ctx context.Context, uri string) ([]contents, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := s.c.ReadResource(ctx, req)
	if err != nil {
		return nil, mcpGoErr(err)
	}
	return normalizeContents(res.Contents)
}

func (s *mcpGo) ListPrompts(ctx context.Context, cursor string) (page, error) {
	req := mcp.ListPromptsRequest{}
	req.Params.Cursor = mcp.Cursor(cursor)
	res, err := s.c.ListPromptsByPage(ctx, req)
	if err != nil {
		return page{}, mcpGoErr(err)
	}
	p := page{Next: string(res.NextCursor)}
	for _, pr := range res.Prompts {
		p.Names = append(p.Names, pr.Name)
	}
	return p, nil
}

func (s *mcpGo) GetPrompt(ctx context.Context, name string, args map[string]string) ([]block, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.GetPrompt(ctx, req)
	if err != nil {
		return nil, mcpGoErr(err)
	}
	var out []block
	for _, m := range res.Messages {
		b, err := normalizeBlock(m.Content)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (s *mcpGo) Complete(ctx context.Context, prompt, arg, value string) ([]string, error) {
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: prompt}
	req.Params.Argument.Name = arg
	req.Params.Argument.Value = value
	res, err := s.c.Complete(ctx, req)
	if err != nil {
		return nil, mcpGoErr(err)
	}
	return res.Completion.Values, nil
}

func (s *mcpGo) SetLogLevel(ctx context.Context, level string) error {
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevel(level)
	return mcpGoErr(s.c.SetLevel(ctx, req))
}

// Subscribe: on a 2026-07-28 connection mcp-go's Subscribe only records
// the URI for the next Listen (client/subscriptions.go), so the driver
// opens the listen stream then, as an application using it must.
func (s *mcpGo) Subscribe(ctx context.Context, uri string) error {
	req := mcp.SubscribeRequest{}
	req.Params.URI = uri
	if err := s.c.Subscribe(ctx, req); err != nil {
		return mcpGoErr(err)
	}
	return s.relisten()
}

func (s *mcpGo) Unsubscribe(ctx context.Context, uri string) error {
	req := mcp.UnsubscribeRequest{}
	req.Params.URI = uri
	if err := s.c.Unsubscribe(ctx, req); err != nil {
		return mcpGoErr(err)
	}
	return s.relisten()
}

// relisten (re)opens the 2026-07-28 listen stream with the tool list
// changes and the resources subscribed so far.
func (s *mcpGo) relisten() error {
	if tools := s.c.GetServerCapabilities().Tools; s.version != v20260728 || tools == nil || !tools.ListChanged {
		return nil
	}
	if s.stopListen != nil {
		s.stopListen()
		s.stopListen = nil
	}
	filter := s.c.PendingSubscriptionFilter()
	filter.ToolsListChanged = true
	acked := method("notifications/subscriptions/acknowledged")
	before := s.ev.count(acked)
	stop, err := s.c.ListenAsync(context.Background(), filter, nil)
	if err != nil {
		return err
	}
	s.stopListen = stop
	// ListenAsync returns before the stream is open; events are
	// delivered from the acknowledgement on.
	return s.ev.wait(callTimeout, before+1, acked)
}

func (s *mcpGo) Events() *events { return s.ev }
func (s *mcpGo) Frames() *frames { return s.fr }

func (s *mcpGo) Close() error {
	if s.stopListen != nil {
		s.stopListen()
		s.stopListen = nil
	}
	err := s.c.Close()
	if s.cmd != nil {
		err = errors.Join(err, waitProcess(s.cmd, s.stderr))
	}
	return err
}

// mcpGoErr recovers the JSON-RPC code from mcp-go's errors, which map
// each code to a sentinel or a typed error (mcp/errors.go AsError).
func mcpGoErr(err error) error {
	if err == nil {
		return nil
	}
	codes := []struct {
		target error
		code   int64
	}{
		{mcp.ErrParseError, -32700}, {mcp.ErrInvalidRequest, -32600}, {mcp.ErrMethodNotFound, -32601},
		{mcp.ErrInvalidParams, -32602}, {mcp.ErrInternalError, -32603}, {mcp.ErrResourceNotFound, -32002},
	}
	for _, c := range codes {
		if errors.Is(err, c.target) {
			return fmt.Errorf("%v: %w", err, &rpcError{Code: c.code, Message: err.Error()})
		}
	}
	var missing mcp.MissingRequiredClientCapabilityError
	if errors.As(err, &missing) {
		return fmt.Errorf("%v: %w", err, &rpcError{Code: -32021, Message: err.Error()})
	}
	var url mcp.URLElicitationRequiredError
	if errors.As(err, &url) {
		return fmt.Errorf("%v: %w", err, &rpcError{Code: -32042, Message: err.Error()})
	}
	var mismatch mcp.HeaderMismatchError
	if errors.As(err, &mismatch) {
		return fmt.Errorf("%v: %w", err, &rpcError{Code: -32020, Message: err.Error()})
	}
	return err
}

func TestMCPGo(t *testing.T) {
	t.Parallel()
	runMatrix(t, clientSpec{name: "mcp-go", connect: connectMCPGo, defaultVersion: v20260728, modes: goModes})
}

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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snodo-go/snodo/internal/testfixture"
)

// goSDK drives the official Go SDK's client (github.com/modelcontextprotocol/go-sdk).
type goSDK struct {
	cs     *mcp.ClientSession
	ev     *events
	fr     *frames
	cmd    *exec.Cmd // the stdio lane's fixture process
	stderr *testfixture.Buffer
	token  atomic.Int64
}

// connectGoSDK connects the Go SDK's client to target, pinned to version
// (or in its default mode when version is "").
func connectGoSDK(t *testing.T, target serverTarget, version string) session {
	t.Helper()
	s := &goSDK{ev: newEvents(), fr: &frames{}}
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, _ := json.Marshal(req.Params.RequestedSchema)
			action, content := elicitAnswer(req.Params.Mode, schema)
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "interop-model", Content: &mcp.TextContent{Text: samplingAnswer}}, nil
		},
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.ev.add(event{Method: "notifications/progress", Progress: req.Params.Progress, Total: req.Params.Total})
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s.ev.add(event{Method: "notifications/message", Level: string(req.Params.Level), Data: fmt.Sprint(req.Params.Data)})
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.ev.add(event{Method: "notifications/tools/list_changed"})
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			s.ev.add(event{Method: "notifications/prompts/list_changed"})
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			s.ev.add(event{Method: "notifications/resources/updated", URI: req.Params.URI})
		},
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1.8.0"}, opts)
	c.AddRoots(&mcp.Root{URI: rootURI, Name: "project"})
	var tr mcp.Transport
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
		tr = &mcp.IOTransport{Reader: &tapReader{r: stdout, f: s.fr}, Writer: &tapWriter{w: stdin, f: s.fr}}
	} else {
		hc := &http.Client{Transport: &tapTransport{next: target.roundTripper(t), f: s.fr}}
		tr = &mcp.StreamableClientTransport{Endpoint: target.url, HTTPClient: hc}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		s.reap()
		t.Fatalf("connect: %v", err)
	}
	s.cs = cs
	return s
}

// reap waits for the stdio lane's fixture after its input closed.
func (s *goSDK) reap() error {
	if s.cmd == nil {
		return nil
	}
	return waitProcess(s.cmd, s.stderr)
}

func (s *goSDK) Negotiated() (string, string) {
	res := s.cs.InitializeResult()
	name := ""
	if res.ServerInfo != nil {
		name = res.ServerInfo.Name
	}
	return res.ProtocolVersion, name
}

func (s *goSDK) Ping(ctx context.Context) error { return sdkErr(s.cs.Ping(ctx, nil)) }

func (s *goSDK) ListTools(ctx context.Context, cursor string) (page, error) {
	res, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
	if err != nil {
		return page{}, sdkErr(err)
	}
	p := page{Next: res.NextCursor}
	for _, tl := range res.Tools {
		p.Names = append(p.Names, tl.Name)
	}
	return p, nil
}

func (s *goSDK) AllTools(ctx context.Context) ([]string, error) {
	var names []string
	for tl, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, sdkErr(err)
		}
		names = append(names, tl.Name)
	}
	return names, nil
}

func (s *goSDK) CallTool(ctx context.Context, name string, args map[string]any, progress bool) (*toolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progress {
		params.SetProgressToken(fmt.Sprintf("p%d", s.token.Add(1)))
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		return nil, sdkErr(err)
	}
	return normalizeResult(res)
}

func (s *goSDK) ListResources(ctx context.Context, cursor string) (page, error) {
	res, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
	if err != nil {
		return page{}, sdkErr(err)
	}
	p := page{Next: res.NextCursor}
	for _, r := range res.Resources {
		p.Names = append(p.Names, r.URI)
	}
	return p, nil
}

func (s *goSDK) ListTemplates(ctx context.Context, cursor string) (page, error) {
	res, err := s.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
	if err != nil {
		return page{}, sdkErr(err)
	}
	p := page{Next: res.NextCursor}
	for _, r := range res.ResourceTemplates {
		p.Names = append(p.Names, r.URITemplate)
	}
	return p, nil
}

func (s *goSDK) ReadResource(ctx context.Context, uri string) ([]contents, error) {
	res, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, sdkErr(err)
	}
	return normalizeContents(res.Contents)
}

func (s *goSDK) ListPrompts(ctx context.Context, cursor string) (page, error) {
	res, err := s.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
	if err != nil {
		return page{}, sdkErr(err)
	}
	p := page{Next: res.NextCursor}
	for _, pr := range res.Prompts {
		p.Names = append(p.Names, pr.Name)
	}
	return p, nil
}

func (s *goSDK) GetPrompt(ctx context.Context, name string, args map[string]string) ([]block, error) {
	res, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, sdkErr(err)
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

func (s *goSDK) Complete(ctx context.Context, prompt, arg, value string) ([]string, error) {
	res, err := s.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
		Argument: mcp.CompleteParamsArgument{Name: arg, Value: value},
	})
	if err != nil {
		return nil, sdkErr(err)
	}
	return res.Completion.Values, nil
}

func (s *goSDK) SetLogLevel(ctx context.Context, level string) error {
	return sdkErr(s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}))
}

func (s *goSDK) Subscribe(ctx context.Context, uri string) error {
	return sdkErr(s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
}

func (s *goSDK) Unsubscribe(ctx context.Context, uri string) error {
	return sdkErr(s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
}

func (s *goSDK) Events() *events { return s.ev }
func (s *goSDK) Frames() *frames { return s.fr }

func (s *goSDK) Close() error {
	err := s.cs.Close()
	return errors.Join(err, s.reap())
}

// sdkErr turns the SDK's JSON-RPC error into an rpcError, keeping the
// rest of the chain in the message.
func sdkErr(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return fmt.Errorf("%v: %w", err, &rpcError{Code: we.Code, Message: we.Message})
	}
	return err
}

// normalizeResult reads a client's tool result into the neutral shape
// through its JSON form, which every client's types produce.
func normalizeResult(v any) (*toolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var wire struct {
		Content    []json.RawMessage `json:"content"`
		Structured any               `json:"structuredContent"`
		IsError    bool              `json:"isError"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, err
	}
	r := &toolResult{Structured: wire.Structured, IsError: wire.IsError}
	for _, c := range wire.Content {
		blk, err := normalizeBlock(c)
		if err != nil {
			return nil, err
		}
		r.Content = append(r.Content, blk)
	}
	return r, nil
}

// normalizeBlock reads one content block through its JSON form.
func normalizeBlock(v any) (block, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return block{}, err
	}
	var wire struct {
		block
		Resource *contents `json:"resource"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return block{}, err
	}
	out := wire.block
	if wire.Resource != nil {
		out.URI = wire.Resource.URI
		out.MIMEType = wire.Resource.MIMEType
		out.Text = wire.Resource.Text
	}
	return out, nil
}

// normalizeContents reads resource contents through their JSON form.
func normalizeContents(v any) ([]contents, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out []contents
	return out, json.Unmarshal(b, &out)
}

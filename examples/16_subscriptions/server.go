package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
)

// notesURI is the one resource, which the touch tool marks as changed.
const notesURI = "memo://notes"

// server is the example's MCP server: a hub that feeds every
// subscriptions/listen stream, and a registry whose tool list changes
// while clients listen.
type server struct {
	hub *hub.Hub
	reg *hub.Registry
	rt  *dispatch.Runtime
}

func newServer(logger *slog.Logger) (*server, error) {
	s := &server{hub: hub.New(hub.Options{})}
	// Every change to the registry publishes the matching list_changed
	// through the hub, after the new list is what requests see.
	s.reg = hub.NewRegistry(s.hub)
	nameSchema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	rt, err := dispatch.New(
		mcp.Implementation{Name: "subscriptions-example", Version: "0.1.0"},
		dispatch.WithLogger(logger),
		dispatch.WithSubscriptions(s.hub),
		dispatch.WithCatalog(s.reg),
		dispatch.WithTool(mcp.Tool{Name: "add_tool", Description: "Adds a tool that says hello, under the given name.", InputSchema: nameSchema}, s.addTool),
		dispatch.WithTool(mcp.Tool{Name: "remove_tool", Description: "Removes a tool added by add_tool.", InputSchema: nameSchema}, s.removeTool),
		dispatch.WithTool(mcp.Tool{Name: "touch", Description: "Marks " + notesURI + " as changed."}, s.touch),
		dispatch.WithResource(mcp.Resource{URI: notesURI, Name: "notes", MIMEType: "text/plain"}, readNotes),
	)
	if err != nil {
		return nil, err
	}
	s.rt = rt
	return s, nil
}

func toolName(req *dispatch.CallToolRequest) (string, error) {
	var args struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return "", err
	}
	return args.Name, nil
}

// addTool changes the tool list: listeners that asked for
// toolsListChanged get notifications/tools/list_changed.
func (s *server) addTool(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := toolName(req)
	if err != nil {
		return nil, err
	}
	greeting := "hello from " + name
	if err := s.reg.AddTool(mcp.Tool{Name: name, Description: "Says hello."},
		func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(greeting), nil
		}); err != nil {
		return mcp.ErrorResult(err.Error()), nil
	}
	return mcp.TextResult("added " + name), nil
}

func (s *server) removeTool(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := toolName(req)
	if err != nil {
		return nil, err
	}
	if !s.reg.RemoveTool(name) {
		return mcp.ErrorResult("no tool " + name), nil
	}
	return mcp.TextResult("removed " + name), nil
}

// touch publishes notifications/resources/updated to the listeners
// subscribed to the notes.
func (s *server) touch(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := s.hub.ResourceUpdated(notesURI)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(fmt.Sprintf("%d listener(s) told", r.Matched)), nil
}

func readNotes(_ context.Context, req *dispatch.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "buy milk"}}}, nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// headerRules applies the library's own 2026-07-28 header rules
// (MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body, and
// Mcp-Param-* for x-mcp-header arguments) to requests bound for a stdio
// server, which never sees HTTP headers.
//
// It is a Runtime of the bridge's own holding a copy of the stdio server's
// tools (their schemas carry the x-mcp-header annotations), which the
// library's HTTP handler admits requests with (see front). No handler of
// this Runtime ever runs.
type headerRules struct{ rt *dispatch.Runtime }

// catalogTimeout bounds the start-up queries for the server's catalog.
const catalogTimeout = 10 * time.Second

// loadHeaderRules copies the catalog of the stdio server c serves.
func loadHeaderRules(c *child, logger *slog.Logger) (*headerRules, error) {
	ctx, cancel := context.WithTimeout(context.Background(), catalogTimeout)
	defer cancel()
	var discover struct {
		Versions     []string `json:"supportedVersions"`
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := c.call(ctx, "server/discover", nil, &discover); err != nil {
		return nil, err
	}
	opts := []dispatch.Option{dispatch.WithProtocolVersions(discover.Versions...), dispatch.WithLogger(logger)}
	if _, ok := discover.Capabilities.Extensions[mcp.ExtensionTasks]; ok {
		// The tasks extension's methods mirror params.taskId in Mcp-Name.
		opts = append(opts, dispatch.WithExtension(dispatch.Extension{
			ID: mcp.ExtensionTasks, Versions: []string{mcp.Version20260728},
			Methods: map[string]dispatch.ExtensionHandler{
				mcp.MethodTasksGet: neverCalledExt, mcp.MethodTasksUpdate: neverCalledExt, mcp.MethodTasksCancel: neverCalledExt,
			},
			NameParams: map[string]string{mcp.MethodTasksGet: "taskId", mcp.MethodTasksUpdate: "taskId", mcp.MethodTasksCancel: "taskId"},
		}))
	}
	cursor := ""
	for page := 0; ; page++ {
		if page == 1000 {
			return nil, errors.New("tools/list does not end")
		}
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := c.call(ctx, "tools/list", params, &list); err != nil {
			return nil, err
		}
		for _, t := range list.Tools {
			opts = append(opts, dispatch.WithTool(mcp.Tool{Name: t.Name, InputSchema: t.InputSchema}, neverCalled))
		}
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "stdiobridge-header-rules", Version: "0"}, opts...)
	if err != nil {
		return nil, fmt.Errorf("copying the server's tools: %w", err)
	}
	return &headerRules{rt: rt}, nil
}

func neverCalled(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("stdiobridge: header rules never execute tools")
}

func neverCalledExt(context.Context, *dispatch.ExtensionRequest) (any, error) {
	return nil, errors.New("stdiobridge: header rules never execute extension methods")
}

// call sends one 2026-07-28 request of the bridge's own and decodes its
// result into v.
func (c *child) call(ctx context.Context, method string, params map[string]any, v any) error {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		mcp.MetaProtocolVersion:    mcp.Version20260728,
		mcp.MetaClientCapabilities: map[string]any{},
		mcp.MetaClientInfo:         map[string]any{"name": "stdiobridge", "version": "0"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "stdiobridge", "method": method, "params": params})
	if err != nil {
		return err
	}
	h := head{ID: json.RawMessage(strconv.Quote("stdiobridge")), Method: method}
	x, err := c.request(body, &h)
	if err != nil {
		return err
	}
	for {
		select {
		case it := <-x.items:
			if !it.final {
				continue
			}
			var resp struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(it.frame, &resp); err != nil {
				return err
			}
			if resp.Error != nil {
				return fmt.Errorf("%s: error %d: %s", method, resp.Error.Code, resp.Error.Message)
			}
			return json.Unmarshal(resp.Result, v)
		case <-ctx.Done():
			c.cancel(x, "timed out")
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}

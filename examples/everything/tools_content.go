package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
)

// Texts the conformance suite compares with what it receives.
const (
	simpleText       = "This is a simple text response for testing."
	embeddedText     = "This is an embedded resource content."
	errorText        = "This tool intentionally returns an error for testing"
	staticText       = "This is the content of the static text resource."
	embeddedResource = "test://embedded-resource"
)

// noArgs is the input schema of a tool that takes no arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// contentTools return each kind of content block, an error result, and
// progress; echo and sleep serve load tests.
func contentTools() []dispatch.Option {
	return []dispatch.Option{
		dispatch.WithTool(mcp.Tool{
			Name: "test_simple_text", Description: "Returns a simple text block.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(simpleText), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_image_content", Description: "Returns a PNG image block.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{imageBlock()}}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_audio_content", Description: "Returns a WAV audio block.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavBase64, MIMEType: "audio/wav"}}}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_embedded_resource", Description: "Returns an embedded text resource.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{embeddedBlock()}}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_multiple_content_types", Description: "Returns text, an image and an embedded resource.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.Text("Multiple content types test:"), imageBlock(), embeddedBlock(),
			}}, nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_error_handling", Description: "Always fails with an error result.", InputSchema: noArgs,
		}, func(context.Context, *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.ErrorResult(errorText), nil
		}),
		dispatch.WithTool(mcp.Tool{
			Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100, then completes.", InputSchema: noArgs,
		}, progressTool),
		dispatch.WithTool(mcp.Tool{
			Name: "echo", Description: "Returns the text it is given.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, echoTool),
		dispatch.WithTool(mcp.Tool{
			Name: "sleep", Description: "Waits for ms milliseconds, or until the call is cancelled.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}},"required":["ms"]}`),
		}, sleepTool),
	}
}

func imageBlock() *mcp.ImageContent {
	return &mcp.ImageContent{Data: pngBase64, MIMEType: "image/png"}
}

func embeddedBlock() *mcp.EmbeddedResource {
	return &mcp.EmbeddedResource{Resource: mcp.TextContents(embeddedResource, "text/plain", embeddedText)}
}

// progressStepDelay spaces the progress reports, so that a client sees
// them arrive while the call is running.
const progressStepDelay = 50 * time.Millisecond

func progressTool(ctx context.Context, _ *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, progressStepDelay); err != nil {
				return nil, err
			}
		}
		if err := dispatch.ReportProgress(ctx, mcp.Progress{Progress: p, Total: 100, Message: fmt.Sprintf("step %d of 3", i+1)}); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Progress test completed"), nil
}

func echoTool(_ context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return mcp.TextResult(args.Text), nil
}

func sleepTool(ctx context.Context, req *dispatch.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		MS int64 `json:"ms"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if err := pause(ctx, time.Duration(args.MS)*time.Millisecond); err != nil {
		return nil, err
	}
	return mcp.TextResult(fmt.Sprintf("slept %d ms", args.MS)), nil
}

// pause waits for d, or returns ctx's error once the call is cancelled.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Tool results that append themselves to the response frame in one pass (the
// hot path).

package dispatch

import (
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/internal/rpcwire"
	"github.com/snodo-go/snodo/jsonrpc"
	"github.com/snodo-go/snodo/mcp"
)

// resultAppender is a wire result that encodes itself by appending to the
// response frame: one pass over the result, ASCII only, with the same
// bytes as jsonwire.Marshal would produce. Tool results are the hot path of
// most servers; encoding them through json-iterator meant marshalling each
// content block into its own buffer (to put "type" first), copying it into
// the body, validating the raw _meta by decoding it, then scanning the
// whole body again for non-ASCII characters and copying it into the frame.
type resultAppender interface {
	appendJSON(b []byte) ([]byte, error)
}

// encodeResultFrame encodes the response frame for id carrying wire.
func encodeResultFrame(id jsonrpc.ID, wire any) ([]byte, error) {
	if a, ok := wire.(resultAppender); ok {
		b := make([]byte, 0, 256)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = id.AppendJSON(b)
		b = append(b, `,"result":`...)
		b, err := a.appendJSON(b)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	}
	body, err := jsonwire.Marshal(wire)
	if err != nil {
		return nil, err
	}
	return rpcwire.AppendResult(make([]byte, 0, len(body)+48), id, body), nil
}

// appendContent appends a content array. A plain text block (no
// annotations, no _meta), the usual one, is written directly; any other
// block is encoded as jsonwire.Marshal would encode it.
func appendContent(b []byte, content []mcp.Content) ([]byte, error) {
	if content == nil {
		return append(b, "null"...), nil // shaping never leaves it nil
	}
	b = append(b, '[')
	for i, c := range content {
		if i > 0 {
			b = append(b, ',')
		}
		if t, ok := c.(*mcp.TextContent); ok && t != nil && t.Annotations == nil && t.Meta == nil {
			b = append(b, `{"type":"text","text":`...)
			b = jsonwire.AppendString(b, t.Text)
			b = append(b, '}')
			continue
		}
		enc, err := jsonwire.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, enc...)
	}
	return append(b, ']'), nil
}

// appendValue appends v as jsonwire.Marshal encodes it.
func appendValue(b []byte, v any) ([]byte, error) {
	enc, err := jsonwire.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendJSON implements resultAppender with the member order and
// omissions of wire26CallTool's struct tags. Meta is the Runtime's own
// encoding (serverInfoMeta), so it is written as it is.
func (w *wire26CallTool) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"resultType":`...)
	b = jsonwire.AppendString(b, w.ResultType)
	b = append(b, `,"content":`...)
	b, err := appendContent(b, w.Content)
	if err != nil {
		return nil, err
	}
	if w.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		if b, err = appendValue(b, w.StructuredContent); err != nil {
			return nil, err
		}
	}
	if w.IsError {
		b = append(b, `,"isError":true`...)
	}
	b = append(b, `,"_meta":`...)
	if w.Meta == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, w.Meta...)
	}
	return append(b, '}'), nil
}

// appendJSON implements resultAppender with the member order and
// omissions of wire25CallTool's struct tags.
func (w *wire25CallTool) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"content":`...)
	b, err := appendContent(b, w.Content)
	if err != nil {
		return nil, err
	}
	if w.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		if b, err = appendValue(b, w.StructuredContent); err != nil {
			return nil, err
		}
	}
	if w.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(w.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		if b, err = appendValue(b, w.Meta); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

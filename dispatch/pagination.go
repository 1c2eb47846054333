// Pagination: the opaque cursors of list results and the pages they select.

package dispatch

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/jsonrpc"
)

// Cursors are opaque to clients. Inside, a cursor names the method,
// protocol version and page size it was issued for, the offset of the next
// page, and a digest of the list it pages through (after authorization
// filtering). A cursor presented with anything different, or for a list
// that has changed since, is -32602: paging on would skip or repeat items
// silently.

const (
	cursorVersion  = 1
	maxCursorBytes = 1024
)

type cursorBody struct {
	V        int    `json:"v"`
	Method   string `json:"m"`
	Version  string `json:"pv"`
	PageSize int    `json:"n"`
	Offset   int    `json:"o"`
	Digest   string `json:"d"`
}

var errBadCursor = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: invalid pagination cursor"}

// listDigest identifies a list by the keys of its items, in order.
func listDigest(keys []string) string {
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}

// pageOf returns the page of items the call's cursor asks for and the
// cursor of the next page ("" on the last page).
func pageOf[T any](rt *Runtime, c *Call, items []T, key func(T) string) ([]T, string, error) {
	var p listParams
	if err := decodeParams(c.Params, &p); err != nil {
		return nil, "", err
	}
	size := rt.limits.PageSize
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = key(it)
	}
	digest := listDigest(keys)
	offset := 0
	if p.Cursor != nil && *p.Cursor != "" {
		cur, ok := parseCursor(*p.Cursor)
		if !ok || cur.Method != c.Info.Method || cur.Version != c.Info.ProtocolVersion ||
			cur.PageSize != size || cur.Digest != digest || cur.Offset <= 0 || cur.Offset >= len(items) {
			return nil, "", errBadCursor
		}
		offset = cur.Offset
	}
	end := min(offset+size, len(items))
	next := ""
	if end < len(items) {
		b, err := jsonwire.Marshal(cursorBody{V: cursorVersion, Method: c.Info.Method, Version: c.Info.ProtocolVersion, PageSize: size, Offset: end, Digest: digest})
		if err != nil {
			return nil, "", err
		}
		next = base64.RawURLEncoding.EncodeToString(b)
	}
	return items[offset:end], next, nil
}

func parseCursor(s string) (cursorBody, bool) {
	var cur cursorBody
	if len(s) > maxCursorBytes || strings.ContainsAny(s, "=+/") {
		return cur, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !jsonwire.Valid(b) || jsonwire.Unmarshal(b, &cur) != nil || cur.V != cursorVersion {
		return cur, false
	}
	return cur, true
}

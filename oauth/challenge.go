// Scope refusals over HTTP: the endpoint's 200 answer carrying a
// CodeInsufficientScope error becomes 403 with an insufficient_scope
// challenge.
package oauth

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// challengeWriter holds back a JSON response's status until its first
// bytes show whether it is a scope refusal. Event streams and other
// responses pass through untouched.
type challengeWriter struct {
	http.ResponseWriter
	m       *Middleware
	held    int // the status held back; 0 when none is
	written bool
}

// scopeMarker opens the error member of a scope refusal's frame; the
// transport writes the error before any other member of it.
var scopeMarker = []byte(`"error":{"code":` + strconv.Itoa(CodeInsufficientScope) + `,`)

func (c *challengeWriter) WriteHeader(status int) {
	if c.written || c.held != 0 {
		return
	}
	if ct, _, _ := mime.ParseMediaType(c.Header().Get("Content-Type")); ct == "application/json" && status == http.StatusOK {
		c.held = status
		return
	}
	c.written = true
	c.ResponseWriter.WriteHeader(status)
}

func (c *challengeWriter) Write(b []byte) (int, error) {
	if c.held != 0 {
		status := c.held
		c.held = 0
		if scopes, ok := scopeRefusal(b); ok {
			c.Header().Set("WWW-Authenticate", c.m.challenge("insufficient_scope", "the token lacks a scope this request needs", scopes))
			status = http.StatusForbidden
			c.m.logger.Debug("oauth: request refused", "status", status, "error", "insufficient_scope")
		}
		c.written = true
		c.ResponseWriter.WriteHeader(status)
	} else if !c.written {
		c.WriteHeader(http.StatusOK)
		if c.held != 0 {
			return c.Write(b)
		}
	}
	return c.ResponseWriter.Write(b)
}

// Flush sends a held status first.
func (c *challengeWriter) Flush() {
	if c.held != 0 {
		c.written = true
		c.ResponseWriter.WriteHeader(c.held)
		c.held = 0
	}
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the server's writer (the
// transport sets read and write deadlines through it).
func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// finish sends a status still held (a response without a body).
func (c *challengeWriter) finish() {
	if c.held != 0 {
		c.written = true
		c.ResponseWriter.WriteHeader(c.held)
		c.held = 0
	}
}

// scopeRefusal reports whether frame is a JSON-RPC error with
// CodeInsufficientScope, and the scopes its data names.
func scopeRefusal(frame []byte) ([]string, bool) {
	head := frame
	if len(head) > 512 {
		head = head[:512] // the id is at most 256 bytes; the error follows it
	}
	if !bytes.Contains(head, scopeMarker) {
		return nil, false
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int64 `json:"code"`
			Data struct {
				Scope string `json:"scope"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(frame, &msg) != nil || msg.Result != nil || msg.Error == nil || msg.Error.Code != CodeInsufficientScope {
		return nil, false
	}
	return strings.Fields(msg.Error.Data.Scope), true
}
